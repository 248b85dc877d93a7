// The "Make a tool" editor: the draft the app proposes from a recording, with its name and
// description, which recorded values the tool asks for, and anything to fix before publishing.
import { el } from './dom.js';
import { describeStep, generalize, GeneralizeError } from '../teach/generalize.js';
import { compile, BUDGET, PARAM_NAME } from '../teach/compile.js';
import { drawerHeader } from './drawer.js';

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

export function createDraftEditor({ panel, library, drafts, toast, onPublish }) {
  let draftSeq = 0; // draft ids must be unique even when two are opened in the same millisecond
  let openDraftId = null;

  function start(recording) {
    try {
      open(recording, generalize(recording));
    } catch (err) {
      if (err instanceof GeneralizeError) toast.show(err.message, { kind: 'error' });
      else throw err;
    }
  }

  function open(recording, draft) {
    const meta = suggestMeta(recording);
    draftSeq += 1;
    const id = `draft-p${draftSeq}`;
    const entry = { id, draft, meta, recordingId: recording.id, by: 'person' };
    drafts.set(id, entry);
    openDraftId = id;
    render(entry);
  }

  function paramRow(p, draft, refresh) {
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
      if (!PARAM_NAME.test(next) || draft.params.some((o) => o !== p && o.name === next)) {
        toast.show('A name uses lower-case letters, digits and _, and differs from the others.', { kind: 'error' });
        rename.value = p.name;
        return;
      }
      for (const step of draft.steps) for (const a of Object.values(step.args)) if (a.from === 'param' && a.name === p.name) a.name = next;
      p.name = next;
      refresh();
    });
    return el('tr', {}, el('td', {}, bind), el('td', {}, rename), el('td', { text: JSON.stringify(p.recorded) }), el('td', {}, desc), el('td', {}, fallback));
  }

  function render(entry) {
    panel.hidden = false;
    library.hidden = true;
    const { draft, meta } = entry;
    const nameInput = el('input', { type: 'text', value: meta.name, id: 'draft-name', 'aria-label': 'Tool name' });
    const descInput = el('textarea', { id: 'draft-description', rows: 3, 'aria-label': 'Tool description' });
    descInput.value = meta.description;
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
    const rows = draft.params.map((p) => paramRow(p, draft, refresh));
    nameInput.addEventListener('input', refresh);
    descInput.addEventListener('input', refresh);
    publish.addEventListener('click', () => {
      refresh();
      if (!entry.problems.length) onPublish(entry);
    });
    refresh();
    panel.replaceChildren(
      drawerHeader('Make a tool', () => { panel.hidden = true; }),
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

  return { start, open, get openDraftId() { return openDraftId; } };
}
