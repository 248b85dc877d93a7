// The open ticket: its message, and the controls that assign, prioritise, set status, tag and
// reply. Every control dispatches one catalogue command naming the ticket id explicitly.
import { $, el, fillSelect, longDate, LABELS, setText } from './dom.js';
import { STATUSES, PRIORITIES } from '../queue_state.js';
import { stringify } from '../safe_json.js';

const DRAFT_PAUSE_MS = 600;
// While the person types a reply the shell is told so this often (it holds the reply as
// theirs a few seconds past the last notice: model/service.py TYPING_HOLD_S).
const TYPING_EVERY_MS = 2000;

/**
 * @typedef {import('../app/console_core.js').ConsoleState} ConsoleState
 * @typedef {(id: string, payload: Record<string, unknown>, control: string) => boolean} Dispatch
 * @typedef {(ticketId: string | null) => void} Typing
 * @typedef {{ assignee: HTMLSelectElement, priority: HTMLSelectElement, status: HTMLSelectElement, template: HTMLSelectElement, draft: HTMLTextAreaElement, tagInput: HTMLInputElement }} Controls
 */

/** @param {{ state: ConsoleState, dispatch: Dispatch, typing?: Typing }} options */
export function mountDetailPane({ state, dispatch, typing = () => {} }) {
  /** @type {Controls} */
  const c = {
    assignee: /** @type {HTMLSelectElement} */ ($('assignee-select')),
    priority: /** @type {HTMLSelectElement} */ ($('priority-select')),
    status: /** @type {HTMLSelectElement} */ ($('status-select')),
    template: /** @type {HTMLSelectElement} */ ($('template-select')),
    draft: /** @type {HTMLTextAreaElement} */ ($('reply-draft')),
    tagInput: /** @type {HTMLInputElement} */ ($('tag-input')),
  };
  const ticketId = () => state.selectedId;
  wireFields(c, ticketId, dispatch);
  wireDraft(c.draft, state, ticketId, dispatch, typing);
  return {
    render: () => render(state, c),
    renderOptions() {
      fillSelect(c.assignee, [['', 'Unassigned'], ...state.assignees.map((a) => [a.id, a.name])]);
      fillSelect(c.priority, PRIORITIES.map((p) => [p, LABELS.priority[p]]));
      fillSelect(c.status, STATUSES.map((s) => [s, LABELS.status[s]]));
      fillSelect(c.template, [['', 'Choose a template…'], ...state.templates.map((t) => [t.id, t.name])], '');
    },
  };
}

/**
 * @param {Controls} c
 * @param {() => string | null} ticketId
 * @param {Dispatch} dispatch
 */
function wireFields(c, ticketId, dispatch) {
  c.assignee.addEventListener('change', () => {
    dispatch('set_ticket_assignee', { ticket_id: ticketId(), assignee: c.assignee.value || null }, 'assignee-select');
  });
  c.priority.addEventListener('change', () => {
    dispatch('set_ticket_priority', { ticket_id: ticketId(), priority: c.priority.value }, 'priority-select');
  });
  c.status.addEventListener('change', () => {
    dispatch('set_ticket_status', { ticket_id: ticketId(), status: c.status.value }, 'status-select');
  });
  $('tag-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const value = c.tagInput.value.trim().toLowerCase();
    if (!value) return;
    if (dispatch('add_ticket_tag', { ticket_id: ticketId(), tag: value }, 'tag-editor')) c.tagInput.value = '';
  });
  $('d-tags').addEventListener('click', (event) => {
    const button = /** @type {HTMLElement | null} */ (/** @type {Element} */ (event.target).closest('button[data-tag]'));
    if (button) dispatch('remove_ticket_tag', { ticket_id: ticketId(), tag: button.dataset.tag }, 'tag-editor');
  });
  $('template-apply').addEventListener('click', () => {
    if (!c.template.value) {
      c.template.focus();
      return;
    }
    dispatch('apply_template', { ticket_id: ticketId(), template_id: c.template.value }, 'template-apply');
  });
}

/**
 * A reply belongs to the ticket it was typed in, whatever opens meanwhile; it is saved as the
 * person pauses, not only when they leave the field, so a crash loses at most a moment.
 * @param {HTMLTextAreaElement} draft
 * @param {ConsoleState} state
 * @param {() => string | null} ticketId
 * @param {Dispatch} dispatch
 * @param {Typing} typing
 */
function wireDraft(draft, state, ticketId, dispatch, typing) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let draftTimer;
  let told = 0; // when the shell was last told the person is typing
  let toldTicket = '';
  const saveDraft = () => {
    clearTimeout(draftTimer);
    const id = draft.dataset.ticket;
    const ticket = id ? state.byId.get(id) : undefined;
    if (!ticket || ticket.reply_draft === draft.value) return;
    dispatch('set_reply_draft', { ticket_id: id, text: draft.value }, 'reply-draft');
  };
  draft.addEventListener('focus', () => { draft.dataset.ticket = ticketId() ?? ''; });
  draft.addEventListener('input', () => {
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, DRAFT_PAUSE_MS);
    // An agent's run leaves this reply alone while the person types it.
    const id = draft.dataset.ticket ?? '';
    const now = Date.now();
    if (id && (id !== toldTicket || now - told >= TYPING_EVERY_MS)) {
      told = now;
      toldTicket = id;
      typing(id);
    }
  });
  draft.addEventListener('change', saveDraft);
  draft.addEventListener('blur', () => {
    if (toldTicket) typing(null);
    told = 0;
    toldTicket = '';
  });
}

/** @type {WeakMap<HTMLElement, string>} */
const TAG_LISTS = new WeakMap(); // the tag list element -> the tags it shows

/**
 * @param {ConsoleState} state
 * @param {Controls} c
 */
function render(state, c) {
  const t = state.selectedId ? state.byId.get(state.selectedId) : null;
  $('detail-empty').hidden = Boolean(t);
  $('detail-card').hidden = !t;
  if (!t) return;
  setText($('d-id'), t.id);
  const pill = $('d-status-pill');
  setText(pill, LABELS.status[t.status]);
  const pillClass = `status-pill status-${t.status}`;
  if (pill.className !== pillClass) pill.className = pillClass;
  setText($('d-subject'), t.subject);
  setText($('d-requester'), t.requester);
  const created = /** @type {HTMLTimeElement} */ ($('d-created'));
  if (created.dateTime !== t.created) created.dateTime = t.created;
  setText(created, longDate(t.created));
  setValue(c.assignee, t.assignee ?? '');
  setValue(c.priority, t.priority);
  if (c.priority.dataset.priority !== t.priority) c.priority.dataset.priority = t.priority;
  setValue(c.status, t.status);
  renderTags($('d-tags'), t.tags);
  setText($('d-body'), t.body);
  renderHelpdesk($('d-helpdesk'), state.helpdesk, t.id);
  if (document.activeElement !== c.draft) {
    setValue(c.draft, t.reply_draft);
    c.draft.dataset.ticket = t.id;
  }
}

/**
 * "In Zendesk", "Waiting to reach Zendesk", …: the shell's words for this ticket.
 * @param {HTMLElement | null} line
 * @param {ConsoleState['helpdesk']} helpdesk
 * @param {string} ticketId
 */
function renderHelpdesk(line, helpdesk, ticketId) {
  if (!line) return;
  const standing = helpdesk?.tickets?.get(ticketId);
  const words = helpdesk ? (standing?.words ?? helpdesk.inWords) : '';
  line.hidden = !words;
  setText(line, words);
  const cls = `helpdesk-line${standing ? ` sync-${standing.state}` : ''}`;
  if (line.className !== cls) line.className = cls;
}

/**
 * @param {HTMLSelectElement | HTMLTextAreaElement} control
 * @param {string} value
 */
function setValue(control, value) {
  // A list whose options were filled again has nothing chosen, and then reads as '' too.
  if (control.value !== value || ('selectedIndex' in control && control.selectedIndex < 0)) control.value = value;
}

/**
 * @param {HTMLElement} list
 * @param {string[]} tags
 */
function renderTags(list, tags) {
  const key = stringify(tags);
  if (TAG_LISTS.get(list) === key) return;
  TAG_LISTS.set(list, key);
  list.replaceChildren(...tags.map((tag) => el('li', { class: 'tag' }, tag,
    el('button', { type: 'button', class: 'tag-remove', 'aria-label': `Remove tag ${tag}`, dataset: { tag } }, '×'))));
}
