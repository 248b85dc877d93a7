// Small DOM helpers. Text always goes in through textContent, never innerHTML: ticket
// subjects and bodies are written by customers.

/**
 * The element with this id: index.html has every id the views ask for. The markup decides
 * whether it is an input, a select or a button; a view that uses one's own properties says
 * which it asked for (`@type {HTMLSelectElement}`).
 * @param {string} id
 * @returns {HTMLElement}
 */
export const $ = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

// Bidirectional control characters can make "Invoice\u202egpj.exe" read as "Invoice exe.jpg":
// they are shown as visible marks, so a person sees what a customer's text really holds (the
// shell does the same, understudy_desktop/text.py).
/** @type {Record<string, string>} */
const BIDI = { '\u061c': 'ALM', '\u200e': 'LRM', '\u200f': 'RLM', '\u202a': 'LRE', '\u202b': 'RLE', '\u202c': 'PDF', '\u202d': 'LRO', '\u202e': 'RLO', '\u2066': 'LRI', '\u2067': 'RLI', '\u2068': 'FSI', '\u2069': 'PDI' };
const BIDI_RE = new RegExp(`[${Object.keys(BIDI).join('')}]`, 'g');

/** @param {unknown} text */
export function visibleControls(text) {
  return String(text ?? '').replace(BIDI_RE, (c) => `⟨${BIDI[c]}⟩`);
}

/**
 * Set a node's text only if it differs: writing the same text still replaces the text node,
 * and the page then lays out and paints it again (every run redraws the views).
 * @param {Node} node
 * @param {unknown} text
 */
export function setText(node, text) {
  const value = visibleControls(text);
  if (node.textContent !== value) node.textContent = value;
}

/**
 * An element: its attributes (`class`, `text`, `dataset`, and the rest as attributes; false,
 * null and undefined leave one out) and its children (text, or nodes).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, unknown>} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k === 'class') node.className = String(v);
    else if (k === 'text') node.textContent = visibleControls(v);
    else if (k === 'aria-label' || k === 'title') node.setAttribute(k, visibleControls(v));
    else if (k === 'dataset') Object.assign(node.dataset, /** @type {Record<string, string>} */ (v));
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined) node.append(typeof c === 'string' ? visibleControls(c) : c);
  return node;
}

/**
 * @param {HTMLSelectElement} select
 * @param {string[][]} options [value, label] of each
 * @param {string | null} [value] the one chosen (else the one that was)
 */
export function fillSelect(select, options, value) {
  const current = value ?? select.value;
  select.replaceChildren(...options.map(([v, label]) => el('option', { value: v, text: label })));
  select.value = current;
}

const dateFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short' });
const dateTimeFormat = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', hour: '2-digit', minute: '2-digit' });

/** @param {string} iso */
export function shortDate(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : dateFormat.format(d);
}

/** @param {string} iso */
export function longDate(iso) {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? '' : dateTimeFormat.format(d);
}

/** @param {string} requester */
export function requesterName(requester) {
  return visibleControls(String(requester || '').split('<')[0].trim() || requester);
}

/** @param {string} name */
export function initials(name) {
  return String(name).split(/\s+/).filter(Boolean).slice(0, 2).map((w) => w[0].toUpperCase()).join('');
}

/** @type {{ status: Record<string, string>, priority: Record<string, string> }} */
export const LABELS = {
  status: { new: 'New', open: 'Open', pending: 'Pending', solved: 'Solved', closed: 'Closed' },
  priority: { low: 'Low', normal: 'Normal', high: 'High', urgent: 'Urgent' },
};
