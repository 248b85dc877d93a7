// Search, filters and the "all matches" bulk actions. Each control dispatches a catalogue
// command; a recording of "filter for X, tag the matches" therefore needs no ticket ids.
import { $, fillSelect, LABELS, setText } from './dom.js';
import { STATUSES, PRIORITIES, UNASSIGNED, allTags } from '../queue_state.js';

const TEXT_DEBOUNCE_MS = 180;
const SELECTS = /** @type {const} */ (['status', 'priority', 'assignee', 'tag']); // the filter's lists

/**
 * @typedef {import('../app/console_core.js').ConsoleState} ConsoleState
 * @typedef {import('./detail_pane.js').Dispatch} Dispatch
 * @typedef {{ text: HTMLInputElement } & Record<typeof SELECTS[number], HTMLSelectElement>} Controls
 */

/** @param {{ state: ConsoleState, dispatch: Dispatch }} options */
export function mountFilterBar({ state, dispatch }) {
  /** @type {Controls} */
  const c = {
    text: /** @type {HTMLInputElement} */ ($('filter-text')),
    status: /** @type {HTMLSelectElement} */ ($('filter-status')),
    priority: /** @type {HTMLSelectElement} */ ($('filter-priority')),
    assignee: /** @type {HTMLSelectElement} */ ($('filter-assignee')),
    tag: /** @type {HTMLSelectElement} */ ($('filter-tag')),
  };
  wireFilters(c, dispatch);
  wireBulk(dispatch);
  return { render: () => render(state, c), renderOptions: () => renderOptions(state, c) };
}

/**
 * @param {Controls} c
 * @param {Dispatch} dispatch
 */
function wireFilters(c, dispatch) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let textTimer;
  /** @param {string} control */
  const apply = (control) => dispatch('filter_tickets', currentPayload(c), control);
  c.text.addEventListener('input', () => {
    clearTimeout(textTimer);
    textTimer = setTimeout(() => apply('filter-text'), TEXT_DEBOUNCE_MS);
  });
  c.text.addEventListener('keydown', (event) => {
    if (event.key === 'Enter') { clearTimeout(textTimer); apply('filter-text'); }
    if (event.key === 'Escape' && c.text.value) { event.stopPropagation(); c.text.value = ''; apply('filter-text'); }
  });
  for (const field of SELECTS) {
    c[field].addEventListener('change', () => apply(`filter-${field}`));
  }
  const clear = () => dispatch('filter_tickets', {}, 'filter-clear');
  $('filter-clear').addEventListener('click', clear);
  $('empty-clear').addEventListener('click', clear);
}

/** @param {Controls} c */
function currentPayload(c) {
  /** @type {Partial<import('../queue_state.js').Filter>} */
  const p = {};
  if (c.text.value.trim()) p.text = c.text.value.trim();
  for (const field of SELECTS) if (c[field].value) p[field] = c[field].value;
  return p;
}

/**
 * Bulk actions on the matching set.
 * @param {Dispatch} dispatch
 */
function wireBulk(dispatch) {
  $('bulk-tag-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = /** @type {HTMLInputElement} */ ($('bulk-tag-input'));
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
    const select = /** @type {HTMLSelectElement} */ ($(id));
    select.addEventListener('change', () => {
      if (!select.value) return;
      const value = select.value === UNASSIGNED ? null : select.value;
      dispatch(command, { [field]: value }, id);
      select.value = '';
    });
  }
}

/**
 * @param {ConsoleState} state
 * @param {Controls} c
 */
function renderOptions(state, c) {
  fillSelect(c.status, [['', 'Any'], ...STATUSES.map((s) => [s, LABELS.status[s]])], state.filter.status);
  fillSelect(c.priority, [['', 'Any'], ...PRIORITIES.map((p) => [p, LABELS.priority[p]])], state.filter.priority);
  fillSelect(c.assignee, [['', 'Anyone'], [UNASSIGNED, 'Unassigned'], ...state.assignees.map((a) => [a.id, a.name])], state.filter.assignee);
  const tags = allTags(state);
  fillSelect(c.tag, [['', 'Any'], ...tags.map((t) => [t, t])], state.filter.tag);
  const list = $('tag-suggestions');
  list.replaceChildren(...tags.map((t) => Object.assign(document.createElement('option'), { value: t })));
  fillSelect(/** @type {HTMLSelectElement} */ ($('bulk-priority')), [['', 'Set priority…'], ...PRIORITIES.map((p) => [p, LABELS.priority[p]])], '');
  fillSelect(/** @type {HTMLSelectElement} */ ($('bulk-status')), [['', 'Set status…'], ...STATUSES.map((s) => [s, LABELS.status[s]])], '');
  fillSelect(/** @type {HTMLSelectElement} */ ($('bulk-assign')), [['', 'Assign to…'], ...state.assignees.map((a) => [a.id, a.name]), [UNASSIGNED, 'Nobody (unassign)']], '');
}

/**
 * @param {ConsoleState} state
 * @param {Controls} c
 */
function render(state, c) {
  // Reflect the filter held in state (it may have been set by a command, not by typing).
  if (document.activeElement !== c.text) c.text.value = state.filter.text;
  for (const field of SELECTS) if (c[field].value !== state.filter[field]) c[field].value = state.filter[field];
  const total = state.tickets.length;
  const matched = state.matches.length;
  const filtered = Object.values(state.filter).some(Boolean);
  setText($('match-count'), filtered ? `${matched.toLocaleString('en')} of ${total.toLocaleString('en')} match` : `${total.toLocaleString('en')} tickets`);
  $('filter-clear').hidden = !filtered;
  // Bulk changes only make sense on a narrowed set: they appear once a filter is on.
  const bulk = /** @type {HTMLElement} */ (document.querySelector('.bulk'));
  bulk.hidden = !filtered || matched === 0;
  setText($('bulk-label'), `Change all ${matched.toLocaleString('en')} ${matched === 1 ? 'match' : 'matches'}:`);
}
