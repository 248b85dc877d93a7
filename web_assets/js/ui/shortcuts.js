// Keyboard-only use: single keys move around when no text field has focus.
import { $ } from './dom.js';

/**
 * @param {EventTarget | null} target
 * @returns {target is HTMLElement}
 */
function typing(target) {
  return target instanceof HTMLElement && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName));
}

// A text field has its own undo of what was typed; a dropdown has none, so after choosing in
// one, Ctrl+Z undoes that choice like anywhere else.
/** @param {EventTarget | null} target */
function editingText(target) {
  return typing(target) && target.tagName !== 'SELECT';
}

/**
 * @param {object} views
 * @param {import('./queue_list.js').QueueList} views.list
 * @param {import('./teach_ui.js').TeachUi} views.teach
 * @param {import('./history.js').History} views.history
 * @param {{ shown: boolean, open(): void, close(): void }} views.help
 * @param {{ open(): void }} [views.ticketTools] the tool menu (g): the selected tickets', else the open one's
 */
export function installShortcuts({ list, teach, history, help, ticketTools }) {
  /** @type {Record<string, string>} */
  const focus = {
    '/': 'filter-text',
    a: 'assignee-select',
    p: 'priority-select',
    s: 'status-select',
    t: 'tag-input',
    r: 'template-select',
  };
  document.addEventListener('keydown', (event) => {
    if ((event.ctrlKey || event.metaKey) && event.shiftKey && !event.altKey) {
      const key = event.key.toLowerCase();
      if (key === 'r') { event.preventDefault(); teach.toggleTeach(); return; }
      if (key === 'l') { event.preventDefault(); teach.showRecordings(); return; }
      if (key === 'z' && !editingText(event.target)) { event.preventDefault(); history.redo(); return; }
    }
    // In a text field Ctrl+Z undoes typing, as everywhere; elsewhere it undoes the last change.
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && !event.altKey && event.key.toLowerCase() === 'z' && !editingText(event.target)) {
      event.preventDefault();
      history.undo();
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === 'Escape') {
      if (help.shown) help.close();
      else $('queue-list').focus();
      return;
    }
    if (typing(event.target)) return;
    if (event.key === '?') {
      event.preventDefault();
      help.open();
      return;
    }
    if (event.key === 'l') {
      event.preventDefault();
      teach.openLibrary();
      return;
    }
    if (event.key === 'g' && ticketTools) {
      event.preventDefault();
      ticketTools.open();
      return;
    }
    if (event.key === 'x' && event.target !== $('queue-list')) {
      event.preventDefault();
      list.markOpen();
      return;
    }
    if (event.key === 'j' || event.key === 'k') {
      if (event.target !== $('queue-list')) {
        event.preventDefault();
        list.move(event.key === 'j' ? 1 : -1);
      }
      return;
    }
    const id = focus[event.key];
    if (id) {
      const target = $(id);
      if (target && !target.closest('[hidden]')) {
        event.preventDefault();
        target.focus();
      }
    }
  });
}
