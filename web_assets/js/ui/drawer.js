// The shared top of a side drawer: its title and a close button.
import { el } from './dom.js';

/**
 * @param {string} title
 * @param {() => void} onClose
 */
export function drawerHeader(title, onClose) {
  const closeButton = el('button', { type: 'button', class: 'close-button', 'aria-label': `Close ${title}` }, '×');
  closeButton.addEventListener('click', onClose);
  return el('div', { class: 'drawer-head' }, el('h2', { text: title }), closeButton);
}
