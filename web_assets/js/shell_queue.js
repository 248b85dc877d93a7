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

const keyOf = (ticketId, field) => `${ticketId}\u0000${field}`;
const copy = (value) => (Array.isArray(value) ? [...value] : value);

/**
 * createShellQueue({ shell, state, bus, durable, persister, toast, feedback, onDrawn, onTeachSteps })
 *   send(id, payload, {control, provenance}) -> the local outcome, with `answered` (the
 *     shell's reply, a promise) when it was sent
 *   feed(entry), queueSaved(request), adopted({generation, revision}), undo(seq?), redo()
 */
export function createShellQueue(options) {
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

/** The queue on screen is now the shell's `generation` at `revision` (null: still saving). */
function adopted(q, { generation = null, revision = null }) {
  q.generation = generation;
  q.revision = revision ?? q.saved.get(generation) ?? null;
  q.saved.delete(generation);
  q.pending.clear();
  q.resyncing = false;
  replayHeld(q);
}

/** Entries that arrived before the queue they belong to was shown (or its revision known). */
function replayHeld(q) {
  feedMany(q, q.held.splice(0).filter((entry) => entry.generation === q.generation));
}

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

function send(q, id, payload, { control = null, provenance = {} }) {
  const local = q.bus.dispatch(id, payload, { source: 'ui', control, provenance });
  if (!local.ok) return local;
  const entry = q.bus.entry(local.seq);
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
    // The change-feed entry of this change comes before its answer: one missing was lost.
    if (typeof reply?.rev === 'number' && q.revision !== null && reply.rev > q.revision) resync(q);
    settle(q, keys);
    if (changes) q.durable.end(reply?.isError && reply.code === 'storage' ? reply.message : '');
    if (reply?.isError) q.toast.show(reply.message ?? 'The change was refused.', { kind: 'error' });
    if (typeof reply?.teachSteps === 'number') q.onTeachSteps?.(reply.teachSteps);
    return reply;
  });
  return { ...local, answered };
}

/** The shell answered the commands that held these fields: they show what it holds now. */
function settle(q, keys) {
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

function feedMany(q, entries) {
  const touched = new Set();
  let tags = false;
  let lastRun = null;
  for (const entry of entries) {
    const drawn = feed(q, entry, touched);
    if (drawn === null) continue;
    tags = tags || drawn;
    if (entry.tool) lastRun = entry;
  }
  if (touched.size || lastRun) draw(q, touched, tags, lastRun);
}

/** One commit, written into the page's copy; its tickets join `touched` (null: not drawn). */
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
  for (const [op, field, value, ids] of entry.writes) {
    if (field === 'tags') tags = true;
    for (const id of ids) {
      const t = q.state.byId.get(id);
      if (!t) continue;
      const held = q.pending.get(keyOf(id, field));
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
  if (entry.tool) {
    const badge = { by: entry.by, tool: entry.tool };
    for (const [, , , ids] of entry.writes) for (const id of ids) q.state.badges.set(id, badge);
  }
  return tags;
}

/** Start again from the saved copy (it arrives as loadQueue). */
function resync(q) {
  if (q.resyncing) return;
  q.resyncing = true;
  q.shell.ask({ kind: 'resync' });
}

function written(op, current, value) {
  if (op === 'add_tag') return current.includes(value) ? current : [...current, value].sort(byCodePoint);
  if (op === 'remove_tag') return current.filter((tag) => tag !== value);
  return copy(value);
}

function draw(q, touched, tags, entry) {
  if (touched.size) {
    refreshMatches(q.state, touched);
    q.persister.ticketsChanged(touched);
  }
  if (entry?.tool) q.feedback.onRun(entry);
  q.onDrawn(tags);
}
