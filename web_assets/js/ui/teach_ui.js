// Teach, recordings, drafts, approval, library, and what a running tool shows a person.
// Everything here is built with el() and textContent: names and descriptions may come from
// an agent and are shown as text, never as markup.
import { $, el } from './dom.js';
import { CATALOGUE } from '../catalogue.js';
import { generalize, generalizePair, describeStep, GeneralizeError } from '../teach/generalize.js';
import { compile, plainSummary, BUDGET } from '../teach/compile.js';
import { publicTool } from '../teach/meta_tools.js';
import { MAX_TAUGHT_TOOLS } from '../teach/registry.js';
import { repairDefinition, RepairError } from '../teach/repair.js';

const VERBS = {
  set_ticket_assignee: 'assign', set_ticket_priority: 'prioritise', set_ticket_status: 'set_status',
  apply_template: 'reply', add_ticket_tag: 'tag', tag_matching_tickets: 'tag_matches',
  set_matching_priority: 'prioritise_matches', set_matching_status: 'set_status_matches',
  assign_matching_tickets: 'assign_matches', filter_tickets: 'find', set_reply_draft: 'write_reply',
};

/** A tool name and description the app suggests from the steps; the person may change both. */
export function suggestMeta(recording) {
  const verbs = [...new Set(recording.steps.map((s) => VERBS[s.command]).filter(Boolean))];
  let name = verbs.join('_') || 'my_routine';
  while (name.length > BUDGET.name) name = name.split('_').slice(0, -1).join('_') || name.slice(0, BUDGET.name);
  const titles = [...new Set(recording.steps.map((s) => describeStep(s)))];
  return { name, description: `Runs a routine a person recorded: ${titles.join(', ')}.`.slice(0, BUDGET.description) };
}

function dryRun(definition, draft) {
  const recorded = Object.fromEntries(draft.params.map((p) => [p.name, p.recorded]));
  return definition.steps.map((step, i) => {
    const shown = Object.entries(step.args).map(([field, spec]) => {
      if (spec.from === 'param') return spec.name in recorded ? `${field} = ${JSON.stringify(recorded[spec.name])} (parameter ${spec.name})` : `${field} = the parameter ${spec.name}`;
      if (spec.from === 'step') return `${field} = from step ${spec.step + 1}`;
      return `${field} = ${JSON.stringify(spec.value)}`;
    });
    return `${i + 1}. ${CATALOGUE[step.command]?.title ?? step.command}${shown.length ? ` — ${shown.join(', ')}` : ''}`;
  });
}

export function mountTeachUi({ state, recorder, recordings, drafts, registry, approvals, toast, shellDecides }) {
  const teachButton = $('teach-button');
  const panel = $('teach-panel');
  const library = $('library-panel');
  const overlay = $('approval');
  let openDraftId = null;
  let draftSeq = 0; // draft ids must be unique even when two are opened in the same millisecond
  let repairing = null; // { tool, step } while a person re-does one step

  // ---- teach ----------------------------------------------------------------------------
  function toggleTeach() {
    if (recorder.active) {
      const recording = recorder.stop();
      document.body.classList.remove('recording');
      teachButton.setAttribute('aria-pressed', 'false');
      $('teach-label').textContent = 'Teach';
      if (repairing) {
        finishRepair(recording);
        return;
      }
      if (!recording.steps.length) {
        toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
        return;
      }
      recordings.save(recording);
      toast.show(`Recorded ${recording.steps.length} step${recording.steps.length === 1 ? '' : 's'}. Review it to make a tool.`);
      startDraft(recording);
    } else {
      recorder.start();
      document.body.classList.add('recording');
      teachButton.setAttribute('aria-pressed', 'true');
      $('teach-label').textContent = 'Stop teaching';
      toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
    }
  }
  teachButton.addEventListener('click', toggleTeach);
  recorder.onStep = () => {
    if (recorder.active) $('teach-label').textContent = `Stop teaching (${recorder.recording.steps.length})`;
  };

  // ---- recordings panel and draft editor ------------------------------------------------
  function close(node) { node.hidden = true; }

  function header(title, onClose) {
    const closeButton = el('button', { type: 'button', class: 'close-button', 'aria-label': `Close ${title}` }, '×');
    closeButton.addEventListener('click', onClose);
    return el('div', { class: 'drawer-head' }, el('h2', { text: title }), closeButton);
  }

  function showRecordings() {
    panel.hidden = false;
    library.hidden = true;
    const list = [...recordings.all()].reverse();
    const cards = list.map((r) => {
      const nameInput = el('input', { type: 'text', value: r.name, 'aria-label': `Name of recording ${r.name}` });
      nameInput.addEventListener('change', () => { r.name = nameInput.value.trim() || r.name; recordings.save(r); });
      const make = el('button', { type: 'button', class: 'btn primary' }, 'Make a tool');
      make.addEventListener('click', () => startDraft(r));
      const pair = el('button', { type: 'button', class: 'btn', title: 'Combine with another recording of the same routine: values that differ become parameters' }, 'Pair with…');
      pair.addEventListener('click', () => choosePair(r));
      const remove = el('button', { type: 'button', class: 'btn danger' }, 'Delete');
      remove.addEventListener('click', () => { recordings.remove(r.id); showRecordings(); });
      return el('div', { class: 'card' }, nameInput,
        el('ol', { class: 'steps' }, ...r.steps.map((s) => el('li', { text: describeStep(s) }))),
        el('div', { class: 'card-row' }, make, pair, remove));
    });
    panel.replaceChildren(header('Recordings', () => close(panel)),
      el('p', { class: 'hint', text: list.length ? 'Each recording is a routine you did once. Make a tool from it, or pair two recordings of the same routine.' : 'No recordings yet. Press Teach, do a routine once, then Stop.' }),
      ...cards);
  }

  function choosePair(first) {
    const others = recordings.all().filter((r) => r.id !== first.id);
    if (!others.length) { toast.show('Record the same routine a second time first.'); return; }
    const select = el('select', { 'aria-label': 'Recording to pair with' }, ...others.map((r) => el('option', { value: r.id, text: r.name })));
    const go = el('button', { type: 'button', class: 'btn primary' }, 'Pair');
    go.addEventListener('click', () => {
      try {
        openEditor(first, generalizePair(first, recordings.get(select.value)));
      } catch (err) {
        if (err instanceof GeneralizeError) toast.show(err.message, { kind: 'error' });
        else throw err;
      }
    });
    panel.replaceChildren(header('Pair recordings', showRecordings), el('p', { class: 'hint', text: `Pair "${first.name}" with:` }), select, el('div', { class: 'card-row' }, go));
  }

  function startDraft(recording) {
    try {
      openEditor(recording, generalize(recording));
    } catch (err) {
      if (err instanceof GeneralizeError) toast.show(err.message, { kind: 'error' });
      else throw err;
    }
  }

  function openEditor(recording, draft) {
    const meta = suggestMeta(recording);
    draftSeq += 1;
    const id = `draft-p${draftSeq}`;
    const entry = { id, draft, meta, recordingId: recording.id, by: 'person' };
    drafts.set(id, entry);
    openDraftId = id;
    renderEditor(entry);
  }

  function renderEditor(entry) {
    panel.hidden = false;
    library.hidden = true;
    const { draft, meta } = entry;
    const nameInput = el('input', { type: 'text', value: meta.name, id: 'draft-name', 'aria-label': 'Tool name' });
    const descInput = el('textarea', { id: 'draft-description', rows: 3, 'aria-label': 'Tool description' });
    descInput.value = meta.description;
    const rows = draft.params.map((p) => {
      const bind = el('input', { type: 'checkbox', 'aria-label': `${p.name} is a parameter` });
      bind.checked = p.bound;
      bind.addEventListener('change', () => { p.bound = bind.checked; refresh(); });
      const desc = el('input', { type: 'text', value: p.description, 'aria-label': `Description of ${p.name}`, placeholder: 'What is it?' });
      desc.addEventListener('input', () => { p.description = desc.value; refresh(); });
      const fallback = el('input', { type: 'checkbox', 'aria-label': `${p.name} falls back to the recorded value` });
      fallback.checked = p.fallback;
      fallback.addEventListener('change', () => { p.fallback = fallback.checked; refresh(); });
      const rename = el('input', { type: 'text', value: p.name, class: 'param-name', 'aria-label': `Name of parameter ${p.name}`, size: 12 });
      rename.addEventListener('change', () => {
        const next = rename.value.trim();
        if (!/^[a-z][a-z0-9_]{0,39}$/.test(next) || draft.params.some((o) => o !== p && o.name === next)) {
          toast.show('A parameter name uses lower-case letters, digits and _, and differs from the others.', { kind: 'error' });
          rename.value = p.name;
          return;
        }
        for (const step of draft.steps) for (const a of Object.values(step.args)) if (a.from === 'param' && a.name === p.name) a.name = next;
        p.name = next;
        refresh();
      });
      return el('tr', {}, el('td', {}, bind), el('td', {}, rename), el('td', { text: JSON.stringify(p.recorded) }), el('td', {}, desc), el('td', {}, fallback));
    });
    const problemsBox = el('ul', { class: 'problems', hidden: true });
    const publish = el('button', { type: 'button', class: 'btn primary', id: 'draft-publish' }, 'Publish…');
    const warnings = draft.warnings.length ? el('ul', { class: 'warnings' }, ...draft.warnings.map((w) => el('li', { text: w.message }))) : null;

    function refresh() {
      entry.meta = { name: nameInput.value.trim(), title: '', description: descInput.value.trim() };
      const { definition, problems } = compile(draft, entry.meta);
      entry.definition = definition;
      entry.problems = problems;
      problemsBox.replaceChildren(...problems.map((p) => el('li', { text: p })));
      problemsBox.hidden = !problems.length;
      publish.disabled = problems.length > 0;
    }
    nameInput.addEventListener('input', refresh);
    descInput.addEventListener('input', refresh);
    publish.addEventListener('click', () => {
      refresh();
      if (entry.problems.length) return;
      approvals.request(entry);
    });
    refresh();
    panel.replaceChildren(
      header('Make a tool', () => close(panel)),
      el('p', { class: 'hint', text: 'Ticked values become parameters that whoever runs the tool fills in. Unticked values stay as you recorded them.' }),
      el('label', {}, 'Name', nameInput),
      el('label', {}, 'What it does and when to use it', descInput),
      el('h3', { text: 'Parameters' }),
      el('table', { class: 'params' },
        el('thead', {}, el('tr', {}, el('th', { text: 'Parameter' }), el('th', { text: 'Name' }), el('th', { text: 'Recorded' }), el('th', { text: 'Description' }), el('th', { text: 'Default to recorded' }))),
        el('tbody', {}, ...rows)),
      ...(warnings ? [warnings] : []),
      problemsBox,
      el('div', { class: 'card-row' }, publish),
    );
  }

  // ---- approval overlay -----------------------------------------------------------------
  function renderApproval() {
    const pending = approvals.list();
    if (!pending.length) {
      overlay.hidden = true;
      $('approval-card').replaceChildren(); // no stale Approve button left behind
      return;
    }
    const record = pending[0];
    const { definition, draft } = record.draft;
    const tool = publicTool(definition);
    const card = $('approval-card');
    const params = Object.entries(tool.inputSchema.properties).map(([name, schema]) => el('tr', {},
      el('td', {}, el('code', { text: name })), el('td', { text: schema.enum ? schema.enum.join(' | ') : [].concat(schema.type ?? []).map((t) => (t === 'null' ? 'empty' : t)).join(' or ') }),
      el('td', { text: tool.inputSchema.required.includes(name) ? 'required' : 'optional' }), el('td', { text: schema.description ?? '' })));
    const children = [
      el('h2', { id: 'approval-title', text: `Publish the tool ${tool.name}?` }),
      el('p', { class: 'summary', text: plainSummary(definition) }),
      el('p', { class: 'hint', text: record.draft.by === 'agent' ? 'An agent proposed this name and description. What it does comes from your recording.' : 'You made this from your recording.' }),
      el('h3', { text: 'What agents will see' }),
      el('p', {}, el('strong', { text: tool.name }), ` — ${tool.description}`),
      el('table', { class: 'params' }, el('tbody', {}, ...params)),
      el('p', { class: 'stat', text: `Read only: ${tool.annotations.readOnlyHint ? 'yes' : 'no, it changes tickets'} · Returns customer text: ${tool.annotations.untrustedContentHint ? 'yes' : 'no'}` }),
      el('h3', { text: 'Dry run with the recorded values' }),
      el('ol', { class: 'steps' }, ...dryRun(definition, draft).map((line) => el('li', { text: line.replace(/^\d+\. /, '') }))),
    ];
    if (shellDecides()) {
      children.push(el('p', { class: 'waiting', text: 'Waiting for your approval in the Understudy dialog.' }));
    } else {
      const approve = el('button', { type: 'button', class: 'btn primary', id: 'approve-button' }, 'Approve and publish');
      const reject = el('button', { type: 'button', class: 'btn', id: 'reject-button' }, 'Reject');
      approve.addEventListener('click', () => approvals.approve(record.draft.id, record.draft.by));
      reject.addEventListener('click', () => approvals.reject(record.draft.id, 'rejected by the person'));
      card.addEventListener('keydown', (event) => { if (event.key === 'Escape') reject.click(); });
      children.push(el('div', { class: 'approval-actions' }, reject, approve));
      queueMicrotask(() => approve.focus());
    }
    card.replaceChildren(...children);
    overlay.hidden = false;
  }

  // ---- library --------------------------------------------------------------------------
  function renderLibrary() {
    const tools = registry.list();
    $('library-button').hidden = tools.length === 0;
    $('library-count').textContent = String(tools.length);
    if (library.hidden) return;
    const cards = tools.map((t) => {
      const rate = t.stats.invocations ? `${Math.round((100 * t.stats.successes) / t.stats.invocations)}% succeeded` : 'not run yet';
      const failure = t.stats.lastFailure ? `Last failure: ${t.stats.lastFailure.message}` : 'No failures';
      const buttons = [];
      const run = el('button', { type: 'button', class: 'btn primary' }, 'Run…');
      run.addEventListener('click', () => renderRunForm(t));
      buttons.push(run);
      const toggle = el('button', { type: 'button', class: 'btn' }, t.status === 'active' ? 'Disable' : 'Enable');
      toggle.addEventListener('click', async () => {
        try { await (t.status === 'active' ? registry.disable(t.name) : registry.enable(t.name)); } catch (err) { toast.show(err.message, { kind: 'error' }); }
      });
      buttons.push(toggle);
      if (t.status === 'needs_review') {
        const review = el('button', { type: 'button', class: 'btn primary' }, 'Review again…');
        review.addEventListener('click', () => document.dispatchEvent(new CustomEvent('understudy:consent-request', { detail: JSON.stringify({ kind: 'review', tool: t.name }) })));
        buttons.splice(0, buttons.length, review);
      }
      const failedStep = t.stats.lastFailure?.step;
      if (failedStep) {
        const repair = el('button', { type: 'button', class: 'btn', title: 'Re-do the step that failed; the rest of the tool stays as it is' }, `Repair step ${failedStep}`);
        repair.addEventListener('click', () => startRepair(registry.get(t.name), failedStep - 1));
        buttons.push(repair);
      }
      const ask = el('button', { type: 'button', class: 'btn', title: 'Agents must get your approval for each run' }, t.askEveryTime ? 'Stop asking each time…' : 'Ask me every time');
      ask.addEventListener('click', () => document.dispatchEvent(new CustomEvent('understudy:consent-request', { detail: JSON.stringify({ kind: t.askEveryTime ? 'relax' : 'ask', tool: t.name }) })));
      if (t.status === 'active') buttons.push(ask);
      const revoke = el('button', { type: 'button', class: 'btn danger' }, 'Revoke');
      revoke.addEventListener('click', () => registry.revoke(t.name));
      buttons.push(revoke);
      return el('div', { class: 'card', dataset: { tool: t.name } },
        el('div', { class: 'card-row' }, el('strong', { text: t.name }), el('span', { class: `status-tag ${t.status}`, text: t.status.replace('_', ' ') }),
          t.askEveryTime ? el('span', { class: 'status-tag disabled', text: 'asks before each run' }) : null),
        el('p', { class: 'stat', text: t.definition.description }),
        el('p', { class: 'stat', text: `${t.author === 'agent' ? 'Drafted by an agent, approved by you' : 'Made by you'} · ${new Date(t.createdAt).toLocaleDateString('en-GB')} · ${t.stats.invocations} run${t.stats.invocations === 1 ? '' : 's'} · ${rate}` }),
        el('p', { class: 'stat', text: failure }),
        t.note ? el('p', { class: 'stat', text: t.note }) : null,
        t.status === 'needs_review' ? el('p', { class: 'warnings', text: `Held back from agents: ${t.reviewReason ?? 'it changed since you approved it'}.` }) : null,
        el('div', { class: 'card-row' }, ...buttons));
    });
    library.replaceChildren(header('Your tools', () => close(library)),
      el('p', { class: 'hint', text: `${registry.activeCount()} of ${MAX_TAUGHT_TOOLS} active. Disabling a tool frees a slot; revoking removes it.` }), ...cards);
  }

  function renderRunForm(tool) {
    const fields = Object.entries(tool.definition.inputSchema.properties).map(([name, schema]) => {
      const input = schema.enum
        ? el('select', { name, 'aria-label': name }, ...schema.enum.map((v) => el('option', { value: v, text: v })))
        : el('input', { type: 'text', name, 'aria-label': name, value: schema.default ?? (name === 'ticket_id' ? state.selectedId ?? '' : '') });
      return el('label', {}, `${name} — ${schema.description ?? ''}`, input);
    });
    const go = el('button', { type: 'submit', class: 'btn primary' }, 'Run');
    const form = el('form', { class: 'card' }, ...fields, el('div', { class: 'card-row' }, go));
    form.addEventListener('submit', async (event) => {
      event.preventDefault();
      const input = {};
      for (const node of form.querySelectorAll('[name]')) if (node.value !== '') input[node.name] = node.value;
      const result = await registry.runByPerson(tool.name, input);
      toast.show(result.ok ? `${tool.name} finished: ${result.changed.length} ticket(s) changed.` : result.message, { kind: result.ok ? 'info' : 'error' });
      renderLibrary();
    });
    library.replaceChildren(header(`Run ${tool.name}`, () => renderLibrary()), form);
  }

  function openLibrary() {
    library.hidden = false;
    panel.hidden = true;
    renderLibrary();
  }
  $('library-button').addEventListener('click', openLibrary);
  $('recordings-button').addEventListener('click', showRecordings);

  // ---- repair -----------------------------------------------------------------------------
  function startRepair(tool, stepIndex) {
    repairing = { tool: tool.name, step: stepIndex };
    library.hidden = true;
    const title = CATALOGUE[tool.definition.steps[stepIndex].command]?.title ?? 'the step';
    recorder.start(`Repair of ${tool.name}`);
    document.body.classList.add('recording');
    teachButton.setAttribute('aria-pressed', 'true');
    $('teach-label').textContent = 'Stop repairing';
    toast.show(`Repairing ${tool.name}: do step ${stepIndex + 1} (${title}) again the way it should be done, then press Stop.`, { ms: 10000 });
  }

  function finishRepair(recording) {
    const { tool: name, step } = repairing;
    repairing = null;
    const entry = registry.get(name);
    if (!entry) return;
    try {
      const definition = repairDefinition(entry.definition, step, recording.steps);
      draftSeq += 1;
      const id = `repair-${draftSeq}`;
      const draft = { params: [], steps: definition.steps, warnings: [] };
      const repairDraft = { id, draft, definition, problems: [], replaces: name, by: 'person' };
      drafts.set(id, repairDraft);
      approvals.request(repairDraft);
    } catch (err) {
      if (err instanceof RepairError) toast.show(err.message, { kind: 'error' });
      else throw err;
    }
  }

  // ---- a running tool: toast, highlight, badges ----------------------------------------
  let highlighted = null;
  const runToast = $('run-toast');
  function onRunStep(toolName, step, by) {
    runToast.hidden = false;
    runToast.textContent = `${toolName} (${by}) — step ${step.index + 1}: ${step.title}`;
    if (highlighted) highlighted.classList.remove('is-highlighted');
    highlighted = step.control ? document.querySelector(`[data-control="${step.control}"]`) : null;
    if (highlighted) highlighted.classList.add('is-highlighted');
  }
  function onRunEnd(toolName, outcome, by) {
    setTimeout(() => {
      runToast.hidden = true;
      if (highlighted) highlighted.classList.remove('is-highlighted');
      highlighted = null;
    }, 1500);
    if (outcome.ok) for (const id of outcome.changed) state.badges.set(id, { by, tool: toolName });
  }

  /** Say what came of an approval, however it was decided (overlay or the shell's dialog). */
  function announceDecision(record) {
    const name = record.draft.definition.name;
    if (record.state === 'rejected') toast.show(`${name} was not published.`);
    else if (record.result?.isError) toast.show(record.result.message, { kind: 'error' });
    else {
      toast.show(`Published ${name}. Agents can use it now.`);
      close(panel);
    }
  }

  return {
    announceDecision,
    toggleTeach,
    showRecordings,
    openLibrary,
    renderApproval,
    renderLibrary,
    onRunStep,
    onRunEnd,
    get openDraftId() { return openDraftId; },
  };
}
