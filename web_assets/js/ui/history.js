// Undo and redo of the person's own changes (Ctrl+Z, Ctrl+Shift+Z): never an agent's run, and
// never a field someone changed again since (js/bus.js keeps what each change wrote).
import { isRefusal } from '../shell_api.js';

/**
 * Undo and redo as the shortcuts use them, whichever side keeps the history.
 * @typedef {object} History
 * @property {(entry: import('../bus.js').BusEvent) => void} note
 * @property {() => boolean | Promise<boolean>} undo
 * @property {() => boolean | Promise<boolean>} redo
 */

/**
 * @param {object} options
 * @param {import('../bus.js').Bus} options.bus
 * @param {import('./toast.js').Toast} options.toast
 * @param {() => void} [options.onChange]
 * @returns {History}
 */
export function createHistory({ bus, toast, onChange = () => {} }) {
  /** @type {number[]} */
  const done = []; // seqs of the person's changes, oldest first
  /** @type {number[]} */
  const undone = [];

  return {
    /** A bus entry of the person's own: remember it (and forget what was undone before). */
    note(entry) {
      if (entry.source !== 'ui' || !entry.changes?.length || entry.undone || entry.redone || entry.seq === undefined) return;
      done.push(entry.seq);
      if (done.length > 200) done.shift();
      undone.length = 0;
    },
    undo() {
      const seq = done.pop();
      if (seq === undefined) { toast.show('Nothing to undo.'); return false; }
      const out = bus.undo(seq);
      if (!out) return false;
      undone.push(seq);
      toast.show(out.kept.length ? 'Undone, except what was changed again since.' : 'Undone.', { undo: null });
      onChange();
      return true;
    },
    redo() {
      const seq = undone.pop();
      if (seq === undefined) { toast.show('Nothing to redo.'); return false; }
      const out = bus.redo(seq);
      if (!out) return false;
      done.push(seq);
      toast.show('Redone.');
      onChange();
      return true;
    },
  };
}

/**
 * In the desktop app the shell keeps the person's history (it applied every change): Undo and
 * Redo ask it, and the change feed draws what it put back.
 * @param {object} options
 * @param {import('../shell_queue.js').QueueDriver} options.queue
 * @param {import('./toast.js').Toast} options.toast
 * @returns {History}
 */
export function createShellHistory({ queue, toast }) {
  /**
   * @param {import('../shell_queue.js').UndoAnswer} reply
   * @param {'undo' | 'redo'} what
   */
  const said = (reply, what) => {
    if (isRefusal(reply)) {
      if (reply.message) toast.show(reply.message, { kind: 'error' });
      return false;
    }
    if (!reply) return false;
    if (reply.nothing) { toast.show(`Nothing to ${what}.`); return false; }
    if (what === 'undo') toast.show(reply.kept ? 'Undone, except what was changed again since.' : 'Undone.', { undo: null });
    else toast.show('Redone.');
    return true;
  };
  return {
    note() {},
    undo: () => queue.undo().then((reply) => said(reply, 'undo')),
    redo: () => queue.redo().then((reply) => said(reply, 'redo')),
  };
}
