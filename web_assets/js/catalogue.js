// The command catalogue: the console's whole vocabulary. Every read and every change a person
// or an agent makes is one of these commands, dispatched through the bus. Ids are stable
// (recordings and Tool Packs refer to them); bump CATALOGUE_VERSION when one changes meaning.
import { PRIORITIES, STATUSES, UNASSIGNED, recomputeMatches, assigneeName } from './queue_state.js';

export const CATALOGUE_VERSION = 1;

const TICKET_ID = { type: 'string', minLength: 1, maxLength: 64, description: 'The ticket id, for example T-1001.' };
const TAG = { type: 'string', pattern: '^[a-z0-9][a-z0-9_-]{0,39}$', description: 'A tag: lower case letters, digits, - or _.' };
const ASSIGNEE = { type: ['string', 'null'], minLength: 1, maxLength: 64, description: 'An assignee id from list_assignees, or null to unassign.' };

function object(properties, required = []) {
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', properties, required, additionalProperties: false };
}

export class CommandError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

function ticketOrFail(state, id) {
  const t = state.byId.get(id);
  if (!t) throw new CommandError('not_found', `There is no ticket ${id} in this queue.`);
  return t;
}

function assigneeOrFail(state, id) {
  if (id === null) return null;
  if (!state.assignees.some((a) => a.id === id)) {
    const known = state.assignees.map((a) => a.id).join(', ');
    throw new CommandError('not_found', `There is no assignee "${id}". Known assignees: ${known}.`);
  }
  return id;
}

/** Set one field and remember what it was, so the bus can undo the change later. */
function change(undo, ticket, field, value) {
  const before = ticket[field];
  const same = Array.isArray(before) ? JSON.stringify(before) === JSON.stringify(value) : before === value;
  if (same) return false;
  undo.push({ ticket_id: ticket.id, field, before: Array.isArray(before) ? [...before] : before, after: Array.isArray(value) ? [...value] : value });
  ticket[field] = Array.isArray(value) ? [...value] : value;
  return true;
}

function matching(state) {
  return state.matches.map((id) => state.byId.get(id)).filter(Boolean);
}

function firstName(requester) {
  const name = String(requester || '').split('<')[0].trim();
  return name.split(/\s+/)[0] || 'there';
}

const commands = [
  // ---- read ---------------------------------------------------------------------------
  {
    id: 'filter_tickets',
    title: 'Filter the queue',
    description: 'Show only tickets that match all given criteria (text, status, priority, assignee, tag). Omitted criteria match everything; an empty payload clears the filter. Returns how many match.',
    mutates: false,
    returnsCustomerText: false,
    control: 'filter-bar',
    payloadSchema: object({
      text: { type: 'string', maxLength: 200, description: 'Words to find in the id, subject, body or requester.' },
      status: { enum: ['', ...STATUSES], description: 'Only tickets with this status.' },
      priority: { enum: ['', ...PRIORITIES], description: 'Only tickets with this priority.' },
      assignee: { type: 'string', maxLength: 64, description: `Only tickets of this assignee id, or "${UNASSIGNED}" for unassigned ones.` },
      tag: { anyOf: [{ const: '' }, TAG], description: 'Only tickets with this tag.' },
    }),
    run(state, p) {
      state.filter = { text: p.text ?? '', status: p.status ?? '', priority: p.priority ?? '', assignee: p.assignee ?? '', tag: p.tag ?? '' };
      const ids = recomputeMatches(state);
      return { matched: ids.length, ticket_ids: ids.slice(0, 20), more: Math.max(0, ids.length - 20) };
    },
  },
  {
    id: 'get_ticket',
    title: 'Read a ticket',
    description: 'Return one ticket with its subject, customer message, requester, status, priority, assignee, tags and reply draft.',
    mutates: false,
    returnsCustomerText: true,
    control: 'detail',
    payloadSchema: object({ ticket_id: TICKET_ID }, ['ticket_id']),
    run(state, p) {
      const t = ticketOrFail(state, p.ticket_id);
      return { ...t, tags: [...t.tags] };
    },
  },
  {
    id: 'list_templates',
    title: 'List reply templates',
    description: 'Return the canned reply templates (id and name).',
    mutates: false,
    returnsCustomerText: false,
    control: 'template-select',
    payloadSchema: object({}),
    run(state) {
      return state.templates.map((t) => ({ id: t.id, name: t.name }));
    },
  },
  {
    id: 'list_assignees',
    title: 'List assignees',
    description: 'Return the people tickets can be assigned to (id, name, role).',
    mutates: false,
    returnsCustomerText: false,
    control: 'assignee-select',
    payloadSchema: object({}),
    run(state) {
      return state.assignees.map((a) => ({ id: a.id, name: a.name, role: a.role ?? '' }));
    },
  },
  // ---- write: one ticket ---------------------------------------------------------------
  {
    id: 'select_ticket',
    title: 'Open a ticket',
    description: 'Open one ticket in the detail pane. Changes only what is shown, not the ticket.',
    mutates: false,
    returnsCustomerText: false,
    control: 'queue-list',
    payloadSchema: object({ ticket_id: TICKET_ID }, ['ticket_id']),
    run(state, p) {
      const t = ticketOrFail(state, p.ticket_id);
      state.selectedId = t.id;
      return { ticket_id: t.id, subject_length: t.subject.length };
    },
  },
  {
    id: 'set_ticket_priority',
    title: 'Set priority',
    description: 'Set the priority of one ticket.',
    mutates: true,
    returnsCustomerText: false,
    control: 'priority-select',
    payloadSchema: object({ ticket_id: TICKET_ID, priority: { enum: PRIORITIES, description: 'The new priority.' } }, ['ticket_id', 'priority']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      const previous = t.priority;
      change(undo, t, 'priority', p.priority);
      return { ticket_id: t.id, priority: t.priority, previous };
    },
  },
  {
    id: 'set_ticket_status',
    title: 'Set status',
    description: 'Set the status of one ticket.',
    mutates: true,
    returnsCustomerText: false,
    control: 'status-select',
    payloadSchema: object({ ticket_id: TICKET_ID, status: { enum: STATUSES, description: 'The new status.' } }, ['ticket_id', 'status']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      const previous = t.status;
      change(undo, t, 'status', p.status);
      return { ticket_id: t.id, status: t.status, previous };
    },
  },
  {
    id: 'set_ticket_assignee',
    title: 'Assign',
    description: 'Assign one ticket to a person (an id from list_assignees), or unassign it with null.',
    mutates: true,
    returnsCustomerText: false,
    control: 'assignee-select',
    payloadSchema: object({ ticket_id: TICKET_ID, assignee: ASSIGNEE }, ['ticket_id', 'assignee']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      const who = assigneeOrFail(state, p.assignee);
      const previous = t.assignee;
      change(undo, t, 'assignee', who);
      return { ticket_id: t.id, assignee: who, assignee_name: assigneeName(state, who), previous };
    },
  },
  {
    id: 'set_ticket_tags',
    title: 'Replace tags',
    description: 'Replace all tags of one ticket with the given list.',
    mutates: true,
    returnsCustomerText: false,
    control: 'tag-editor',
    payloadSchema: object({ ticket_id: TICKET_ID, tags: { type: 'array', items: TAG, uniqueItems: true, maxItems: 20, description: 'The complete new list of tags.' } }, ['ticket_id', 'tags']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      change(undo, t, 'tags', [...p.tags].sort());
      return { ticket_id: t.id, tags: [...t.tags] };
    },
  },
  {
    id: 'add_ticket_tag',
    title: 'Add a tag',
    description: 'Add one tag to one ticket (no change if it already has it).',
    mutates: true,
    returnsCustomerText: false,
    control: 'tag-editor',
    payloadSchema: object({ ticket_id: TICKET_ID, tag: TAG }, ['ticket_id', 'tag']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      if (!t.tags.includes(p.tag)) {
        if (t.tags.length >= 20) throw new CommandError('invalid_payload', `Ticket ${t.id} already has 20 tags, the most a ticket can have.`);
        change(undo, t, 'tags', [...t.tags, p.tag].sort());
      }
      return { ticket_id: t.id, tags: [...t.tags] };
    },
  },
  {
    id: 'remove_ticket_tag',
    title: 'Remove a tag',
    description: 'Remove one tag from one ticket (no change if it does not have it).',
    mutates: true,
    returnsCustomerText: false,
    control: 'tag-editor',
    payloadSchema: object({ ticket_id: TICKET_ID, tag: TAG }, ['ticket_id', 'tag']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      change(undo, t, 'tags', t.tags.filter((x) => x !== p.tag));
      return { ticket_id: t.id, tags: [...t.tags] };
    },
  },
  {
    id: 'apply_template',
    title: 'Apply a reply template',
    description: 'Fill the reply draft of one ticket from a canned template (an id from list_templates), addressed to the requester by first name.',
    mutates: true,
    returnsCustomerText: false,
    control: 'template-apply',
    payloadSchema: object({ ticket_id: TICKET_ID, template_id: { type: 'string', minLength: 1, maxLength: 64, description: 'A template id from list_templates.' } }, ['ticket_id', 'template_id']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      const tpl = state.templates.find((x) => x.id === p.template_id);
      if (!tpl) {
        const known = state.templates.map((x) => x.id).join(', ');
        throw new CommandError('not_found', `There is no template "${p.template_id}". Known templates: ${known}.`);
      }
      change(undo, t, 'reply_draft', tpl.body.replaceAll('{{requester_first_name}}', firstName(t.requester)));
      return { ticket_id: t.id, template_id: tpl.id, draft_length: t.reply_draft.length };
    },
  },
  {
    id: 'set_reply_draft',
    title: 'Edit the reply draft',
    description: 'Replace the reply draft of one ticket with the given text.',
    mutates: true,
    returnsCustomerText: false,
    control: 'reply-draft',
    payloadSchema: object({ ticket_id: TICKET_ID, text: { type: 'string', maxLength: 10000, description: 'The full reply text.' } }, ['ticket_id', 'text']),
    run(state, p, undo) {
      const t = ticketOrFail(state, p.ticket_id);
      change(undo, t, 'reply_draft', p.text);
      return { ticket_id: t.id, draft_length: t.reply_draft.length };
    },
  },
  // ---- write: every ticket the current filter matches ------------------------------------
  {
    id: 'tag_matching_tickets',
    title: 'Tag all matching tickets',
    description: 'Add a tag to every ticket the current filter matches. Use filter_tickets first.',
    mutates: true,
    returnsCustomerText: false,
    control: 'bulk-tag',
    payloadSchema: object({ tag: TAG }, ['tag']),
    run(state, p, undo) {
      let changed = 0;
      for (const t of matching(state)) {
        if (!t.tags.includes(p.tag) && t.tags.length < 20 && change(undo, t, 'tags', [...t.tags, p.tag].sort())) changed += 1;
      }
      return { matched: state.matches.length, changed };
    },
  },
  {
    id: 'untag_matching_tickets',
    title: 'Remove a tag from all matching tickets',
    description: 'Remove a tag from every ticket the current filter matches.',
    mutates: true,
    returnsCustomerText: false,
    control: 'bulk-untag',
    payloadSchema: object({ tag: TAG }, ['tag']),
    run(state, p, undo) {
      let changed = 0;
      for (const t of matching(state)) {
        if (t.tags.includes(p.tag) && change(undo, t, 'tags', t.tags.filter((x) => x !== p.tag))) changed += 1;
      }
      return { matched: state.matches.length, changed };
    },
  },
  {
    id: 'set_matching_priority',
    title: 'Set priority of all matching tickets',
    description: 'Set the priority of every ticket the current filter matches.',
    mutates: true,
    returnsCustomerText: false,
    control: 'bulk-priority',
    payloadSchema: object({ priority: { enum: PRIORITIES, description: 'The new priority.' } }, ['priority']),
    run(state, p, undo) {
      let changed = 0;
      for (const t of matching(state)) if (change(undo, t, 'priority', p.priority)) changed += 1;
      return { matched: state.matches.length, changed };
    },
  },
  {
    id: 'set_matching_status',
    title: 'Set status of all matching tickets',
    description: 'Set the status of every ticket the current filter matches.',
    mutates: true,
    returnsCustomerText: false,
    control: 'bulk-status',
    payloadSchema: object({ status: { enum: STATUSES, description: 'The new status.' } }, ['status']),
    run(state, p, undo) {
      let changed = 0;
      for (const t of matching(state)) if (change(undo, t, 'status', p.status)) changed += 1;
      return { matched: state.matches.length, changed };
    },
  },
  {
    id: 'assign_matching_tickets',
    title: 'Assign all matching tickets',
    description: 'Assign every ticket the current filter matches to one person (or unassign with null).',
    mutates: true,
    returnsCustomerText: false,
    control: 'bulk-assign',
    payloadSchema: object({ assignee: ASSIGNEE }, ['assignee']),
    run(state, p, undo) {
      const who = assigneeOrFail(state, p.assignee);
      let changed = 0;
      for (const t of matching(state)) if (change(undo, t, 'assignee', who)) changed += 1;
      return { matched: state.matches.length, changed };
    },
  },
];

// Which payload fields name an entity (a ticket, a template, a person). A taught tool turns
// these into parameters by default: a frozen ticket id would keep hitting last week's ticket.
for (const c of commands) {
  c.entityFields = ['ticket_id'].filter((f) => f in c.payloadSchema.properties);
}

export const CATALOGUE = Object.freeze(Object.fromEntries(commands.map((c) => [c.id, Object.freeze(c)])));

/** The catalogue as data (no handlers): what Tool Packs, the page and agents may read. */
export function describeCatalogue() {
  return {
    version: CATALOGUE_VERSION,
    commands: commands.map(({ id, title, description, mutates, returnsCustomerText, payloadSchema, entityFields }) => ({
      id, title, description, mutates, returnsCustomerText, payloadSchema, entityFields,
    })),
  };
}
