// The queue when the desktop shell is the authority: the shell applies every change, and this
// page draws what the shell says happened.
//
// - A person's command goes to the shell. The page applies it to its own copy at once (so a
//   click shows at once) and remembers what the field was; the shell's answer is final: a
//   refusal puts the field back and says why in words.
// - Everything the shell commits (a person's change, an agent's run, an undo) arrives as a
//   change-feed entry: its revision and what was written. Entries are drawn in order; one
//   that is missing makes the page ask for the saved copy again. A field the person changed
//   and the shell has not answered yet keeps the person's value on screen until it does.
// - A run's entry names its tool and last step: the step toast, the highlight and the badges.
// In a plain browser js/local_queue.js applies commands itself, with the same interface.
import { refreshMatches, byCodePoint, noteChange } from './queue_state.js';
import { stringify } from './safe_json.js';
import { isRefusal } from './shell_api.js';

/**
 * @typedef {import('./queue_state.js').FieldValue} FieldValue
 * @typedef {import('./bus.js').Dispatched} Dispatched
 */
/**
 * The page's own answer to a command where it is the whole app (js/local_queue.js).
 * @typedef {{ ok: true, seq: number, result: unknown }} LocalDone
 * @typedef {Protocol.AskReplies['command'] | LocalDone} CommandAnswer
 */
/**
 * What sending a command came to at once: refused here (nothing was sent), or applied to the
 * page's copy, with the final answer to come (`answered`).
 * @typedef {Extract<Dispatched, { ok: false }> | (Extract<Dispatched, { ok: true }> & { answered: Promise<CommandAnswer> })} Sent
 * @typedef {{ control?: string | null, provenance?: Protocol.CommandAsk['provenance'] }} SendOptions
 * @typedef {Protocol.AskReplies['undo']} UndoAnswer
 */
/**
 * The queue every view's change goes through: the shell's (this module) or, in a plain
 * browser, the page's own (js/local_queue.js).
 * @typedef {object} QueueDriver
 * @property {(id: string, payload: Record<string, unknown>, options?: SendOptions) => Sent} send
 * @property {(entry: Protocol.FeedEntry) => void} feed
 * @property {(entries: Protocol.FeedEntry[]) => void} feedMany
 * @property {(sync: { generation?: string | null, revision?: number | null }) => void} adopted
 * @property {(request: Protocol.SavedRequest) => void} queueSaved
 * @property {(seq?: number | null) => Promise<UndoAnswer>} undo
 * @property {() => Promise<UndoAnswer>} redo
 * @property {number} pendingFields
 */
/**
 * @typedef {object} ShellQueueOptions
 * @property {import('./shell_api.js').ShellLink} shell
 * @property {import('./app/console_core.js').ConsoleState} state
 * @property {import('./bus.js').Bus} bus
 * @property {import('./durable.js').Durability} durable
 * @property {import('./persist.js').Persister} persister
 * @property {import('./ui/toast.js').Toast} toast
 * @property {{ onRun: (entry: Protocol.FeedEntry) => void }} feedback
 * @property {(tags: boolean | undefined) => void} onDrawn
 * @property {(steps: number) => void} [onTeachSteps]
 */
/**
 * A field the person changed that the shell has not answered yet: what the shell holds for
 * it (the feed keeps it up to date) and how many of the person's commands hold it.
 * @typedef {{ confirmed: FieldValue | undefined, count: number }} Held
 */
/**
 * @typedef {ShellQueueOptions & {
 *   pending: Map<string, Held>,
 *   generation: string | null,
 *   revision: number | null,
 *   held: Protocol.FeedEntry[],
 *   saved: Map<string | null, number>,
 *   resyncing: boolean,
 * }} Q
 */

/** @param {string} ticketId @param {string} field */
const keyOf = (ticketId, field) => `${ticketId}\u0000${field}`;
/**
 * @template T
 * @param {T} value
 * @returns {T}
 */
const copy = (value) => /** @type {T} */ (Array.isArray(value) ? [...value] : value);

/**
 * createShellQueue({ shell, state, bus, durable, persister, toast, feedback, onDrawn, onTeachSteps })
 *   send(id, payload, {control, provenance}) -> the local outcome, with `answered` (the
 *     shell's reply, a promise) when it was sent
 *   feed(entry), queueSaved(request), adopted({generation, revision}), undo(seq?), redo()
 * @param {ShellQueueOptions} options
 * @returns {QueueDriver}
 */
export function createShellQueue(options) {
  /** @type {Q} */
  const q = {
    ...options,
    pending: new Map(), // "ticket\0field" -> { confirmed, count }: the person's, not yet answered
    generation: null,
    revision: 0, // null while the shell is still saving the queue shown (a file just opened)
    held: [], // entries for a revision not known yet
    saved: new Map(), // generation -> revision: a queue saved before it was shown
    resyncing: false,
  };
  return {
    send: (id, payload, opts = {}) => send(q, id, payload, opts),
    feed: (entry) => feedMany(q, [entry]),
    /** Several commits, drawn once. */
    feedMany: (entries) => feedMany(q, entries),
    adopted: (sync) => adopted(q, sync),
    queueSaved: (request) => queueSaved(q, request),
    undo: (seq = null) => q.shell.ask({ kind: 'undo', seq }),
    redo: () => q.shell.ask({ kind: 'redo' }),
    get pendingFields() { return q.pending.size; },
  };
}

/**
 * The queue on screen is now the shell's `generation` at `revision` (null: still saving).
 * @param {Q} q
 * @param {{ generation?: string | null, revision?: number | null }} sync
 */
function adopted(q, { generation = null, revision = null }) {
  q.generation = generation;
  q.revision = revision ?? q.saved.get(generation) ?? null;
  q.saved.delete(generation);
  q.pending.clear();
  q.resyncing = false;
  replayHeld(q);
}

/**
 * Entries that arrived before the queue they belong to was shown (or its revision known).
 * @param {Q} q
 */
function replayHeld(q) {
  feedMany(q, q.held.splice(0).filter((entry) => entry.generation === q.generation));
}

/**
 * @param {Q} q
 * @param {Protocol.SavedRequest} request
 */
function queueSaved(q, request) {
  q.durable.runSaved(request);
  if (request.generation !== q.generation && typeof request.revision === 'number') {
    q.saved.set(request.generation, request.revision); // before the queue is shown
    return;
  }
  if (q.revision === null && typeof request.revision === 'number') {
    q.revision = request.revision;
    replayHeld(q);
  }
}

/**
 * @param {Q} q
 * @param {string} id
 * @param {Record<string, unknown>} payload
 * @param {SendOptions} options
 * @returns {Sent}
 */
function send(q, id, payload, { control = null, provenance = {} }) {
  const local = q.bus.dispatch(id, payload, { source: 'ui', control, provenance });
  if (local.ok === false) return local;
  const entry = q.bus.entry(local.seq);
  /** @type {string[]} */
  const keys = [];
  for (const c of entry?.changes ?? []) {
    const key = keyOf(c.ticket_id, c.field);
    let held = q.pending.get(key);
    if (!held) {
      held = { confirmed: copy(c.before), count: 0 };
      q.pending.set(key, held);
    }
    held.count += 1;
    keys.push(key);
  }
  const changes = keys.length > 0;
  if (changes) q.durable.begin();
  const answered = q.shell.ask({ kind: 'command', command: id, payload, control, provenance }).then((reply) => {
    const done = isRefusal(reply) ? null : reply; // a refusal carries no revision or steps
    // The change-feed entry of this change comes before its answer: one missing was lost.
    if (typeof done?.rev === 'number' && q.revision !== null && done.rev > q.revision) resync(q);
    settle(q, keys);
    if (changes) q.durable.end(isRefusal(reply) && reply.code === 'storage' ? reply.message : '');
    if (isRefusal(reply)) q.toast.show(reply.message ?? 'The change was refused.', { kind: 'error' });
    if (typeof done?.teachSteps === 'number') q.onTeachSteps?.(done.teachSteps);
    return reply;
  });
  return { ...local, answered };
}

/**
 * The shell answered the commands that held these fields: they show what it holds now.
 * @param {Q} q
 * @param {string[]} keys
 */
function settle(q, keys) {
  /** @type {Set<string>} */
  const touched = new Set();
  let tags = false;
  for (const key of keys) {
    const held = q.pending.get(key);
    if (!held) continue;
    held.count -= 1;
    if (held.count > 0) continue;
    q.pending.delete(key);
    const [ticketId, field] = key.split('\u0000');
    const t = q.state.byId.get(ticketId);
    if (!t) continue;
    if (stringify(t[field]) !== stringify(held.confirmed)) {
      noteChange(q.state, field, t[field], held.confirmed);
      t[field] = copy(held.confirmed);
      touched.add(ticketId);
      if (field === 'tags') tags = true;
    }
  }
  if (touched.size) draw(q, touched, tags, null);
}

const MAX_HELD = 10000;

/**
 * @param {Q} q
 * @param {Protocol.FeedEntry[]} entries
 */
function feedMany(q, entries) {
  /** @type {Set<string>} */
  const touched = new Set();
  /** @type {boolean | undefined} */
  let tags = false;
  /** @type {Protocol.FeedEntry | null} */
  let lastRun = null;
  for (const entry of entries) {
    const drawn = feed(q, entry, touched);
    if (drawn === null) continue;
    tags = tags || drawn;
    if (entry.tool) lastRun = entry;
  }
  if (touched.size || lastRun) draw(q, touched, tags, lastRun);
}

/**
 * One commit, written into the page's copy; its tickets join `touched` (null: not drawn).
 * @param {Q} q
 * @param {Protocol.FeedEntry} entry
 * @param {Set<string>} touched
 * @returns {boolean | null | undefined} whether tags changed
 */
function feed(q, entry, touched) {
  if (q.resyncing) return;
  if (entry.generation !== q.generation || q.revision === null) {
    // Most likely the queue about to be shown (a file just opened): kept until it is.
    if (q.held.length < MAX_HELD) q.held.push(entry);
    return null;
  }
  if (entry.rev <= q.revision) return null; // the queue shown already holds it
  if (entry.rev !== q.revision + 1) {
    resync(q); // a change this page never saw
    return null;
  }
  q.revision = entry.rev;
  let tags = false;
  // Most commits hold none of the person's changes in flight: a run's 100,000 ids then skip
  // the look-up (and the key built for it) that only the person's own changes need.
  const anyHeld = q.pending.size > 0;
  const { byId, badges } = q.state;
  const badge = entry.tool ? { by: entry.by, tool: entry.toolShown } : null;
  for (const [op, field, value, ids] of entry.writes) {
    if (field === 'tags') tags = true;
    if (!anyHeld && op === 'set' && !Array.isArray(value) && field !== 'status') {
      setEach(byId, ids, field, value, touched, badge && badges, badge);
      continue;
    }
    for (const id of ids) {
      const t = byId.get(id);
      if (!t) continue;
      if (badge) badges.set(id, badge);
      const held = anyHeld ? q.pending.get(keyOf(id, field)) : undefined;
      const next = written(op, held ? held.confirmed : t[field], value);
      if (held) {
        // The person's own change, shown already: it is drawn again only if the answer
        // settles it to something else (see settle).
        held.confirmed = next;
        continue;
      }
      noteChange(q.state, field, t[field], next);
      t[field] = next;
      touched.add(id);
    }
  }
  q.durable.advance(entry.rev);
  return tags;
}

/**
 * A plain value set on many tickets, none of them held by the person's changes in flight
 * and no count kept of it: the loop a run over 100,000 tickets takes (and its badge).
 * @param {Map<string, import('./queue_state.js').Ticket>} byId
 * @param {string[]} ids
 * @param {string} field
 * @param {FieldValue} value
 * @param {Set<string>} touched
 * @param {Map<string, unknown> | null} badges
 * @param {unknown} badge
 */
function setEach(byId, ids, field, value, touched, badges, badge) {
  for (const id of ids) {
    const t = /** @type {Record<string, FieldValue> | undefined} */ (byId.get(id));
    if (!t) continue;
    t[field] = value;
    touched.add(id);
    if (badges) badges.set(id, badge);
  }
}

/**
 * Start again from the saved copy (it arrives as loadQueue).
 * @param {Q} q
 */
function resync(q) {
  if (q.resyncing) return;
  q.resyncing = true;
  q.shell.ask({ kind: 'resync' });
}

/**
 * A field's value after one write of the feed: a tag added or removed, or the value set.
 * @param {Protocol.FeedEntry['writes'][number][0]} op
 * @param {FieldValue | undefined} current the tags, for a tag write
 * @param {FieldValue} value the tag, for a tag write
 * @returns {FieldValue}
 */
function written(op, current, value) {
  const tags = /** @type {string[]} */ (current);
  const tag = /** @type {string} */ (value);
  if (op === 'add_tag') return tags.includes(tag) ? tags : [...tags, tag].sort(byCodePoint);
  if (op === 'remove_tag') return tags.filter((t) => t !== tag);
  return copy(value);
}

/**
 * @param {Q} q
 * @param {Set<string>} touched
 * @param {boolean | undefined} tags whether tags changed
 * @param {Protocol.FeedEntry | null} entry
 */
function draw(q, touched, tags, entry) {
  if (touched.size) {
    refreshMatches(q.state, touched);
    q.persister.ticketsChanged(touched);
  }
  if (entry?.tool) q.feedback.onRun(entry);
  q.onDrawn(tags);
}
