// The approval card over the console. In the desktop app it only shows what is being decided
// and says the decision is made in Understudy's own dialog (nothing in the page can approve).
// In a plain browser, with no desktop app, it is the approval itself.
import { $, el } from './dom.js';
import { fieldWords, stepSentence } from '../words.js';

/**
 * What the tool asks each time, in words, with how it is described to whoever runs it.
 * @param {import('../teach/compile.js').Definition} definition
 */
function askedOf(definition) {
  /** @type {string[]} */
  const out = [];
  const seen = new Set();
  for (const step of definition.steps) {
    for (const [field, spec] of Object.entries(step.args)) {
      if (spec.from !== 'param' || seen.has(spec.name)) continue;
      seen.add(spec.name);
      const described = definition.inputSchema.properties?.[spec.name]?.description;
      const asked = fieldWords(step.command, field).asked;
      out.push(described ? `${asked.charAt(0).toUpperCase()}${asked.slice(1)}: ${described}` : asked);
    }
  }
  return out;
}

/** @typedef {{ onApprove?: (() => void) | null, onReject?: (() => void) | null }} Decide */

/** @param {{ decidesInDialog: boolean }} options */
export function createApprovalOverlay({ decidesInDialog }) {
  const overlay = $('approval');
  const card = $('approval-card');

  function hide() {
    overlay.hidden = true;
    card.replaceChildren(); // no stale Approve button left behind
  }

  /**
   * entry: { definition, draft?, by }; onApprove/onReject only where the page decides.
   * @param {import('../teach/local_approvals.js').ApprovalRequest} entry
   * @param {Decide} [decide]
   */
  function show(entry, { onApprove = null, onReject = null } = {}) {
    if (entry.revoke) { showRevoke(entry, onApprove, onReject); return; }
    const { definition } = entry;
    const asked = askedOf(definition);
    const children = [
      el('h2', { id: 'approval-title', text: `Publish “${definition.name}”?` }),
      el('p', { class: 'hint', text: entry.by === 'agent' ? 'An agent proposed this name and description. What it does comes from your recording.' : 'You made this from your recording.' }),
      el('h3', { text: 'What it does' }),
      el('ol', { class: 'steps' }, ...definition.steps.map((s) => el('li', { text: stepSentence(s) }))),
      el('h3', { text: 'What agents will read' }),
      el('p', {}, el('strong', { text: definition.name }), ` — ${definition.description}`),
      el('h3', { text: 'What it asks each time' }),
      asked.length ? el('ul', {}, ...asked.map((a) => el('li', { text: a }))) : el('p', { text: 'Nothing: it always does the same.' }),
    ];
    if (decidesInDialog || !onApprove) {
      children.push(el('p', { class: 'waiting', text: 'Waiting for your approval in the Understudy dialog.' }));
    } else {
      const approve = el('button', { type: 'button', class: 'btn primary', id: 'approve-button' }, 'Approve and publish');
      const reject = el('button', { type: 'button', class: 'btn', id: 'reject-button' }, 'Reject');
      approve.addEventListener('click', onApprove);
      if (onReject) reject.addEventListener('click', onReject);
      card.addEventListener('keydown', (event) => { if (event.key === 'Escape') reject.click(); });
      children.push(el('div', { class: 'approval-actions' }, reject, approve));
      queueMicrotask(() => approve.focus());
    }
    card.replaceChildren(...children);
    overlay.hidden = false;
  }

  /**
   * @param {import('../teach/local_approvals.js').ApprovalRequest} entry
   * @param {(() => void) | null} onApprove
   * @param {(() => void) | null} onReject
   */
  function showRevoke(entry, onApprove, onReject) {
    const approve = el('button', { type: 'button', class: 'btn danger', id: 'approve-button' }, 'Revoke');
    const reject = el('button', { type: 'button', class: 'btn', id: 'reject-button' }, 'Keep it');
    if (onApprove) approve.addEventListener('click', onApprove);
    if (onReject) reject.addEventListener('click', onReject);
    card.replaceChildren(
      el('h2', { id: 'approval-title', text: `Revoke the tool ${entry.revoke}?` }),
      el('p', { class: 'summary', text: 'An agent asked to revoke it. Agents will no longer be able to use it, and it leaves your library.' }),
      el('div', { class: 'approval-actions' }, reject, approve));
    overlay.hidden = false;
    queueMicrotask(() => reject.focus());
  }

  return { show, hide };
}
