// Undo and redo of the person's own changes (Ctrl+Z, Ctrl+Shift+Z). The shell keeps the
// history (model/history.py: never an agent's run, never a field someone changed again since);
// a plain browser, kept for the comparison with native WebMCP, has none of its own.
import { isRefusal } from '../shell_api.js';

/**
 * Undo and redo as the shortcuts use them.
 * @typedef {object} History
 * @property {() => boolean | Promise<boolean>} undo
 * @property {() => boolean | Promise<boolean>} redo
 */

/**
 * In a plain browser: says where undo is, and changes nothing.
 * @param {{ toast: import('./toast.js').Toast }} options
 * @returns {History}
 */
export function createPlainHistory({ toast }) {
  const elsewhere = () => { toast.show('Undo and redo are in the Understudy app.'); return false; };
  return { undo: elsewhere, redo: elsewhere };
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
    undo: () => queue.undo().then((reply) => said(reply, 'undo')),
    redo: () => queue.redo().then((reply) => said(reply, 'redo')),
  };
}
