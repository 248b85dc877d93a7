// The approval card over the console. In the desktop app it only shows what is being decided
// and says the decision is made in Understudy's own dialog (nothing in the page can approve).
// In a plain browser, with no desktop app, it is the approval itself.
import { $, el } from './dom.js';
import { CATALOGUE } from '../catalogue.js';
import { plainSummary } from '../teach/compile.js';

function dryRun(definition, draft) {
  const recorded = Object.fromEntries((draft?.params ?? []).map((p) => [p.name, p.recorded]));
  return definition.steps.map((step) => {
    const shown = Object.entries(step.args).map(([field, spec]) => {
      if (spec.from === 'param') return spec.name in recorded ? `${field} = ${JSON.stringify(recorded[spec.name])} (parameter ${spec.name})` : `${field} = the parameter ${spec.name}`;
      if (spec.from === 'step') return `${field} = from step ${spec.step + 1}`;
      return `${field} = ${JSON.stringify(spec.value)}`;
    });
    return `${CATALOGUE[step.command]?.title ?? step.command}${shown.length ? ` — ${shown.join(', ')}` : ''}`;
  });
}

export function createApprovalOverlay({ decidesInDialog }) {
  const overlay = $('approval');
  const card = $('approval-card');

  function hide() {
    overlay.hidden = true;
    card.replaceChildren(); // no stale Approve button left behind
  }

  /** entry: { definition, draft?, by }; onApprove/onReject only where the page decides. */
  function show(entry, { onApprove = null, onReject = null } = {}) {
    if (entry.revoke) { showRevoke(entry, onApprove, onReject); return; }
    const { definition } = entry;
    const params = Object.entries(definition.inputSchema.properties).map(([name, schema]) => el('tr', {},
      el('td', {}, el('code', { text: name })), el('td', { text: schema.enum ? schema.enum.join(' | ') : [].concat(schema.type ?? []).map((t) => (t === 'null' ? 'empty' : t)).join(' or ') }),
      el('td', { text: definition.inputSchema.required.includes(name) ? 'required' : 'optional' }), el('td', { text: schema.description ?? '' })));
    const children = [
      el('h2', { id: 'approval-title', text: `Publish the tool ${definition.name}?` }),
      el('p', { class: 'summary', text: plainSummary(definition) }),
      el('p', { class: 'hint', text: entry.by === 'agent' ? 'An agent proposed this name and description. What it does comes from your recording.' : 'You made this from your recording.' }),
      el('h3', { text: 'What agents will see' }),
      el('p', {}, el('strong', { text: definition.name }), ` — ${definition.description}`),
      el('table', { class: 'params' }, el('tbody', {}, ...params)),
      el('h3', { text: 'Dry run with the recorded values' }),
      el('ol', { class: 'steps' }, ...dryRun(definition, entry.draft).map((line) => el('li', { text: line }))),
    ];
    if (decidesInDialog || !onApprove) {
      children.push(el('p', { class: 'waiting', text: 'Waiting for your approval in the Understudy dialog.' }));
    } else {
      const approve = el('button', { type: 'button', class: 'btn primary', id: 'approve-button' }, 'Approve and publish');
      const reject = el('button', { type: 'button', class: 'btn', id: 'reject-button' }, 'Reject');
      approve.addEventListener('click', onApprove);
      reject.addEventListener('click', onReject);
      card.addEventListener('keydown', (event) => { if (event.key === 'Escape') reject.click(); });
      children.push(el('div', { class: 'approval-actions' }, reject, approve));
      queueMicrotask(() => approve.focus());
    }
    card.replaceChildren(...children);
    overlay.hidden = false;
  }

  function showRevoke(entry, onApprove, onReject) {
    const approve = el('button', { type: 'button', class: 'btn danger', id: 'approve-button' }, 'Revoke');
    const reject = el('button', { type: 'button', class: 'btn', id: 'reject-button' }, 'Keep it');
    approve.addEventListener('click', onApprove);
    reject.addEventListener('click', onReject);
    card.replaceChildren(
      el('h2', { id: 'approval-title', text: `Revoke the tool ${entry.revoke}?` }),
      el('p', { class: 'summary', text: 'An agent asked to revoke it. Agents will no longer be able to use it, and it leaves your library.' }),
      el('div', { class: 'approval-actions' }, reject, approve));
    overlay.hidden = false;
    queueMicrotask(() => reject.focus());
  }

  return { show, hide };
}
