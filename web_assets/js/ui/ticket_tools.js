// The open ticket's tool menu: the taught tools that work on one ticket, by their names. One
// click, or g then a number, runs one on this ticket (asking only for what the ticket does not
// answer), as one "apply macro" does in a helpdesk.
import { $, el } from './dom.js';

/**
 * @typedef {import('../teach/shell_library.js').LibraryTool} LibraryTool
 * @typedef {{ ticketTools(): LibraryTool[], runOnTicket(tool: LibraryTool): void }} TicketToolsSource
 */

/**
 * @param {object} options
 * @param {TicketToolsSource} options.tools
 * @param {import('./toast.js').Toast} options.toast
 * @param {import('../app/console_core.js').ConsoleState} options.state
 */
export function createTicketTools({ tools, toast, state }) {
  const menu = $('ticket-tools');
  const button = $('ticket-tools-button');
  function close() {
    menu.hidden = true;
    button.setAttribute('aria-expanded', 'false');
  }
  function open() {
    if (!state.selectedId) {
      toast.show('Open a ticket first.');
      return;
    }
    const list = tools.ticketTools().slice(0, 9);
    if (!list.length) {
      toast.show('None of your tools works on one ticket yet. Press Teach, do the routine once, then Stop teaching.');
      return;
    }
    menu.replaceChildren(...list.map((tool, i) => {
      const item = el('button', { type: 'button', role: 'menuitem', class: 'menu-item', dataset: { tool: tool.name } },
        el('kbd', { text: String(i + 1) }), ` ${tool.shownAs || tool.name}`);
      item.addEventListener('click', () => {
        close();
        tools.runOnTicket(tool);
      });
      return item;
    }));
    menu.hidden = false;
    button.setAttribute('aria-expanded', 'true');
    /** @type {HTMLElement | null} */ (menu.querySelector('button'))?.focus();
  }
  button.addEventListener('click', () => (menu.hidden ? open() : close()));
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
  return { open, close, get shown() { return !menu.hidden; } };
}
