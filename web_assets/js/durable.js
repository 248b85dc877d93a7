// The page's side of the durable queue. In the desktop app the shell's database holds the
// queue: every change the page applies is handed to the shell, and only its reply (after the
// database COMMIT) makes the change "saved". The footer says so, and IndexedDB, the page's
// cache, is marked as holding unsaved changes until they are. In a plain browser IndexedDB is
// the only copy and every change counts as saved once written there.
import { $ } from './ui/dom.js';

const SHOW_SAVING_AFTER_MS = 400; // a save that takes less than this never flickers the footer

export function createDurability({ shell, persister }) {
  const label = $('save-state');
  const waits = new Map(); // bus seq -> promise of its commit
  let unsaved = 0;
  let revision = 0;
  let failed = '';
  let savingTimer = null;
  let idleWaiters = [];
  let generation = null;
  const queuesSaved = new Map(); // generation -> revision: a queue saved before it was shown

  function show() {
    if (!shell.present || !label) return;
    clearTimeout(savingTimer);
    if (failed) {
      label.textContent = `Not saved: ${failed}`;
      label.dataset.state = 'failed';
    } else if (unsaved > 0) {
      savingTimer = setTimeout(() => { label.textContent = 'Saving…'; label.dataset.state = 'saving'; }, SHOW_SAVING_AFTER_MS);
    } else {
      label.textContent = 'All changes saved';
      label.dataset.state = 'saved';
    }
  }

  function settle(nextRevision) {
    unsaved = Math.max(0, unsaved - 1);
    if (typeof nextRevision === 'number') revision = Math.max(revision, nextRevision);
    persister.syncState({ revision, dirty: unsaved > 0 });
    show();
    if (unsaved === 0) { for (const resolve of idleWaiters.splice(0)) resolve(); }
  }

  return {
    get unsaved() { return unsaved; },

    /** Resolves once every change handed to the shell so far is saved (or refused). */
    idle() {
      return unsaved === 0 ? Promise.resolve() : new Promise((resolve) => { idleWaiters.push(resolve); });
    },
    get revision() { return revision; },

    /**
     * The queue now on screen is the database's `generation` at `revision`; with no revision
     * yet, the shell is still saving it (a file just opened) and will say "saved".
     */
    adopt(state, { keepFailure = false } = {}) {
      generation = state.generation ?? null;
      if (!keepFailure) failed = '';
      const early = queuesSaved.get(generation);
      const pending = (state.revision === null || state.revision === undefined) && early === undefined;
      unsaved = pending ? 1 : 0;
      revision = state.revision ?? early ?? 0;
      persister.syncState({ generation, revision, dirty: pending });
      if (!pending) { for (const resolve of idleWaiters.splice(0)) resolve(); }
      show();
    },

    /** A person's change (a bus entry): hand it to the shell; resolves once it is saved. */
    commit(entry) {
      if (!shell.present || !entry.changes?.length) return Promise.resolve({ saved: true });
      unsaved += 1;
      persister.syncState({ dirty: true });
      show();
      const changes = entry.changes.map((c) => [c.ticket_id, c.field, c.after]);
      const done = shell.ask({ kind: 'commit', command: entry.id, changes }).then((reply) => {
        if (reply?.isError) {
          failed = reply.message;
          settle(null);
          return { saved: false, message: reply.message };
        }
        failed = '';
        settle(reply.revision);
        return { saved: true };
      });
      if (entry.seq !== undefined) waits.set(entry.seq, done);
      return done;
    },

    /** The commit of a person's dispatch (for messages that must wait for it). */
    saved(seq) {
      const wait = waits.get(seq) ?? Promise.resolve({ saved: true });
      waits.delete(seq);
      return wait;
    },

    /** A run finished with changes: the shell saves them before its caller hears back. */
    runApplied(outcome) {
      if (!shell.present || !outcome?.changes?.length) return;
      unsaved += 1;
      persister.syncState({ dirty: true });
      show();
    },

    /** The shell saved a run's changes or a whole queue (or could not: it then reloads). */
    runSaved({ revision: next, error = '', generation: of = null }) {
      if (of !== null && of !== generation) {
        if (!error) queuesSaved.set(of, next); // arrived before the queue was shown
        return;
      }
      failed = error;
      settle(next);
    },
  };
}
