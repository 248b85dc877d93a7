// The library drawer: each taught tool with where it came from, its runs and last failure,
// and what a person can do with it. Buttons ask the library; in the desktop app the shell
// decides (and asks the person in its own dialog where a change gives a tool more power).
import { $, el, LABELS } from './dom.js';
import { fieldWords, stepSentence, ticketCount } from '../words.js';
import { drawerHeader } from './drawer.js';

/**
 * @typedef {import('../teach/shell_library.js').LibraryTool} LibraryTool
 * @typedef {import('../teach/shell_library.js').Library} Library
 */
/**
 * @typedef {object} LibraryView
 * @property {HTMLElement} drawer
 * @property {Library} lib
 * @property {import('../app/console_core.js').ConsoleState} state
 * @property {import('./toast.js').Toast} toast
 * @property {(tool: LibraryTool, step: number) => void} onRepair
 * @property {(seq: number) => void} undo undo the person's change `seq` (a run on a selection)
 * @property {() => void} render
 */
/** A run on the tickets selected in the list. @typedef {{ tickets: string[], done: () => void }} OnSelection */
/** Which field of which command a question fills. @typedef {{ command: string, field: string }} Where */

/** @type {Record<string, string>} */
const STATUS_WORDS = { active: 'active', disabled: 'turned off', needs_review: 'needs review' };

const dayMonth = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });

/** @param {LibraryTool} t */
function madeBy(t) {
  /** @type {Partial<LibraryTool['origin']>} */
  const origin = t.origin ?? {};
  const when = Number.isFinite(t.createdAt) ? dayMonth.format(new Date(t.createdAt)) : '';
  if (origin.by === 'pack') {
    const pack = (origin.pack || 'a Tool Pack').replace(/\.understudy-pack\.json$/, '').replace(/[-_]+/g, ' ');
    return `From pack “${pack}”${origin.author ? ` by ${origin.author}` : ''}, imported ${when}`;
  }
  if (origin.by === 'team') return `From your team library, shared by ${origin.author || 'a colleague'}, accepted ${when}`;
  if (origin.by === 'agent') return `Drafted by ${origin.client || 'an agent'}, approved by you on ${when}`;
  return `Made by you on ${when}`;
}

/**
 * @param {object} options
 * @param {HTMLElement} options.drawer
 * @param {HTMLElement} options.panel
 * @param {Library} options.lib
 * @param {import('../app/console_core.js').ConsoleState} options.state
 * @param {import('./toast.js').Toast} options.toast
 * @param {(tool: LibraryTool, step: number) => void} options.onRepair
 * @param {(seq: number) => void} [options.undo]
 */
export function createLibraryView({ drawer, panel, lib, state, toast, onRepair, undo = () => {} }) {
  /** @type {LibraryView} */
  const v = { drawer, lib, state, toast, onRepair, undo, render: () => renderList(v) };
  const open = () => {
    drawer.hidden = false;
    panel.hidden = true;
    v.render();
  };
  return {
    render: v.render,
    open,
    /** The active tools that work on one ticket (a question of theirs is a ticket). */
    ticketTools: () => ticketTools(v),
    /**
     * Run `tool` on the open ticket: at once when the ticket is all it asks for; otherwise
     * its Run… form opens with the ticket filled in, asking only for the rest.
     * @param {LibraryTool} tool
     */
    runOnTicket(tool) {
      if (!state.selectedId) return;
      const where = questionsOf(tool);
      const names = Object.keys(tool.inputSchema.properties ?? {});
      if (names.some((n) => where.get(n)?.field !== 'ticket_id')) {
        open();
        renderRunForm(v, tool);
        return;
      }
      void runWith(v, tool, Object.fromEntries(names.map((n) => [n, state.selectedId])));
    },
    /**
     * Run `tool` on each of `tickets` (selected in the list), as one change: at once when a
     * ticket is all it asks for; otherwise its Run… form asks the rest, once for all of them.
     * The shell says how many it would change and asks before anything changes.
     * @param {LibraryTool} tool
     * @param {string[]} tickets
     * @param {() => void} done after it ran (the selection is cleared)
     */
    runOnSelection(tool, tickets, done) {
      if (!tickets.length) return;
      const where = questionsOf(tool);
      const names = Object.keys(tool.inputSchema.properties ?? {});
      if (names.some((n) => where.get(n)?.field !== 'ticket_id')) {
        open();
        renderRunForm(v, tool, { tickets, done });
        return;
      }
      void runOnTickets(v, tool, {}, { tickets, done });
    },
  };
}

/**
 * @param {LibraryView} v
 * @param {LibraryTool} tool
 * @param {Record<string, unknown>} input what the tool asks besides the ticket
 * @param {OnSelection} on
 */
async function runOnTickets(v, tool, input, { tickets, done }) {
  v.toast.show(`Trying ${shown(tool)} on ${ticketCount(tickets.length)}…`, { ms: 60_000 });
  const result = await v.lib.act('run_selection', tool.name, input, tickets);
  if (result?.isError) {
    if (result.code === 'consent_denied') v.toast.show(`${shown(tool)} did not run. Nothing changed.`);
    else v.toast.show(result.message ?? 'It did not run.', { kind: 'error' });
    return;
  }
  const changed = (result?.changed ?? []).length + Number(result?.changed_more ?? 0);
  if (!changed) {
    v.toast.show(result?.message || `${shown(tool)} changed none of the selected tickets.`);
    return;
  }
  done();
  const seq = result?.seq;
  v.toast.show(`${shown(tool)} changed ${ticketCount(changed)}.`, { undo: typeof seq === 'number' ? () => v.undo(seq) : null });
}

/**
 * What people see a tool called (decided by the shell); the name is for agents.
 * @param {LibraryTool} t
 */
const shown = (t) => t.shownAs || t.name;

/**
 * @param {string} text
 * @param {string} cls
 * @param {() => void} handler
 * @param {string} [title]
 */
function actionButton(text, cls, handler, title = '') {
  const button = el('button', { type: 'button', class: `btn${cls ? ` ${cls}` : ''}`, title: title || null }, text);
  button.addEventListener('click', handler);
  return button;
}

/**
 * @param {LibraryView} v
 * @param {Protocol.LibraryAsk['action']} action
 * @param {string} name
 * @param {string | null} [done] what to say when it is done
 */
async function act(v, action, name, done = null) {
  const reply = await v.lib.act(action, name);
  if (reply?.isError) {
    if (reply.code !== 'consent_denied') v.toast.show(reply.message ?? '', { kind: 'error' });
  } else if (done) {
    v.toast.show(done);
  }
  v.render();
}

/**
 * @param {LibraryView} v
 * @param {LibraryTool} t
 */
function cardButtons(v, t) {
  /** @type {HTMLButtonElement[]} */
  const buttons = [];
  // Only the buttons this library takes: a plain browser keeps Run and Repair (the desktop
  // app's dialog asks for the rest).
  const takes = (/** @type {Protocol.LibraryAsk['action']} */ action) => v.lib.actions.has(action);
  if (t.status === 'needs_review') {
    if (takes('review')) buttons.push(actionButton('Review again…', 'primary', () => act(v, 'review', t.name)));
  } else {
    if (t.status === 'active') buttons.push(actionButton('Run…', 'primary', () => renderRunForm(v, t)));
    if (t.status === 'active' && takes('disable')) {
      // In the desktop app turning off is asked in Understudy's own dialog, hence the dots.
      buttons.push(actionButton('Turn off…', '', () => act(v, 'disable', t.name, `${shown(t)} is turned off.`)));
    } else if (t.status !== 'active' && takes('enable')) buttons.push(actionButton('Turn on…', '', () => act(v, 'enable', t.name)));
  }
  const failedStep = t.usage?.lastFailure?.step;
  if (failedStep) buttons.push(actionButton(`Repair step ${failedStep}`, '', () => v.onRepair(t, failedStep - 1), 'Re-do the step that failed; the rest of the tool stays as it is'));
  if (t.status === 'active' && takes('ask')) {
    buttons.push(t.askEveryTime
      ? actionButton('Stop asking each time…', '', () => act(v, 'relax', t.name))
      : actionButton('Ask me every time', '', () => act(v, 'ask', t.name), 'Agents must get your approval for each run'));
  }
  if (takes('revoke')) {
    buttons.push(t.stale
      ? actionButton('Retire…', 'danger', () => confirmRevoke(v, t), 'Nobody has used it for a month: take it out of your library')
      : actionButton('Revoke…', 'danger', () => confirmRevoke(v, t)));
  }
  return buttons;
}

/**
 * @param {LibraryView} v
 * @param {LibraryTool} t
 */
function card(v, t) {
  const usage = t.usage ?? { runs: 0, successes: 0, lastFailure: null };
  const rate = usage.runs ? `${Math.round((100 * usage.successes) / usage.runs)}% succeeded` : 'not run yet';
  const failure = usage.lastFailure ? `Last failure: ${usage.lastFailure.message}` : 'No failures';
  return el('div', { class: 'card', dataset: { tool: t.name } },
    el('div', { class: 'card-row' }, el('strong', { text: shown(t) }), el('span', { class: `status-tag ${t.status}`, text: STATUS_WORDS[t.status] ?? t.status }),
      t.askEveryTime ? el('span', { class: 'status-tag disabled', text: 'asks before each run' }) : null),
    el('p', { class: 'stat', text: t.description }),
    el('p', { class: 'stat', text: `${madeBy(t)} · ${usage.runs} run${usage.runs === 1 ? '' : 's'} · ${rate}` }),
    el('p', { class: 'stat', text: failure }),
    t.note ? el('p', { class: 'stat', text: t.note }) : null,
    t.stale ? el('p', { class: 'warnings', text: staleWords(t) }) : null,
    t.status === 'needs_review' ? el('p', { class: 'warnings', text: `Held back from agents: ${t.reviewReason || 'it changed since you approved it'}.` }) : null,
    el('div', { class: 'card-row' }, ...cardButtons(v, t)));
}

/**
 * A tool nobody ran for 30 days or more: say so, and suggest retiring it.
 * @param {LibraryTool} t
 */
function staleWords(t) {
  const days = t.daysUnused ?? 30;
  const since = t.usage?.lastUsed ? `Not used for ${days} days` : `Never used in ${days} days`;
  return `${since} (freshness ${Math.round((t.freshness ?? 0) * 100)}%). If nobody needs it any more, retire it.`;
}

/**
 * @param {LibraryView} v
 * @param {LibraryTool} t
 */
function confirmRevoke(v, t) {
  // The shell's own dialog is the question (a plain browser has no Revoke button).
  act(v, 'revoke', t.name, `${shown(t)} was revoked.`);
}

/** @param {LibraryView} v */
function renderList(v) {
  const tools = v.lib.list();
  $('library-count').textContent = String(tools.length);
  if (v.drawer.hidden) return;
  const hint = tools.length
    ? `${v.lib.activeCount()} of ${v.lib.max} active.${v.lib.actions.has('disable') ? ' Turning a tool off frees a place; revoking removes it.' : ''}`
    : 'No tools yet. Press Teach, do a routine once as you always do, then Stop teaching: the tool you make appears here.';
  v.drawer.replaceChildren(drawerHeader('Your tools', () => { v.drawer.hidden = true; }),
    el('p', { class: 'hint', text: hint }),
    ...tools.map((t) => card(v, t)));
}

/**
 * @param {LibraryView} v
 * @returns {LibraryTool[]}
 */
function ticketTools(v) {
  return v.lib.list().filter((t) => t.status === 'active' && [...questionsOf(t).values()].some((w) => w.field === 'ticket_id'));
}

/**
 * Run a tool with these answers and say how it went: which tickets a run changed, counted.
 * @param {LibraryView} v
 * @param {LibraryTool} tool
 * @param {Record<string, unknown>} input
 */
async function runWith(v, tool, input) {
  const result = await v.lib.act('run', tool.name, input);
  // The answer names the first tickets it changed and counts the rest (changed_more).
  const changed = (/** @type {string[]} */ (result?.changed ?? [])).length + Number(result?.changed_more ?? 0);
  v.toast.show(result?.ok ? `${shown(tool)} finished: ${ticketCount(changed)} changed.` : (result?.message ?? 'It did not run.'), { kind: result?.ok ? 'info' : 'error' });
}

/**
 * Which field of which command each question fills (for its label and its picker).
 * @param {LibraryTool} tool
 */
function questionsOf(tool) {
  /** @type {Map<string, Where>} */
  const out = new Map();
  for (const step of tool.steps ?? []) {
    for (const [field, spec] of Object.entries(step.args ?? {})) {
      if (spec.from === 'param' && !out.has(spec.name)) out.set(spec.name, { command: step.command, field });
    }
  }
  return out;
}

/**
 * A picker that shows names (people, templates, priorities, statuses), or a text box.
 * @param {import('../app/console_core.js').ConsoleState} state
 * @param {string} name
 * @param {Protocol.JsonSchema} schema
 * @param {Where | undefined} where
 */
function inputFor(state, name, schema, where) {
  const field = where?.field;
  const aria = fieldWords(where?.command ?? '', field ?? name).label;
  /** @param {string[][]} pairs @param {unknown} value */
  const options = (pairs, value) => {
    const select = el('select', { name, 'aria-label': aria }, ...pairs.map(([value, label]) => el('option', { value, text: label })));
    if (value !== undefined) select.value = /** @type {string} */ (value);
    return select;
  };
  if (field === 'assignee') return options([['', 'Nobody'], ...state.assignees.map((a) => [a.id, a.name])], schema.default ?? state.assignees[0]?.id);
  if (field === 'template_id') return options(state.templates.map((t) => [t.id, t.name]), schema.default);
  if (field === 'priority' || field === 'status') {
    const values = /** @type {string[]} */ (schema.enum ?? []); // the catalogue's priorities, statuses
    return options(values.filter((x) => x !== '').map((x) => [x, LABELS[field][x] ?? x]), schema.default ?? (field === 'priority' ? 'normal' : undefined));
  }
  const start = schema.default ?? (field === 'ticket_id' ? state.selectedId ?? '' : '');
  return el('input', { type: 'text', name, 'aria-label': aria, value: start });
}

/**
 * The answers in a run form; "Nobody" for an assignee is an answer (unassign).
 * @param {HTMLFormElement} form
 * @param {Map<string, Where>} where
 */
function answersOf(form, where) {
  /** @type {Record<string, string | null>} */
  const input = {};
  for (const node of /** @type {NodeListOf<HTMLInputElement | HTMLSelectElement>} */ (form.querySelectorAll('[name]'))) {
    if (node.tagName === 'SELECT' && node.value === '' && where.get(node.name)?.field === 'assignee') input[node.name] = null;
    else if (node.value !== '') input[node.name] = node.value;
  }
  return input;
}

/**
 * @param {LibraryView} v
 * @param {LibraryTool} tool
 * @param {OnSelection | null} [selection] a run on these selected tickets: the ticket is not asked
 */
function renderRunForm(v, tool, selection = null) {
  const where = questionsOf(tool);
  const onTickets = selection ? el('p', { class: 'stat', text: `On the ${ticketCount(selection.tickets.length)} you selected.` }) : null;
  const fields = Object.entries(tool.inputSchema.properties ?? {}).filter(([name]) => !selection || where.get(name)?.field !== 'ticket_id').map(([name, schema]) => {
    const asked = where.get(name);
    const input = inputFor(v.state, name, schema, asked);
    const label = asked ? fieldWords(asked.command, asked.field).label : name;
    return el('label', {}, label, input, schema.description ? el('span', { class: 'hint', text: schema.description }) : null);
  });
  const go = el('button', { type: 'submit', class: 'btn primary' }, 'Run');
  const form = el('form', { class: 'card' },
    el('p', { class: 'stat', text: tool.steps.map((s) => stepSentence(s)).join('. ') + '.' }),
    onTickets, ...fields, el('div', { class: 'card-row' }, go));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    go.disabled = true;
    if (selection) await runOnTickets(v, tool, answersOf(form, where), selection);
    else await runWith(v, tool, answersOf(form, where));
    v.render();
  });
  v.drawer.replaceChildren(drawerHeader(`Run ${shown(tool)}`, v.render), form);
}
