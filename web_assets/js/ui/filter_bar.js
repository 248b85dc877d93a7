// Search, filters and the "all matches" bulk actions. Each control dispatches a catalogue
// command; a recording of "filter for X, tag the matches" therefore needs no ticket ids.
import { $, fillSelect, LABELS } from './dom.js';
import { STATUSES, PRIORITIES, UNASSIGNED, allTags } from '../queue_state.js';

const TEXT_DEBOUNCE_MS = 180;

export function mountFilterBar({ state, dispatch }) {
  const text = $('filter-text');
  const status = $('filter-status');
  const priority = $('filter-priority');
  const assignee = $('filter-assignee');
  const tag = $('filter-tag');
  let textTimer = null;

  function currentPayload() {
    const p = {};
    if (text.value.trim()) p.text = text.value.trim();
    if (status.value) p.status = status.value;
    if (priority.value) p.priority = priority.value;
    if (assignee.value) p.assignee = assignee.value;
    if (tag.value) p.tag = tag.value;
    return p;
  }

  const apply = (control) => dispatch('filter_tickets', currentPayload(), control);

  text.addEventListener('input', () => {
    clearTimeout(textTimer);
    textTimer = setTimeout(() => apply('filter-text'), TEXT_DEBOUNCE_MS);
  });
  text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') { clearTimeout(textTimer); apply('filter-text'); }
    if (event.key === 'Escape' && text.value) { event.stopPropagation(); text.value = ''; apply('filter-text'); }
  });
  for (const [select, control] of [[status, 'filter-status'], [priority, 'filter-priority'], [assignee, 'filter-assignee'], [tag, 'filter-tag']]) {
    select.addEventListener('change', () => apply(control));
  }
  const clear = () => dispatch('filter_tickets', {}, 'filter-clear');
  $('filter-clear').addEventListener('click', clear);
  $('empty-clear').addEventListener('click', clear);

  // ---- bulk actions on the matching set ------------------------------------------------
  $('bulk-tag-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = $('bulk-tag-input');
    const value = input.value.trim().toLowerCase();
    if (!value) return;
    if (dispatch('tag_matching_tickets', { tag: value }, 'bulk-tag')) input.value = '';
  });
  const bulk = [
    ['bulk-priority', 'set_matching_priority', 'priority'],
    ['bulk-status', 'set_matching_status', 'status'],
    ['bulk-assign', 'assign_matching_tickets', 'assignee'],
  ];
  for (const [id, command, field] of bulk) {
    const select = $(id);
    select.addEventListener('change', () => {
      if (!select.value) return;
      const value = select.value === UNASSIGNED ? null : select.value;
      dispatch(command, { [field]: value }, id);
      select.value = '';
    });
  }

  function renderOptions() {
    fillSelect(status, [['', 'Any'], ...STATUSES.map((s) => [s, LABELS.status[s]])], state.filter.status);
    fillSelect(priority, [['', 'Any'], ...PRIORITIES.map((p) => [p, LABELS.priority[p]])], state.filter.priority);
    fillSelect(assignee, [['', 'Anyone'], [UNASSIGNED, 'Unassigned'], ...state.assignees.map((a) => [a.id, a.name])], state.filter.assignee);
    const tags = allTags(state);
    fillSelect(tag, [['', 'Any'], ...tags.map((t) => [t, t])], state.filter.tag);
    const list = $('tag-suggestions');
    list.replaceChildren(...tags.map((t) => Object.assign(document.createElement('option'), { value: t })));
    fillSelect($('bulk-priority'), [['', 'Set priority…'], ...PRIORITIES.map((p) => [p, LABELS.priority[p]])], '');
    fillSelect($('bulk-status'), [['', 'Set status…'], ...STATUSES.map((s) => [s, LABELS.status[s]])], '');
    fillSelect($('bulk-assign'), [['', 'Assign to…'], ...state.assignees.map((a) => [a.id, a.name]), [UNASSIGNED, 'Nobody (unassign)']], '');
  }

  function render() {
    // Reflect the filter held in state (it may have been set by a command, not by typing).
    if (document.activeElement !== text) text.value = state.filter.text;
    status.value = state.filter.status;
    priority.value = state.filter.priority;
    assignee.value = state.filter.assignee;
    tag.value = state.filter.tag;
    const total = state.tickets.length;
    const matched = state.matches.length;
    const filtered = Object.values(state.filter).some(Boolean);
    $('match-count').textContent = filtered ? `${matched.toLocaleString('en')} of ${total.toLocaleString('en')} match` : `${total.toLocaleString('en')} tickets`;
    $('filter-clear').hidden = !filtered;
    // Bulk changes only make sense on a narrowed set: they appear once a filter is on.
    const bulk = /** @type {HTMLElement} */ (document.querySelector('.bulk'));
    bulk.hidden = !filtered || matched === 0;
    $('bulk-label').textContent = `Change all ${matched.toLocaleString('en')} ${matched === 1 ? 'match' : 'matches'}:`;
  }

  return { render, renderOptions };
}
