// The footer's "All changes saved", and where the page's cache stands against the shell.
// In the desktop app the shell applies and saves every change: a person's change counts as
// saved once the shell answers it (after its database COMMIT), and IndexedDB, the page's
// cache, is marked as holding unsaved changes until then. In a plain browser IndexedDB is the
// only copy and every change counts as saved once written there.
import { $, setText } from './ui/dom.js';

const SHOW_SAVING_AFTER_MS = 400; // a save that takes less than this never flickers the footer

/** @typedef {ReturnType<typeof createDurability>} Durability */
/**
 * @typedef {object} DurableState
 * @property {{ present: boolean }} shell
 * @property {import('./persist.js').Persister} persister
 * @property {HTMLElement | null} label
 * @property {number} unsaved changes handed to the shell and not answered yet
 * @property {number} revision
 * @property {string} failed why the last change was not saved, in words, or ''
 * @property {ReturnType<typeof setTimeout> | undefined} savingTimer
 * @property {Array<() => void>} idleWaiters
 * @property {string | null} generation
 * @property {Map<string | null, number | null>} queuesSaved generation -> revision: a queue saved before it was shown
 */

/**
 * @param {object} options
 * @param {{ present: boolean }} options.shell
 * @param {import('./persist.js').Persister} options.persister
 */
export function createDurability({ shell, persister }) {
  /** @type {DurableState} */
  const d = {
    shell,
    persister,
    label: $('save-state'),
    unsaved: 0,
    revision: 0,
    failed: '',
    savingTimer: undefined,
    idleWaiters: [],
    generation: null,
    queuesSaved: new Map(), // generation -> revision: a queue saved before it was shown
  };
  return {
    get unsaved() { return d.unsaved; },
    get revision() { return d.revision; },
    get generation() { return d.generation; },
    /**
     * The revision the page's copy now reflects (a change-feed entry was drawn).
     * @param {number} revision
     */
    advance(revision) {
      d.revision = Math.max(d.revision, revision);
      d.persister.syncState({ revision: d.revision, dirty: d.unsaved > 0 });
    },
    /**
     * Resolves once every change handed to the shell so far is answered.
     * @returns {Promise<void>}
     */
    idle: () => (d.unsaved === 0 ? Promise.resolve() : new Promise((resolve) => { d.idleWaiters.push(resolve); })),
    /**
     * @param {{ generation?: string | null, revision?: number | null }} state
     * @param {{ keepFailure?: boolean }} [options]
     */
    adopt: (state, options = {}) => adopt(d, state, options),
    /** A change goes to the shell: "Saving…" until its answer. */
    begin() {
      d.unsaved += 1;
      d.persister.syncState({ dirty: true });
      show(d);
    },
    /**
     * The shell answered: saved, or refused with `failure` (words for the footer).
     * @param {string} [failure]
     */
    end(failure = '') {
      d.failed = failure;
      settle(d);
    },
    /** @param {Protocol.SavedRequest} request */
    runSaved: (request) => queueSaved(d, request),
    /** The shell could write again after a failure: nothing is waiting, say so. */
    recovered() {
      d.failed = '';
      show(d);
    },
  };
}

/** @param {DurableState} d */
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

/**
 * Write the footer only when it changes: a write of the same words is still a new frame.
 * @param {HTMLElement} label
 * @param {string} text
 * @param {string} state
 */
function setLabel(label, text, state) {
  setText(label, text);
  if (label.dataset.state !== state) label.dataset.state = state;
}

/** @param {DurableState} d */
function wakeIdle(d) {
  for (const resolve of d.idleWaiters.splice(0)) resolve();
}

/** @param {DurableState} d */
function settle(d) {
  d.unsaved = Math.max(0, d.unsaved - 1);
  d.persister.syncState({ revision: d.revision, dirty: d.unsaved > 0 });
  show(d);
  if (d.unsaved === 0) wakeIdle(d);
}

/**
 * The queue now on screen is the database's `generation` at `revision`; with no revision yet,
 * the shell is still saving it (a file just opened) and will say "saved".
 * @param {DurableState} d
 * @param {{ generation?: string | null, revision?: number | null }} state
 * @param {{ keepFailure?: boolean }} options
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

/**
 * The shell saved a whole queue (or could not: it then reloads the saved copy).
 * @param {DurableState} d
 * @param {Protocol.SavedRequest} request
 */
function queueSaved(d, { revision: next, error = '', generation: of = null }) {
  if (of !== null && of !== d.generation) {
    if (!error) d.queuesSaved.set(of, next); // arrived before the queue was shown
    return;
  }
  d.failed = error;
  if (typeof next === 'number') d.revision = Math.max(d.revision, next);
  settle(d);
}
