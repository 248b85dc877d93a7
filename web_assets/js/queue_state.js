// The queue a person is triaging: tickets, the people they can go to, canned replies, and the
// view (filter, open ticket). Only catalogue command handlers change it; everything else reads.

export const STATUSES = ['new', 'open', 'pending', 'solved', 'closed'];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
export const EMPTY_FILTER = Object.freeze({ text: '', status: '', priority: '', assignee: '', tag: '' });
export const UNASSIGNED = '__unassigned__';

export function createQueueState(doc) {
  const state = {
    tickets: [],
    byId: new Map(),
    assignees: [],
    templates: [],
    filter: { ...EMPTY_FILTER },
    matches: [],
    selectedId: null,
    queueName: doc.name || 'Demo queue',
  };
  replaceQueue(state, doc);
  return state;
}

/**
 * How many tickets have each status, kept as statuses change (the header shows them after
 * every change; counting 100,000 tickets each time would cost a frame).
 */
export function statusCounts(state) {
  if (!state.counts) {
    state.counts = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const t of state.tickets) state.counts[t.status] = (state.counts[t.status] ?? 0) + 1;
  }
  return state.counts;
}

/** A ticket's `field` went from `before` to `after`: keep the counts right. */
export function noteChange(state, field, before, after) {
  if (field === 'status' && state.counts && before !== after) {
    state.counts[before] -= 1;
    state.counts[after] = (state.counts[after] ?? 0) + 1;
  } else if (field === 'tags' && state.tagCounts) {
    for (const tag of before) state.tagCounts.set(tag, state.tagCounts.get(tag) - 1);
    for (const tag of after) state.tagCounts.set(tag, (state.tagCounts.get(tag) ?? 0) + 1);
  }
}

/** Swap in a whole queue (File › Open queue…); the view starts over. */
export function replaceQueue(state, doc) {
  state.counts = null;
  state.tagCounts = null;
  state.tickets = doc.tickets.map(normaliseTicket);
  state.byId = new Map(state.tickets.map((t) => [t.id, t]));
  state.assignees = doc.assignees ?? [];
  if (doc.templates && doc.templates.length) state.templates = doc.templates;
  state.filter = { ...EMPTY_FILTER, ...(doc.view?.filter ?? {}) };
  state.selectedId = doc.view?.selectedId && state.byId.has(doc.view.selectedId) ? doc.view.selectedId : null;
  if (doc.name) state.queueName = doc.name;
  recomputeMatches(state);
}

/**
 * Code point order, the order tags are kept in: what the desktop shell's database sorts by
 * (and Python's sorted), where Array.prototype.sort would use UTF-16 units.
 */
export function byCodePoint(a, b) {
  if (a === b) return 0;
  for (let i = 0, j = 0; ; ) {
    const x = a.codePointAt(i);
    const y = b.codePointAt(j);
    if (x === undefined) return y === undefined ? 0 : -1;
    if (y === undefined) return 1;
    if (x !== y) return x < y ? -1 : 1;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
}

function normaliseTicket(t) {
  return {
    id: String(t.id),
    subject: t.subject ?? '',
    body: t.body ?? '',
    requester: t.requester ?? '',
    created: t.created ?? '',
    status: t.status ?? 'new',
    priority: t.priority ?? 'normal',
    assignee: t.assignee ?? null,
    tags: Array.isArray(t.tags) ? [...t.tags].sort(byCodePoint) : [],
    reply_draft: t.reply_draft ?? '',
  };
}

/** Lower-cased searchable text, cached on the ticket object; dropped when the subject/body change. */
function haystack(t) {
  if (t._hay === undefined) {
    Object.defineProperty(t, '_hay', {
      value: `${t.id}\n${t.subject}\n${t.body}\n${t.requester}`.toLowerCase(),
      writable: true, enumerable: false, configurable: true,
    });
  }
  return t._hay;
}

export function ticketMatches(t, f, needle = (f.text || '').trim().toLowerCase()) {
  if (f.status && t.status !== f.status) return false;
  if (f.priority && t.priority !== f.priority) return false;
  if (f.assignee) {
    if (f.assignee === UNASSIGNED ? t.assignee !== null : t.assignee !== f.assignee) return false;
  }
  if (f.tag && !t.tags.includes(f.tag)) return false;
  if (needle && !haystack(t).includes(needle)) return false;
  return true;
}

/** The ids of the tickets `filter` matches, in queue order. */
export function matchIds(state, filter) {
  const needle = (filter.text || '').trim().toLowerCase();
  const out = [];
  for (const t of state.tickets) if (ticketMatches(t, filter, needle)) out.push(t.id);
  return out;
}

/** The person's list: what their filter matches now. */
export function recomputeMatches(state) {
  state.matches = matchIds(state, state.filter);
  return state.matches;
}

const WHOLE_PASS_AFTER = 1000; // changed tickets beyond which one pass over all is cheaper

/**
 * After the tickets `ids` changed: the person's list, worked out again over the whole queue
 * only if one of them joined or left it (an edit to one ticket of 100,000 costs one check).
 */
export function refreshMatches(state, ids) {
  const count = ids.size ?? ids.length;
  if (count > WHOLE_PASS_AFTER) return recomputeMatches(state);
  if (state.matchSetOf !== state.matches) {
    state.matchSet = new Set(state.matches);
    state.matchSetOf = state.matches;
  }
  const needle = (state.filter.text || '').trim().toLowerCase();
  for (const id of ids) {
    const t = state.byId.get(id);
    if (t && ticketMatches(t, state.filter, needle) !== state.matchSet.has(id)) return recomputeMatches(state);
  }
  return state.matches;
}

/**
 * A run's own view: its filter, its matching set and its open ticket. A taught tool's view
 * commands act on this, never on the person's (their filter, open ticket and list stay).
 * The matching set is worked out when a step first needs it.
 */
export function createRunView() {
  return { filter: { ...EMPTY_FILTER }, matches: null, selectedId: null };
}

/** Every tag some ticket has, for the pickers (counted once, then kept as tags change). */
export function allTags(state) {
  if (!state.tagCounts) {
    state.tagCounts = new Map();
    for (const t of state.tickets) for (const tag of t.tags) state.tagCounts.set(tag, (state.tagCounts.get(tag) ?? 0) + 1);
  }
  return [...state.tagCounts].filter(([, n]) => n > 0).map(([tag]) => tag).sort();
}

export function assigneeName(state, id) {
  if (id === null || id === undefined) return 'Unassigned';
  return state.assignees.find((a) => a.id === id)?.name ?? id;
}

/** The queue as a document for saving (File › Save queue as…) or IndexedDB. */
export function queueDocument(state) {
  return {
    format: 'understudy-queue',
    version: 1,
    name: state.queueName,
    tickets: state.tickets.map(({ _hay, ...t }) => t),
    assignees: state.assignees,
    templates: state.templates,
    view: { filter: { ...state.filter }, selectedId: state.selectedId },
  };
}
