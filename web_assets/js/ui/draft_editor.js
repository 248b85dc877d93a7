// The "Make a tool" editor: the routine the person did, step by step in their words, what the
// tool will ask each time (by default only what the routine acted on: the ticket, or the
// words a search looked for), and a switch beside every other value to let whoever runs the
// tool choose it. Nothing here shows ids, JSON or field names.
import { el } from './dom.js';
import { generalize, GeneralizeError } from '../teach/generalize.js';
import { compile, BUDGET } from '../teach/compile.js';
import { doingWords, fieldWords, isSetBased, listWords, stepSentence, valueWords } from '../words.js';
import { drawerHeader } from './drawer.js';

/**
 * @typedef {import('../teach/generalize.js').Recording} Recording
 * @typedef {import('../teach/generalize.js').Draft} Draft
 * @typedef {import('../teach/generalize.js').Param} Param
 * @typedef {import('../teach/compile.js').Definition} Definition
 * @typedef {import('../teach/local_approvals.js').DraftEntry} DraftEntry
 * @typedef {{ titleInput: HTMLInputElement, nameInput: HTMLInputElement, descInput: HTMLTextAreaElement }} Form
 * @typedef {DraftEntry & { meta: import('../teach/compile.js').Meta }} EditorEntry a draft the editor shows
 */

/** @type {Record<string, string>} */
const VERBS = {
  set_ticket_assignee: 'assign', set_ticket_priority: 'prioritise', set_ticket_status: 'set_status',
  apply_template: 'reply', add_ticket_tag: 'tag', tag_matching_tickets: 'tag_matches',
  set_matching_priority: 'prioritise_matches', set_matching_status: 'set_status_matches',
  assign_matching_tickets: 'assign_matches', filter_tickets: 'find', set_reply_draft: 'write_reply',
};

// Words a shortened identifier does not end on ("assign_set_the_priority_and").
const DANGLING = new Set(['a', 'an', 'and', 'of', 'or', 'the', 'to', 'with']);

/** @param {string} name */
function shorten(name) {
  let out = name;
  while (out.length > BUDGET.name) out = out.split('_').slice(0, -1).join('_') || out.slice(0, BUDGET.name);
  const words = out.split('_');
  while (words.length > 1 && DANGLING.has(words.at(-1) ?? '')) words.pop();
  return words.join('_');
}

/**
 * A short name for agents, from what the routine does (the person may change it).
 * @param {Recording} recording
 */
export function suggestName(recording) {
  const verbs = [...new Set(recording.steps.map((s) => VERBS[s.command]).filter(Boolean))];
  return shorten(verbs.join('_') || 'my_routine');
}

/**
 * The tool's name in words, from what the routine does: "Assign, set the priority and reply".
 * @param {Recording} recording
 */
export function suggestTitle(recording) {
  const doing = [...new Set(recording.steps.map((s) => doingWords(s.command)).filter(Boolean))];
  if (!doing.length) return 'My routine';
  const text = listWords(doing);
  return (text.charAt(0).toUpperCase() + text.slice(1)).slice(0, BUDGET.title);
}

/**
 * What agents call a tool, made from its name in words: "Escalate a refund" -> escalate_a_refund.
 * @param {string} title
 * @param {string} fallback
 */
export function nameFromTitle(title, fallback) {
  const base = title.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()
    .replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (!base) return fallback;
  const lettered = /^[a-z]/.test(base) ? base : `tool_${base}`;
  return shorten(lettered.startsWith('understudy_') ? `my_${lettered}` : lettered);
}

/** @param {string} text */
const lowerFirst = (text) => text.charAt(0).toLowerCase() + text.slice(1);

/**
 * What a step works on, so that the next sentence can say "it" or "them": the matching
 * tickets, or one ticket by where its value comes from (followed back through the steps).
 * @param {Protocol.Step[]} steps
 * @param {Protocol.Step} step
 * @returns {string | null}
 */
function subjectOf(steps, step) {
  if (step.command === 'filter_tickets' || isSetBased(step.command)) return 'matching';
  let arg = step.args.ticket_id;
  for (let hops = 0; arg?.from === 'step' && hops < steps.length; hops += 1) {
    const before = steps[arg.step]?.args[arg.path];
    if (!before) return `step ${arg.step} ${arg.path}`;
    arg = before;
  }
  if (!arg) return null;
  return arg.from === 'param' ? `asked ${arg.name}` : arg.from === 'const' ? `fixed ${String(arg.value)}` : null;
}

/**
 * What the tool does, in the person's words, from the steps as the tool will run them:
 * "Assign the ticket you choose to Priya Raman, set its priority to High and fill its reply
 * with “Refund approved”." Agents read it with every list of tools, so it says each thing
 * once.
 * @param {{ steps: Protocol.Step[] }} definition
 */
export function suggestDescription(definition) {
  const { steps } = definition;
  const unsaid = (/** @type {Protocol.Step | undefined} */ step) => step !== undefined && (step.command === 'select_ticket' || step.command === 'get_ticket');
  // Opening a ticket is not said, so the first step that works on "the same ticket" says
  // which ticket it is ("the ticket you choose"); the steps after it say "it".
  /** @type {Set<number>} */
  const named = new Set();
  /** @type {{ text: string, found: boolean }[]} */
  const said = [];
  /** @type {string | null} */
  let before = null;
  for (const step of steps) {
    if (unsaid(step)) continue;
    const args = { ...step.args };
    for (const [field, arg] of Object.entries(args)) {
      if (arg.from !== 'step' || named.has(arg.step) || !unsaid(steps[arg.step])) continue;
      const opened = steps[arg.step].args[arg.path];
      if (opened && opened.from !== 'step') { args[field] = opened; named.add(arg.step); }
    }
    const about = subjectOf(steps, step);
    const text = stepSentence({ command: step.command, args }, about !== null && about === before);
    said.push({ text: said.length ? lowerFirst(text) : text, found: step.command === 'filter_tickets' });
    before = about;
  }
  // After a search, ", then": what follows works on what it found. Otherwise one list.
  let text = said[0]?.text ?? stepSentence(steps[0]);
  for (let i = 1; i < said.length; i += 1) {
    const joint = said[i - 1].found ? ', then ' : i === said.length - 1 ? ' and ' : ', ';
    text += `${joint}${said[i].text}`;
  }
  text += '.';
  return text.charAt(0).toUpperCase() + text.slice(1, BUDGET.description);
}

/**
 * @param {object} options
 * @param {HTMLElement} options.panel
 * @param {HTMLElement} options.library
 * @param {Map<string, DraftEntry>} options.drafts
 * @param {import('./toast.js').Toast} options.toast
 * @param {(entry: DraftEntry) => void} options.onPublish
 */
export function createDraftEditor({ panel, library, drafts, toast, onPublish }) {
  let draftSeq = 0; // draft ids must be unique even when two are opened in the same millisecond
  /** @type {string | null} */
  let openDraftId = null;

  /**
   * @param {Recording} recording
   * @param {Draft} draft
   * @param {Recording} [second] the recording it was paired with
   */
  function open(recording, draft, second) {
    draftSeq += 1;
    const id = `draft-p${draftSeq}`;
    const title = suggestTitle(recording);
    // Compiled by render() before anything reads its definition.
    const entry = /** @type {EditorEntry} */ ({ id, draft, meta: { name: nameFromTitle(title, suggestName(recording)), title, description: '' }, fallbackName: suggestName(recording), recordingId: recording.id, ...(second ? { pairWith: second.id } : {}), by: 'person', described: false, named: false });
    drafts.set(id, entry);
    openDraftId = id;
    render({ panel, library, onPublish }, entry);
  }

  /** @param {Recording} recording */
  function start(recording) {
    try {
      open(recording, generalize(recording));
    } catch (err) {
      if (err instanceof GeneralizeError) toast.show(err.message, { kind: 'error' });
      else throw err;
    }
  }

  return { start, open, get openDraftId() { return openDraftId; } };
}

/**
 * The switch and the "described as" box for one value the tool could ask for.
 * @param {Param} p
 * @param {() => void} refresh
 */
function choiceFor(p, refresh) {
  const words = fieldWords(p.command, p.field);
  if (p.kind === 'entity') {
    return el('p', { class: 'choice fixed-ask', text: `Asks each time for ${words.asked}.` });
  }
  const id = `ask-${p.name}`;
  const box = el('input', { type: 'checkbox', id, 'aria-label': `Let whoever runs it choose ${words.label.toLowerCase()}` });
  box.checked = p.bound;
  const recorded = valueWords(p.command, p.field, p.recorded, p.recordedRef);
  const label = el('label', { for: id, class: 'switch-label' }, box, ` Let whoever runs it choose ${words.label.toLowerCase()} (you did: ${recorded})`);
  box.addEventListener('change', () => { p.bound = box.checked; refresh(); });
  return el('div', { class: 'choice' }, label);
}

/**
 * @param {Param} p
 * @param {() => void} refresh
 */
function describedAs(p, refresh) {
  const words = fieldWords(p.command, p.field);
  const input = el('input', { type: 'text', value: p.description, 'aria-label': `How ${words.asked} is described to whoever runs it`, maxlength: BUDGET.paramDescription });
  input.addEventListener('input', () => { p.description = input.value; refresh(); });
  return el('label', { class: 'described' }, `How ${words.asked} is described to whoever runs it`, input);
}

/**
 * The step list: each step in words, its switches, and how asked values are described.
 * @param {Draft} draft
 * @param {Definition} definition
 * @param {() => void} refresh
 */
function stepItems(draft, definition, refresh) {
  /** @param {number} i @param {Param} p */
  const uses = (i, p) => draft.steps[i] && Object.values(draft.steps[i].args).some((a) => a.from === 'param' && a.name === p.name);
  return definition.steps.map((step, i) => {
    const choices = draft.params.filter((p) => uses(i, p));
    const asked = choices.filter((p) => p.bound);
    return el('li', {},
      el('span', { class: 'sentence', text: stepSentence(step) }),
      ...choices.map((p) => choiceFor(p, refresh)),
      ...asked.map((p) => describedAs(p, refresh)));
  });
}

/**
 * Compile the draft as it stands; the description follows the choices until written.
 * @param {EditorEntry} entry
 * @param {Form} form
 */
function recompile(entry, form) {
  const { draft } = entry;
  const title = form.titleInput.value.trim();
  // What agents call it follows the name in words until the person writes it themselves.
  if (!entry.named) form.nameInput.value = nameFromTitle(title, entry.fallbackName ?? 'my_routine');
  entry.meta = { name: form.nameInput.value.trim(), title, description: form.descInput.value.trim() };
  let { definition, problems } = compile(draft, entry.meta);
  if (!entry.described) {
    form.descInput.value = suggestDescription(definition);
    entry.meta.description = form.descInput.value;
    ({ definition, problems } = compile(draft, entry.meta));
  }
  // A person's tool always has a name in words (an agent's may not: people then see its
  // identifier spelt out).
  if (!title) problems.unshift('Name: give the tool a name in words, for example “Escalate a refund”.');
  entry.definition = definition;
  entry.problems = problems;
}

/**
 * @param {{ panel: HTMLElement, library: HTMLElement, onPublish: (entry: DraftEntry) => void }} where
 * @param {EditorEntry} entry
 */
function render({ panel, library, onPublish }, entry) {
  panel.hidden = false;
  library.hidden = true;
  const { draft } = entry;
  const form = {
    titleInput: el('input', { type: 'text', value: entry.meta.title ?? '', id: 'draft-title', 'aria-label': 'Name', maxlength: BUDGET.title }),
    nameInput: el('input', { type: 'text', value: entry.meta.name, id: 'draft-name', 'aria-label': 'What agents call it', maxlength: BUDGET.name }),
    descInput: el('textarea', { id: 'draft-description', rows: 3, 'aria-label': 'What it does and when to use it', maxlength: BUDGET.description }),
  };
  const problemsBox = el('ul', { class: 'problems', hidden: true });
  const stepsList = el('ol', { class: 'steps routine' });
  const publish = el('button', { type: 'button', class: 'btn primary', id: 'draft-publish' }, 'Publish…');
  const warnings = draft.warnings.length ? el('ul', { class: 'warnings' }, ...draft.warnings.map((w) => el('li', { text: w.message }))) : null;

  function refresh() {
    recompile(entry, form);
    stepsList.replaceChildren(...stepItems(draft, entry.definition, refresh));
    problemsBox.replaceChildren(...entry.problems.map((p) => el('li', { text: p })));
    problemsBox.hidden = !entry.problems.length;
    publish.disabled = entry.problems.length > 0;
  }
  form.titleInput.addEventListener('input', refresh);
  form.nameInput.addEventListener('input', () => { entry.named = true; refresh(); });
  form.descInput.addEventListener('input', () => { entry.described = true; refresh(); });
  publish.addEventListener('click', () => {
    refresh();
    if (!entry.problems.length) onPublish(entry);
  });
  refresh();
  panel.replaceChildren(
    drawerHeader('Make a tool', () => { panel.hidden = true; }),
    el('p', { class: 'hint', text: 'This is the routine you did. Whoever runs the tool, you from your library or an agent, gets these same steps. Choose what they may change each time; everything else stays as you did it.' }),
    el('h3', { text: 'What it does' }),
    stepsList,
    ...(warnings ? [warnings] : []),
    el('label', {}, 'Name (what you and your colleagues see it called)', form.titleInput),
    el('label', {}, 'What it does and when to use it (agents read this)', form.descInput),
    el('label', { class: 'for-agents' }, 'What agents call it (made from the name; letters, digits and _)', form.nameInput),
    problemsBox,
    el('div', { class: 'card-row' }, publish),
  );
}
