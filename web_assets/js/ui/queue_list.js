// The ticket list, virtualised: only the rows in view exist in the DOM, so a queue of 100,000
// tickets scrolls like one of 40. It is one ARIA grid (a table of tickets, not a box to pick a
// value from), whose rows can be selected several at a time for a run on all of them; the open
// ticket is its active descendant (aria-current), and j/k or the arrow keys move through the
// filtered set. Ctrl+click, Shift+click, x (or Space) and Shift+arrows select; Esc clears the
// selection. Each row is focusable (tabindex -1, never in the Tab order) so accessibility-tree
// readers that keep only focusable descendants of a control (puppeteer's default snapshot,
// hence chrome-devtools-mcp) list the rows; a row that gets focus (a click) hands it straight
// back to the list, which keeps it.
import { $, el, shortDate, requesterName, initials, LABELS } from './dom.js';
import { assigneeName } from '../queue_state.js';
import { stringify } from '../safe_json.js';
import RULES from '../../data/rules.json' with { type: 'json' };

export const ROW_HEIGHT = 58;
// How many tickets one run on a selection may take (the shell refuses more).
const SELECTION_MAX = RULES.limits.selectionTickets;
const OVERSCAN = 6;

/**
 * @typedef {import('../app/console_core.js').ConsoleState} ConsoleState
 * @typedef {import('../queue_state.js').Ticket} Ticket
 * @typedef {ReturnType<typeof mountQueueList>} QueueList
 */
/**
 * @typedef {object} ListState
 * @property {ConsoleState} state
 * @property {(ticketId: string) => void} onSelect
 * @property {() => void} onMarks the selection (state.marked) changed
 * @property {HTMLElement} list
 * @property {HTMLElement} spacer
 * @property {HTMLElement} empty
 * @property {Map<string, HTMLElement>} rows ticket id -> its row, for the rows in view
 * @property {number} frame the animation frame a render waits for, or 0
 */

// Rows are re-rendered on every change, so focus must not stay on one: it would drop to the body
// when the row is replaced, and the list and the page shortcuts would both see j/k.
/** @param {HTMLElement} list */
function keepFocusOnList(list) {
  list.addEventListener('focusin', (event) => {
    if (event.target !== list && /** @type {Element} */ (event.target).closest('.row')) list.focus({ preventScroll: true });
  });
}

/** @param {{ state: ConsoleState, onSelect: (ticketId: string) => void, onMarks?: () => void }} options */
export function mountQueueList({ state, onSelect, onMarks = () => {} }) {
  /** @type {ListState} */
  const q = { state, onSelect, onMarks, list: $('queue-list'), spacer: $('queue-spacer'), empty: $('queue-empty'), rows: new Map(), frame: 0 };
  const render = () => renderRows(q);
  const refresh = () => { if (!q.frame) q.frame = requestAnimationFrame(render); };
  /** @param {number} delta */
  const move = (delta) => moveBy(q, delta);
  q.list.addEventListener('scroll', refresh, { passive: true });
  keepFocusOnList(q.list);
  q.list.addEventListener('click', (event) => {
    const row = /** @type {HTMLElement | null} */ (/** @type {Element} */ (event.target).closest('.row'));
    if (!row) return;
    const id = /** @type {string} */ (row.dataset.ticketId);
    if (event.ctrlKey || event.metaKey) toggleMark(q, id);
    else if (event.shiftKey) markRange(q, id);
    else onSelect(id);
  });
  q.list.addEventListener('keydown', (event) => onKey(q, event, move));
  new ResizeObserver(refresh).observe(q.list);
  return {
    refresh,
    renderNow: render,
    scrollToSelected: () => scrollToSelected(q),
    move,
    /** The selected tickets still in the queue, in list order. */
    marked: () => markedInOrder(state),
    clearMarks: () => setMarks(q, []),
    /** x: the open ticket in or out of the selection. */
    markOpen: () => { if (state.selectedId) toggleMark(q, state.selectedId); },
  };
}

/** @param {ConsoleState} state */
function markedInOrder(state) {
  return [...state.marked].filter((id) => state.byId.has(id));
}

/**
 * @param {ListState} q
 * @param {Iterable<string>} ids
 */
function setMarks(q, ids) {
  q.state.marked = new Set([...ids].slice(0, SELECTION_MAX));
  q.onMarks();
  renderRows(q);
}

/**
 * @param {ListState} q
 * @param {string} id
 */
function toggleMark(q, id) {
  const next = new Set(q.state.marked);
  if (next.has(id)) next.delete(id);
  else next.add(id);
  setMarks(q, next);
}

/**
 * Shift+click: every ticket from the open one to this one, added to the selection.
 * @param {ListState} q
 * @param {string} id
 */
function markRange(q, id) {
  const { matches, selectedId } = q.state;
  const to = matches.indexOf(id);
  const from = selectedId === null ? to : Math.max(0, matches.indexOf(selectedId));
  const [lo, hi] = from <= to ? [from, to] : [to, from];
  setMarks(q, [...q.state.marked, ...matches.slice(lo, hi + 1)]);
}

/**
 * @param {ConsoleState} state
 * @param {string} id
 */
function badgeFor(state, id) {
  const badge = state.badges?.get(id);
  if (!badge) return null;
  const who = badge.by === 'agent' ? 'agent' : 'you';
  // The tool as people know it (its title in words), never its identifier.
  const text = `by ${who} via ${badge.tool}`;
  const title = `Changed by ${who === 'agent' ? 'an agent' : 'you'} with the tool “${badge.tool}”`;
  return el('span', { class: `badge ${badge.by}`, title, text });
}

/**
 * A mark on a ticket whose changes are not in the helpdesk yet (the words are the shell's).
 * @param {ConsoleState} state
 * @param {string} id
 */
function syncMark(state, id) {
  const standing = state.helpdesk?.tickets?.get(id);
  if (!standing) return null;
  return el('span', { class: `sync-mark sync-${standing.state}`, title: standing.words, 'aria-label': standing.words });
}

/** @type {WeakMap<HTMLElement, string>} */
const LOOKS = new WeakMap(); // row element -> rowLook() it was drawn from

/**
 * Everything a row shows, as one string: equal strings draw equal rows.
 * @param {ConsoleState} state
 * @param {Ticket} t
 * @param {number} index
 */
function rowLook(state, t, index) {
  const badge = state.badges?.get(t.id);
  return stringify([index, t.id === state.selectedId, state.marked.has(t.id), t.priority, t.status, t.subject, t.requester, t.assignee,
    assigneeName(state, t.assignee), t.tags.slice(0, 3), t.created, badge ? [badge.by, badge.tool] : null, state.matches.length,
    state.helpdesk?.tickets?.get(t.id)?.words ?? null]);
}

/**
 * @param {ConsoleState} state
 * @param {Ticket} t
 * @param {number} index
 */
function rowFor(state, t, index) {
  const open = t.id === state.selectedId;
  const marked = state.marked.has(t.id);
  const who = assigneeName(state, t.assignee);
  const row = el('div', {
    class: `row prio-${t.priority}${open ? ' selected' : ''}${marked ? ' marked' : ''}${t.status === 'new' ? ' unread' : ''}`,
    role: 'row',
    id: `row-${t.id}`,
    tabindex: '-1',
    'aria-selected': marked ? 'true' : 'false',
    'aria-current': open ? 'true' : null,
    'aria-rowindex': index + 1,
    'aria-label': `${t.id}: ${t.subject}. ${LABELS.status[t.status]}, ${LABELS.priority[t.priority]} priority, ${who}`,
    dataset: { ticketId: t.id },
  },
  el('span', { class: `prio prio-${t.priority}`, role: 'gridcell', title: `${LABELS.priority[t.priority]} priority` }, el('i'), LABELS.priority[t.priority]),
  el('span', { class: 'main', role: 'gridcell' },
    el('span', { class: 'line1' }, el('span', { class: 'tid', text: t.id }), syncMark(state, t.id), el('span', { class: 'subject', text: t.subject })),
    el('span', { class: 'line2' }, el('span', { class: 'requester', text: requesterName(t.requester) }),
      ...t.tags.slice(0, 3).map((tag) => el('span', { class: 'tag', text: tag })),
      badgeFor(state, t.id))),
  el('span', { class: `status-pill status-${t.status}`, role: 'gridcell', text: LABELS.status[t.status] }),
  el('span', { class: `who${t.assignee ? '' : ' nobody'}`, role: 'gridcell', title: who },
    el('span', { class: 'avatar', text: t.assignee ? initials(who) : '–' }), el('span', { class: 'who-name', text: t.assignee ? who.split(' ')[0] : 'Unassigned' })),
  el('time', { class: 'created', role: 'gridcell', datetime: t.created, text: shortDate(t.created) }));
  row.style.transform = `translateY(${index * ROW_HEIGHT}px)`;
  return row;
}

/** @param {ListState} q */
function renderRows(q) {
  const { state, list, rows } = q;
  q.frame = 0;
  const total = state.matches.length;
  q.spacer.style.height = `${total * ROW_HEIGHT}px`;
  list.setAttribute('aria-rowcount', String(total));
  q.empty.hidden = total > 0;
  // An empty queue is not a filter that matches nothing: it says so, with nothing to clear.
  const none = state.tickets.length === 0;
  $('queue-empty-text').textContent = none ? 'This queue has no tickets. Open a queue from the File menu.' : 'No ticket matches these filters.';
  $('empty-clear').hidden = none;
  const top = list.scrollTop;
  const height = list.clientHeight || 600;
  const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(total, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
  // A row whose ticket, place and look are unchanged is kept as it is: redrawing only what
  // changed keeps a run's frame small (the list is most of the window). Rows stay in the DOM
  // in list order, which is the order accessibility readers and snapshots present.
  const visible = /** @type {Array<[Ticket, number]>} */ ([]);
  for (let i = first; i < last; i += 1) {
    const t = state.byId.get(state.matches[i]);
    if (t) visible.push([t, i]);
  }
  const wanted = new Set(visible.map(([t]) => t.id));
  for (const [id, node] of rows) if (!wanted.has(id)) { node.remove(); rows.delete(id); }
  let prev = /** @type {Element | null} */ (null);
  for (const [t, i] of visible) {
    const look = rowLook(state, t, i);
    const old = rows.get(t.id);
    let node = old;
    if (!node || LOOKS.get(node) !== look) {
      node = rowFor(state, t, i);
      LOOKS.set(node, look);
      if (old) old.replaceWith(node);
      rows.set(t.id, node);
    }
    const next = prev ? prev.nextElementSibling : list.querySelector('.row');
    if (next !== node) {
      if (prev) prev.after(node);
      else if (next) next.before(node);
      else list.append(node);
    }
    prev = node;
  }
  if (state.selectedId && rows.has(state.selectedId)) list.setAttribute('aria-activedescendant', `row-${state.selectedId}`);
  else list.removeAttribute('aria-activedescendant');
}

/** @param {ListState} q */
function scrollToSelected({ state, list }) {
  const index = state.selectedId === null ? -1 : state.matches.indexOf(state.selectedId);
  if (index < 0) return;
  const top = index * ROW_HEIGHT;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + ROW_HEIGHT > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW_HEIGHT - list.clientHeight;
}

/**
 * @param {ListState} q
 * @param {number} delta
 */
function moveBy({ state, onSelect }, delta) {
  if (!state.matches.length) return;
  const index = state.selectedId === null ? -1 : state.matches.indexOf(state.selectedId);
  const next = Math.min(state.matches.length - 1, Math.max(0, index < 0 ? 0 : index + delta));
  onSelect(state.matches[next]);
}

/** @type {Record<string, number>} */
const MOVE_KEYS = { ArrowDown: 1, j: 1, ArrowUp: -1, k: -1, PageDown: 10, PageUp: -10 };

/**
 * @param {ListState} q
 * @param {KeyboardEvent} event
 * @param {(delta: number) => void} move
 */
function onKey(q, event, move) {
  const { state, onSelect } = q;
  const plain = !event.ctrlKey && !event.metaKey && !event.altKey;
  if (plain && event.shiftKey && (event.key === 'ArrowDown' || event.key === 'ArrowUp' || event.key === 'J' || event.key === 'K')) {
    // Shift+arrow: select the open ticket and the next one, as in a mail program.
    event.preventDefault();
    const from = state.selectedId;
    move(event.key === 'ArrowDown' || event.key === 'J' ? 1 : -1);
    setMarks(q, [...state.marked, ...(from ? [from] : []), ...(state.selectedId ? [state.selectedId] : [])]);
  } else if (event.key in MOVE_KEYS && plain) {
    event.preventDefault();
    move(MOVE_KEYS[event.key]);
  } else if (plain && (event.key === 'x' || event.key === ' ') && state.selectedId) {
    event.preventDefault();
    toggleMark(q, state.selectedId);
  } else if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'a') {
    event.preventDefault();
    setMarks(q, state.matches.slice(0, SELECTION_MAX));
  } else if (event.key === 'Escape' && state.marked.size) {
    event.preventDefault();
    event.stopPropagation();
    setMarks(q, []);
  } else if (event.key === 'Home' || event.key === 'End') {
    event.preventDefault();
    if (state.matches.length) onSelect(state.matches[event.key === 'Home' ? 0 : state.matches.length - 1]);
  } else if (event.key === 'Enter' && state.selectedId) {
    event.preventDefault();
    $('assignee-select').focus();
  }
}
