// The queue a person is triaging: tickets, the people they can go to, canned replies, and the
// view (filter, open ticket). Only catalogue command handlers change it; everything else reads.

/**
 * A ticket field's value: text, the tags, or nobody (an unassigned ticket's assignee). The
 * change feed writes fields by name (Protocol.FeedEntry), hence the index signature.
 * @typedef {string | string[] | null} FieldValue
 */
/**
 * @typedef {object} TicketFields
 * @property {string} id
 * @property {string} subject
 * @property {string} body
 * @property {string} requester
 * @property {string} created ISO 8601
 * @property {string} status
 * @property {string} priority
 * @property {string | null} assignee
 * @property {string[]} tags kept in code point order (byCodePoint)
 * @property {string} reply_draft
 * @property {string} [_hay] the lower-cased searchable text, cached (not enumerable)
 * @typedef {TicketFields & { [field: string]: FieldValue | undefined }} Ticket
 */
/**
 * @typedef {{ id: string, name: string, role?: string, email?: string }} Assignee
 * @typedef {{ id: string, name: string, body: string }} Template
 * @typedef {{ text: string, status: string, priority: string, assignee: string, tag: string }} Filter
 */
/**
 * A queue as a document: a file, the shell's handoff, or IndexedDB's copy. Its tickets may
 * lack fields (normaliseTicket fills them in).
 * @typedef {object} QueueDoc
 * @property {string} [format]
 * @property {number} [version]
 * @property {string} [name]
 * @property {Array<Partial<TicketFields> & { id: string | number }>} tickets
 * @property {Assignee[]} [assignees]
 * @property {Template[]} [templates]
 * @property {{ filter?: Partial<Filter>, selectedId?: string | null }} [view]
 */
/**
 * Whose view a command's view parts act on: the person's (the state itself) or a run's own.
 * @typedef {{ filter: Filter, matches: string[] | null, selectedId: string | null }} View
 */
/**
 * @typedef {object} QueueState
 * @property {Ticket[]} tickets
 * @property {Map<string, Ticket>} byId
 * @property {Assignee[]} assignees
 * @property {Template[]} templates
 * @property {Filter} filter
 * @property {string[]} matches the person's list: the ids their filter matches, in queue order
 * @property {string | null} selectedId
 * @property {string} queueName
 * @property {Record<string, number> | null} [counts] tickets per status (statusCounts)
 * @property {Map<string, number> | null} [tagCounts] tickets per tag (allTags)
 * @property {Set<string>} [matchSet] `matches` as a set, for refreshMatches
 * @property {string[]} [matchSetOf] the `matches` that set was made from
 */

export const STATUSES = ['new', 'open', 'pending', 'solved', 'closed'];
export const PRIORITIES = ['low', 'normal', 'high', 'urgent'];
export const EMPTY_FILTER = Object.freeze({ text: '', status: '', priority: '', assignee: '', tag: '' });
export const UNASSIGNED = '__unassigned__';

/**
 * @param {QueueDoc} doc
 * @returns {QueueState}
 */
export function createQueueState(doc) {
  /** @type {QueueState} */
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
/**
 * @param {QueueState} state
 * @returns {Record<string, number>}
 */
export function statusCounts(state) {
  if (!state.counts) {
    /** @type {Record<string, number>} */
    const counts = Object.fromEntries(STATUSES.map((s) => [s, 0]));
    for (const t of state.tickets) counts[t.status] = (counts[t.status] ?? 0) + 1;
    state.counts = counts;
  }
  return state.counts;
}

/**
 * A ticket's `field` went from `before` to `after`: keep the counts right.
 * @param {QueueState} state
 * @param {string} field
 * @param {FieldValue | undefined} before
 * @param {FieldValue | undefined} after
 */
export function noteChange(state, field, before, after) {
  if (field === 'status' && state.counts && before !== after) {
    state.counts[String(before)] -= 1;
    state.counts[String(after)] = (state.counts[String(after)] ?? 0) + 1;
  } else if (field === 'tags' && state.tagCounts) {
    const counts = state.tagCounts;
    for (const tag of /** @type {string[]} */ (before)) counts.set(tag, (counts.get(tag) ?? 0) - 1);
    for (const tag of /** @type {string[]} */ (after)) counts.set(tag, (counts.get(tag) ?? 0) + 1);
  }
}

/**
 * Swap in a whole queue (File › Open queue…); the view starts over.
 * @param {QueueState} state
 * @param {QueueDoc} doc
 */
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
/**
 * @param {string} a
 * @param {string} b
 * @returns {number}
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

/**
 * @param {QueueDoc['tickets'][number]} t
 * @returns {Ticket}
 */
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

/**
 * Lower-cased searchable text, cached on the ticket object; dropped when the subject/body change.
 * @param {Ticket} t
 * @returns {string}
 */
function haystack(t) {
  if (t._hay === undefined) {
    Object.defineProperty(t, '_hay', {
      value: `${t.id}\n${t.subject}\n${t.body}\n${t.requester}`.toLowerCase(),
      writable: true, enumerable: false, configurable: true,
    });
  }
  return /** @type {string} */ (t._hay);
}

/**
 * @param {Ticket} t
 * @param {Filter} f
 * @param {string} [needle] the filter's text, lower-cased (worked out once for many tickets)
 */
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

/**
 * The ids of the tickets `filter` matches, in queue order.
 * @param {QueueState} state
 * @param {Filter} filter
 * @returns {string[]}
 */
export function matchIds(state, filter) {
  const needle = (filter.text || '').trim().toLowerCase();
  /** @type {string[]} */
  const out = [];
  for (const t of state.tickets) if (ticketMatches(t, filter, needle)) out.push(t.id);
  return out;
}

/**
 * The person's list: what their filter matches now.
 * @param {QueueState} state
 */
export function recomputeMatches(state) {
  state.matches = matchIds(state, state.filter);
  return state.matches;
}

const WHOLE_PASS_AFTER = 1000; // changed tickets beyond which one pass over all is cheaper

/**
 * After the tickets `ids` changed: the person's list, worked out again over the whole queue
 * only if one of them joined or left it (an edit to one ticket of 100,000 costs one check).
 * @param {QueueState} state
 * @param {Set<string> | string[]} ids
 * @returns {string[]}
 */
export function refreshMatches(state, ids) {
  const count = ids instanceof Set ? ids.size : ids.length;
  if (count > WHOLE_PASS_AFTER) return recomputeMatches(state);
  if (!state.matchSet || state.matchSetOf !== state.matches) {
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
 * @returns {View}
 */
export function createRunView() {
  return { filter: { ...EMPTY_FILTER }, matches: null, selectedId: null };
}

/**
 * Every tag some ticket has, for the pickers (counted once, then kept as tags change).
 * @param {QueueState} state
 * @returns {string[]}
 */
export function allTags(state) {
  if (!state.tagCounts) {
    /** @type {Map<string, number>} */
    const counts = new Map();
    for (const t of state.tickets) for (const tag of t.tags) counts.set(tag, (counts.get(tag) ?? 0) + 1);
    state.tagCounts = counts;
  }
  return [...state.tagCounts].filter(([, n]) => n > 0).map(([tag]) => tag).sort();
}

/**
 * @param {QueueState} state
 * @param {string | null | undefined} id
 * @returns {string}
 */
export function assigneeName(state, id) {
  if (id === null || id === undefined) return 'Unassigned';
  return state.assignees.find((a) => a.id === id)?.name ?? id;
}

/**
 * The queue as a document for saving (File › Save queue as…) or IndexedDB.
 * @param {QueueState} state
 */
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
