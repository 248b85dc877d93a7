// The tool menus: the taught tools that work on one ticket, by their names. On the open ticket
// one click, or g then a number, runs one on it (asking only for what the ticket does not
// answer), as one "apply macro" does in a helpdesk. With tickets selected in the list, g (or
// the selection bar's button) opens the same list for all of them: the shell tries the run,
// says how many tickets it would change, and runs it on all of them as one change.
import { $, el } from './dom.js';
import { ticketCount } from '../words.js';

/**
 * @typedef {import('../teach/shell_library.js').LibraryTool} LibraryTool
 * @typedef {{ ticketTools(): LibraryTool[], runOnTicket(tool: LibraryTool): void, runOnSelection(tool: LibraryTool, tickets: string[], done: () => void): void }} TicketToolsSource
 * @typedef {{ marked(): string[], clearMarks(): void }} Selection
 */

/**
 * One menu under its button: numbered tools, arrows move, a number or Enter picks, Esc closes.
 * @param {HTMLElement} menu
 * @param {HTMLElement} button
 * @param {(tool: LibraryTool) => void} pick
 */
function toolMenu(menu, button, pick) {
  function close() {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  }
  /** @param {LibraryTool[]} list */
  function open(list) {
    menu.replaceChildren(...list.slice(0, 9).map((tool, i) => {
      const item = el('button', { type: 'button', role: 'menuitem', class: 'menu-item', dataset: { tool: tool.name } },
        el('kbd', { text: String(i + 1) }), ` ${tool.shownAs || tool.name}`);
      item.addEventListener('click', () => {
        close();
        pick(tool);
      });
      return item;
    }));
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    /** @type {HTMLElement | null} */ (menu.querySelector('button'))?.focus();
  }
  menu.addEventListener('keydown', (event) => {
    const items = /** @type {HTMLButtonElement[]} */ ([...menu.querySelectorAll('button')]);
    const at = items.indexOf(/** @type {HTMLButtonElement} */ (document.activeElement));
    if (event.key === 'Escape') {
      event.preventDefault();
      event.stopPropagation();
      close();
      button.focus();
    } else if (/^[1-9]$/.test(event.key) && items[Number(event.key) - 1]) {
      event.preventDefault();
      items[Number(event.key) - 1].click();
    } else if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const next = (at + (event.key === 'ArrowDown' ? 1 : -1) + items.length) % items.length;
      items[next]?.focus();
    }
  });
  menu.addEventListener('focusout', (event) => {
    if (!menu.contains(/** @type {Node | null} */ (event.relatedTarget)) && event.relatedTarget !== button) close();
  });
  return { open, close };
}

/**
 * @param {object} options
 * @param {TicketToolsSource} options.tools
 * @param {import('./toast.js').Toast} options.toast
 * @param {import('../app/console_core.js').ConsoleState} options.state
 * @param {Selection} options.selection the tickets selected in the list
 */
export function createTicketTools({ tools, toast, state, selection }) {
  const none = 'None of your tools works on one ticket yet. Press Teach, do the routine once, then Stop teaching.';
  const ticketButton = $('ticket-tools-button');
  const ticketMenu = toolMenu($('ticket-tools'), ticketButton, (tool) => tools.runOnTicket(tool));
  const selectionButton = $('selection-run');
  const selectionMenu = toolMenu($('selection-tools'), selectionButton, (tool) => {
    tools.runOnSelection(tool, selection.marked(), () => selection.clearMarks());
  });

  function openForTicket() {
    if (!state.selectedId) {
      toast.show('Open a ticket first.');
      return;
    }
    const list = tools.ticketTools();
    if (!list.length) toast.show(none);
    else ticketMenu.open(list);
  }
  function openForSelection() {
    const list = tools.ticketTools();
    if (!list.length) toast.show(none);
    else selectionMenu.open(list);
  }
  ticketButton.addEventListener('click', () => ($('ticket-tools').hidden ? openForTicket() : ticketMenu.close()));
  selectionButton.addEventListener('click', () => ($('selection-tools').hidden ? openForSelection() : selectionMenu.close()));
  $('selection-clear').addEventListener('click', () => {
    selection.clearMarks();
    $('queue-list').focus();
  });

  return {
    /** g: the selected tickets' menu when some are selected, else the open ticket's. */
    open() {
      if (selection.marked().length) openForSelection();
      else openForTicket();
    },
    close() {
      ticketMenu.close();
      selectionMenu.close();
    },
    get shown() { return !$('ticket-tools').hidden || !$('selection-tools').hidden; },
    /** The selection changed: the bar says how many, and hides when there are none. */
    selectionChanged() {
      const count = selection.marked().length;
      $('selection-bar').hidden = count === 0;
      $('selection-count').textContent = `${ticketCount(count)} selected`;
      if (!count) selectionMenu.close();
    },
  };
}
