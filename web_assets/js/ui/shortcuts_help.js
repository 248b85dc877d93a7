// The ? overlay: every keyboard shortcut, in one list.
import { $, el } from './dom.js';

export const SHORTCUTS = [
  ['/', 'Search'],
  ['j  k', 'Next or previous ticket (or the arrow keys)'],
  ['Enter', 'Work on the open ticket (its first field)'],
  ['a', 'Assign the open ticket'],
  ['p', 'Set its priority'],
  ['s', 'Set its status'],
  ['t', 'Add a tag'],
  ['r', 'Choose a reply template'],
  ['Esc', 'Back to the queue (in the list: clear the selection)'],
  ['Ctrl+Z', 'Undo your last change'],
  ['Ctrl+Shift+Z', 'Redo it'],
  ['Ctrl+Shift+R', 'Teach a routine (press again to stop)'],
  ['Ctrl+Shift+L', 'Your recordings'],
  ['l', 'Your tools (the library)'],
  ['g', 'Run one of your tools on the open ticket, or on the selected ones (then its number)'],
  ['x', 'Select the open ticket too (or Ctrl+click; Shift+click a range)'],
  ['Shift+j  Shift+k', 'Select the next or previous ticket as well'],
  ['Ctrl+A', 'Select every ticket in the list'],
  ['Ctrl+Shift+T', 'Your tools, from anywhere'],
  ['?', 'This list'],
  ['Ctrl+O', 'Open a queue file'],
  ['Ctrl+Shift+S', 'Save the queue as a file'],
  ['Ctrl+Shift+K', 'Connect to your helpdesk'],
  ['Ctrl+Shift+U', 'Bring in what changed in the helpdesk now'],
  ['Ctrl+Shift+J', 'Changes to choose (yours and the helpdesk’s)'],
  ['Ctrl+I', 'Import a Tool Pack'],
  ['Ctrl+Shift+E', 'Export a Tool Pack'],
  ['Ctrl+Shift+H', 'Share tools with your team'],
  ['Ctrl+Shift+M', 'The team library'],
  ['Ctrl+,', 'Settings'],
  ['F5', 'Reload the console (your changes are kept)'],
  ['Ctrl+Q', 'Quit Understudy'],
];

export function createShortcutsHelp() {
  const box = $('shortcuts-help');
  function close() {
    box.hidden = true;
    $('queue-list').focus();
  }
  function open() {
    const done = el('button', { type: 'button', class: 'btn primary', id: 'shortcuts-close' }, 'Close');
    done.addEventListener('click', close);
    box.replaceChildren(
      el('h2', { id: 'shortcuts-title', text: 'Keyboard shortcuts' }),
      el('dl', { class: 'shortcut-list' }, ...SHORTCUTS.flatMap(([keys, what]) => [el('dt', {}, el('kbd', { text: keys })), el('dd', { text: what })])),
      el('div', { class: 'card-row' }, done));
    box.hidden = false;
    done.focus();
  }
  box.addEventListener('keydown', (event) => { if (event.key === 'Escape') { event.stopPropagation(); close(); } });
  return { open, close, get shown() { return !box.hidden; } };
}
