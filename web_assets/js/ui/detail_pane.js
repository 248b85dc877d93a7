// The open ticket: its message, and the controls that assign, prioritise, set status, tag and
// reply. Every control dispatches one catalogue command naming the ticket id explicitly.
import { $, el, fillSelect, longDate, LABELS, visibleControls } from './dom.js';
import { STATUSES, PRIORITIES } from '../queue_state.js';

const DRAFT_PAUSE_MS = 600;

export function mountDetailPane({ state, dispatch }) {
  const assignee = $('assignee-select');
  const priority = $('priority-select');
  const status = $('status-select');
  const template = $('template-select');
  const draft = $('reply-draft');
  const tagInput = $('tag-input');
  const ticketId = () => state.selectedId;

  assignee.addEventListener('change', () => {
    dispatch('set_ticket_assignee', { ticket_id: ticketId(), assignee: assignee.value || null }, 'assignee-select');
  });
  priority.addEventListener('change', () => {
    dispatch('set_ticket_priority', { ticket_id: ticketId(), priority: priority.value }, 'priority-select');
  });
  status.addEventListener('change', () => {
    dispatch('set_ticket_status', { ticket_id: ticketId(), status: status.value }, 'status-select');
  });
  $('tag-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = tagInput.value.trim().toLowerCase();
    if (!value) return;
    if (dispatch('add_ticket_tag', { ticket_id: ticketId(), tag: value }, 'tag-editor')) tagInput.value = '';
  });
  $('d-tags').addEventListener('click', (event) => {
    const button = event.target.closest('button[data-tag]');
    if (button) dispatch('remove_ticket_tag', { ticket_id: ticketId(), tag: button.dataset.tag }, 'tag-editor');
  });
  $('template-apply').addEventListener('click', () => {
    if (!template.value) {
      template.focus();
      return;
    }
    dispatch('apply_template', { ticket_id: ticketId(), template_id: template.value }, 'template-apply');
  });
  // A reply belongs to the ticket it was typed in, whatever opens meanwhile; it is saved as
  // the person pauses, not only when they leave the field, so a crash loses at most a moment.
  let draftTimer = null;
  const saveDraft = () => {
    clearTimeout(draftTimer);
    const id = draft.dataset.ticket;
    if (!id || !state.byId.has(id) || state.byId.get(id).reply_draft === draft.value) return;
    dispatch('set_reply_draft', { ticket_id: id, text: draft.value }, 'reply-draft');
  };
  draft.addEventListener('focus', () => { draft.dataset.ticket = ticketId() ?? ''; });
  draft.addEventListener('input', () => { clearTimeout(draftTimer); draftTimer = setTimeout(saveDraft, DRAFT_PAUSE_MS); });
  draft.addEventListener('change', saveDraft);

  function renderOptions() {
    fillSelect(assignee, [['', 'Unassigned'], ...state.assignees.map((a) => [a.id, a.name])]);
    fillSelect(priority, PRIORITIES.map((p) => [p, LABELS.priority[p]]));
    fillSelect(status, STATUSES.map((s) => [s, LABELS.status[s]]));
    fillSelect(template, [['', 'Choose a template…'], ...state.templates.map((t) => [t.id, t.name])], '');
  }

  function render() {
    const t = state.selectedId ? state.byId.get(state.selectedId) : null;
    $('detail-empty').hidden = Boolean(t);
    $('detail-card').hidden = !t;
    if (!t) return;
    $('d-id').textContent = visibleControls(t.id);
    const pill = $('d-status-pill');
    pill.textContent = LABELS.status[t.status];
    pill.className = `status-pill status-${t.status}`;
    $('d-subject').textContent = visibleControls(t.subject);
    $('d-requester').textContent = visibleControls(t.requester);
    const created = $('d-created');
    created.dateTime = t.created;
    created.textContent = longDate(t.created);
    assignee.value = t.assignee ?? '';
    priority.value = t.priority;
    priority.dataset.priority = t.priority;
    status.value = t.status;
    $('d-tags').replaceChildren(...t.tags.map((tag) => el('li', { class: 'tag' }, tag,
      el('button', { type: 'button', class: 'tag-remove', 'aria-label': `Remove tag ${tag}`, dataset: { tag } }, '×'))));
    $('d-body').textContent = visibleControls(t.body);
    if (document.activeElement !== draft) {
      draft.value = t.reply_draft;
      draft.dataset.ticket = t.id;
    }
  }

  return { render, renderOptions };
}
