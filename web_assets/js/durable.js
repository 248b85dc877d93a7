// The page's side of the durable queue. In the desktop app the shell's database holds the
// queue: every change the page applies is handed to the shell, and only its reply (after the
// database COMMIT) makes the change "saved". The footer says so, and IndexedDB, the page's
// cache, is marked as holding unsaved changes until they are. In a plain browser IndexedDB is
// the only copy and every change counts as saved once written there.
import { $, setText } from './ui/dom.js';

const SHOW_SAVING_AFTER_MS = 400; // a save that takes less than this never flickers the footer

export function createDurability({ shell, persister }) {
  const d = {
    shell,
    persister,
    label: $('save-state'),
    waits: new Map(), // bus seq -> promise of its commit
    unsaved: 0,
    revision: 0,
    failed: '',
    savingTimer: null,
    idleWaiters: [],
    generation: null,
    queuesSaved: new Map(), // generation -> revision: a queue saved before it was shown
  };
  return {
    get unsaved() { return d.unsaved; },
    get revision() { return d.revision; },
    /** Resolves once every change handed to the shell so far is saved (or refused). */
    idle: () => (d.unsaved === 0 ? Promise.resolve() : new Promise((resolve) => { d.idleWaiters.push(resolve); })),
    adopt: (state, options = {}) => adopt(d, state, options),
    commit: (entry) => commit(d, entry),
    /** The commit of a person's dispatch (for messages that must wait for it). */
    saved(seq) {
      const wait = d.waits.get(seq) ?? Promise.resolve({ saved: true });
      d.waits.delete(seq);
      return wait;
    },
    /** A run finished with changes: the shell saves them before its caller hears back. */
    runApplied(outcome) {
      if (!shell.present || !outcome?.changes?.length) return;
      pending(d);
    },
    runSaved: (request) => runSaved(d, request),
  };
}

function show(d) {
  const { label } = d;
  if (!d.shell.present || !label) return;
  clearTimeout(d.savingTimer);
  if (d.failed) {
    setLabel(label, `Not saved: ${d.failed}`, 'failed');
  } else if (d.unsaved > 0) {
    d.savingTimer = setTimeout(() => setLabel(label, 'Saving…', 'saving'), SHOW_SAVING_AFTER_MS);
  } else {
    setLabel(label, 'All changes saved', 'saved');
  }
}

/** Write the footer only when it changes: a write of the same words is still a new frame. */
function setLabel(label, text, state) {
  setText(label, text);
  if (label.dataset.state !== state) label.dataset.state = state;
}

function pending(d) {
  d.unsaved += 1;
  d.persister.syncState({ dirty: true });
  show(d);
}

function wakeIdle(d) {
  for (const resolve of d.idleWaiters.splice(0)) resolve();
}

function settle(d, nextRevision) {
  d.unsaved = Math.max(0, d.unsaved - 1);
  if (typeof nextRevision === 'number') d.revision = Math.max(d.revision, nextRevision);
  d.persister.syncState({ revision: d.revision, dirty: d.unsaved > 0 });
  show(d);
  if (d.unsaved === 0) wakeIdle(d);
}

/**
 * The queue now on screen is the database's `generation` at `revision`; with no revision yet,
 * the shell is still saving it (a file just opened) and will say "saved".
 */
function adopt(d, state, { keepFailure = false }) {
  d.generation = state.generation ?? null;
  if (!keepFailure) d.failed = '';
  const early = d.queuesSaved.get(d.generation);
  const waiting = (state.revision === null || state.revision === undefined) && early === undefined;
  d.unsaved = waiting ? 1 : 0;
  d.revision = state.revision ?? early ?? 0;
  d.persister.syncState({ generation: d.generation, revision: d.revision, dirty: waiting });
  if (!waiting) wakeIdle(d);
  show(d);
}

/** A person's change (a bus entry): hand it to the shell; resolves once it is saved. */
function commit(d, entry) {
  if (!d.shell.present || !entry.changes?.length) return Promise.resolve({ saved: true });
  pending(d);
  const changes = entry.changes.map((c) => [c.ticket_id, c.field, c.after]);
  const done = d.shell.ask({ kind: 'commit', command: entry.id, changes }).then((reply) => {
    if (reply?.isError) {
      d.failed = reply.message;
      settle(d, null);
      return { saved: false, message: reply.message };
    }
    d.failed = '';
    settle(d, reply.revision);
    return { saved: true };
  });
  if (entry.seq !== undefined) d.waits.set(entry.seq, done);
  return done;
}

/** The shell saved a run's changes or a whole queue (or could not: it then reloads). */
function runSaved(d, { revision: next, error = '', generation: of = null }) {
  if (of !== null && of !== d.generation) {
    if (!error) d.queuesSaved.set(of, next); // arrived before the queue was shown
    return;
  }
  d.failed = error;
  settle(d, next);
}
