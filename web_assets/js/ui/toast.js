// One toast at the bottom: results of changes, errors in plain words, and Undo for bulk edits.
import { $, visibleControls } from './dom.js';

/** @typedef {ReturnType<typeof createToast>} Toast */
/** @typedef {{ kind?: 'info' | 'error', undo?: (() => void) | null, ms?: number }} ToastOptions */

export function createToast() {
  const box = $('toast');
  const text = $('toast-text');
  const undoButton = $('toast-undo');
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  /** @type {(() => void) | null} */
  let undoAction = null;

  undoButton.addEventListener('click', () => {
    const action = undoAction;
    hide();
    if (action) action();
  });

  function hide() {
    box.hidden = true;
    undoAction = null;
    clearTimeout(timer);
  }

  /**
   * @param {string} message
   * @param {ToastOptions} [options]
   */
  function show(message, { kind = 'info', undo = null, ms = 5000 } = {}) {
    clearTimeout(timer);
    text.textContent = visibleControls(message);
    box.dataset.kind = kind;
    undoAction = undo;
    undoButton.hidden = !undo;
    box.hidden = false;
    timer = setTimeout(hide, kind === 'error' ? ms * 2 : ms);
  }

  return { show, hide };
}
