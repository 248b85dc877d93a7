// The command catalogue: the console's whole vocabulary. Every read and every change a person
// or an agent makes is one of these commands, dispatched through the bus. Ids are stable
// (recordings and Tool Packs refer to them); bump the version when one changes meaning.
//
// What each command *is* (id, title, payload schema, whether it mutates) lives in
// data/catalogue.json, which the desktop shell reads too: the shell checks tools and packs and
// computes annotations from that file, never from what a page script reports. This module adds
// what each command *does*.
import DATA from '../data/catalogue.json' with { type: 'json' };
import { matchIds, assigneeName, byCodePoint } from './queue_state.js';
import { stringify } from './safe_json.js';

/**
 * @typedef {import('./queue_state.js').QueueState} QueueState
 * @typedef {import('./queue_state.js').Ticket} Ticket
 * @typedef {import('./queue_state.js').View} View
 * @typedef {import('./queue_state.js').FieldValue} FieldValue
 */
/**
 * How a field is put in words (data/catalogue.json; each command may override some).
 * @typedef {{ label?: string, asked?: string, same?: string, fixed?: string, describe?: string }} FieldWords
 */
/**
 * A command as data/catalogue.json describes it.
 * @typedef {object} CommandInfo
 * @property {string} id
 * @property {string} title
 * @property {string} [doing] what it does, in the words a suggested title is made of ("tag the matches")
 * @property {string} say the step as a sentence, with {field} for each field's words
 * @property {string} [sayAgain] the same, on the ticket(s) the sentence before named ("Set its priority to {priority}")
 * @property {string} description
 * @property {boolean} mutates
 * @property {boolean} setBased it changes every matching ticket
 * @property {boolean} returnsCustomerText
 * @property {string | null} control the control in the console it drives
 * @property {string[]} entityFields the fields that name a ticket
 * @property {Record<string, 'person' | 'template'>} refs fields that name a person or a template
 * @property {Record<string, FieldWords>} [fieldWords]
 * @property {Protocol.JsonSchema} payloadSchema
 */
/** @typedef {{ version: number, commands: CommandInfo[], fieldWords: Record<string, FieldWords> }} CatalogueData */
/**
 * One field a command changed, and what it was: the bus undoes a change with these.
 * @typedef {{ ticket_id: string, field: string, before: FieldValue | undefined, after: FieldValue | undefined }} Change
 */
/**
 * What a command does. The payload was checked against the command's schema before a handler
 * runs, and each handler below names its own payload's fields: one type cannot say which
 * command's payload a handler of the catalogue gets, hence `any` here.
 * @typedef {(state: QueueState, payload: any, undo: Change[], view: View) => unknown} Handler
 * @typedef {Readonly<CommandInfo & { run: Handler }>} Command
 * @typedef {Readonly<Record<string, Command>>} Catalogue
 */

// The file as the console reads it: tsc infers each command's own literal shape from the JSON,
// which differs from command to command (the shell reads the same file, catalogue.py).
const CATALOGUE_DATA = /** @type {CatalogueData} */ (/** @type {unknown} */ (DATA));

export const CATALOGUE_VERSION = CATALOGUE_DATA.version;

export class CommandError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   */
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/**
 * @param {QueueState} state
 * @param {string} id
 * @returns {Ticket}
 */
function ticketOrFail(state, id) {
  const t = state.byId.get(id);
  if (!t) throw new CommandError('not_found', 'That ticket is not in this queue. Check its id (for example T-1001).');
  return t;
}

/**
 * @param {QueueState} state
 * @param {string | null} id
 * @returns {string | null}
 */
function assigneeOrFail(state, id) {
  if (id === null) return null;
  if (!state.assignees.some((a) => a.id === id)) {
    const known = state.assignees.map((a) => a.id).join(', ');
    throw new CommandError('not_found', `No one on this queue has that assignee id. Known assignees: ${known}.`);
  }
  return id;
}

/**
 * Set one field and remember what it was, so the bus can undo the change later.
 * @param {Change[]} undo
 * @param {Ticket} ticket
 * @param {string} field
 * @param {FieldValue} value
 * @returns {boolean} whether the field changed
 */
function change(undo, ticket, field, value) {
  const before = ticket[field];
  const same = Array.isArray(before) ? stringify(before) === stringify(value) : before === value;
  if (same) return false;
  undo.push({ ticket_id: ticket.id, field, before: Array.isArray(before) ? [...before] : before, after: Array.isArray(value) ? [...value] : value });
  ticket[field] = Array.isArray(value) ? [...value] : value;
  return true;
}

/**
 * The tickets the view's filter matches: the person's list, or a run's own set.
 * @param {QueueState} state
 * @param {View} view
 * @returns {Ticket[]}
 */
function matching(state, view) {
  if (view.matches === null) view.matches = matchIds(state, view.filter);
  return view.matches.map((id) => state.byId.get(id)).filter((t) => t !== undefined);
}

/**
 * The number of tickets a set-based command matched (matching() has worked them out).
 * @param {View} view
 */
const matchedCount = (view) => (view.matches ?? []).length;

/** @param {string} requester */
function firstName(requester) {
  const name = String(requester || '').split('<')[0].trim();
  const first = name.split(/\s+/)[0];
  // A requester given as a bare address (a Freshdesk export) is not greeted by it.
  return first && !first.includes('@') ? first : 'there';
}

/** @type {Record<string, Handler>} */
const HANDLERS = {
  /** @param {QueueState} state @param {Partial<import('./queue_state.js').Filter>} p @param {Change[]} _undo @param {View} view */
  filter_tickets(state, p, _undo, view) {
    view.filter = { text: p.text ?? '', status: p.status ?? '', priority: p.priority ?? '', assignee: p.assignee ?? '', tag: p.tag ?? '' };
    const ids = matchIds(state, view.filter);
    view.matches = ids;
    return { matched: ids.length, ticket_ids: ids.slice(0, 20), more: Math.max(0, ids.length - 20) };
  },
  /** @param {QueueState} state @param {{ ticket_id: string }} p */
  get_ticket(state, p) {
    const t = ticketOrFail(state, p.ticket_id);
    return { ...t, tags: [...t.tags] };
  },
  /** @param {QueueState} state */
  list_templates(state) {
    return state.templates.map((t) => ({ id: t.id, name: t.name }));
  },
  /** @param {QueueState} state */
  list_assignees(state) {
    return state.assignees.map((a) => ({ id: a.id, name: a.name, role: a.role ?? '' }));
  },
  /** @param {QueueState} state @param {{ ticket_id: string }} p @param {Change[]} _undo @param {View} view */
  select_ticket(state, p, _undo, view) {
    const t = ticketOrFail(state, p.ticket_id);
    view.selectedId = t.id;
    return { ticket_id: t.id, subject_length: t.subject.length };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, priority: string }} p @param {Change[]} undo */
  set_ticket_priority(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    const previous = t.priority;
    change(undo, t, 'priority', p.priority);
    return { ticket_id: t.id, priority: t.priority, previous };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, status: string }} p @param {Change[]} undo */
  set_ticket_status(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    const previous = t.status;
    change(undo, t, 'status', p.status);
    return { ticket_id: t.id, status: t.status, previous };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, assignee: string | null }} p @param {Change[]} undo */
  set_ticket_assignee(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    const who = assigneeOrFail(state, p.assignee);
    const previous = t.assignee;
    change(undo, t, 'assignee', who);
    return { ticket_id: t.id, assignee: who, assignee_name: assigneeName(state, who), previous };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, tags: string[] }} p @param {Change[]} undo */
  set_ticket_tags(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    change(undo, t, 'tags', [...p.tags].sort(byCodePoint));
    return { ticket_id: t.id, tags: [...t.tags] };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, tag: string }} p @param {Change[]} undo */
  add_ticket_tag(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    if (!t.tags.includes(p.tag)) {
      if (t.tags.length >= 20) throw new CommandError('invalid_payload', `Ticket ${t.id} already has 20 tags, the most a ticket can have.`);
      change(undo, t, 'tags', [...t.tags, p.tag].sort(byCodePoint));
    }
    return { ticket_id: t.id, tags: [...t.tags] };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, tag: string }} p @param {Change[]} undo */
  remove_ticket_tag(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    change(undo, t, 'tags', t.tags.filter((x) => x !== p.tag));
    return { ticket_id: t.id, tags: [...t.tags] };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, template_id: string }} p @param {Change[]} undo */
  apply_template(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    const tpl = state.templates.find((x) => x.id === p.template_id);
    if (!tpl) {
      const known = state.templates.map((x) => x.id).join(', ');
      throw new CommandError('not_found', `This queue has no template with that id. Known templates: ${known}.`);
    }
    change(undo, t, 'reply_draft', tpl.body.replaceAll('{{requester_first_name}}', firstName(t.requester)));
    return { ticket_id: t.id, template_id: tpl.id, draft_length: t.reply_draft.length };
  },
  /** @param {QueueState} state @param {{ ticket_id: string, text: string }} p @param {Change[]} undo */
  set_reply_draft(state, p, undo) {
    const t = ticketOrFail(state, p.ticket_id);
    change(undo, t, 'reply_draft', p.text);
    return { ticket_id: t.id, draft_length: t.reply_draft.length };
  },
  /** @param {QueueState} state @param {{ tag: string }} p @param {Change[]} undo @param {View} view */
  tag_matching_tickets(state, p, undo, view) {
    let changed = 0;
    for (const t of matching(state, view)) {
      if (!t.tags.includes(p.tag) && t.tags.length < 20 && change(undo, t, 'tags', [...t.tags, p.tag].sort(byCodePoint))) changed += 1;
    }
    return { matched: matchedCount(view), changed };
  },
  /** @param {QueueState} state @param {{ tag: string }} p @param {Change[]} undo @param {View} view */
  untag_matching_tickets(state, p, undo, view) {
    let changed = 0;
    for (const t of matching(state, view)) {
      if (t.tags.includes(p.tag) && change(undo, t, 'tags', t.tags.filter((x) => x !== p.tag))) changed += 1;
    }
    return { matched: matchedCount(view), changed };
  },
  /** @param {QueueState} state @param {{ priority: string }} p @param {Change[]} undo @param {View} view */
  set_matching_priority(state, p, undo, view) {
    let changed = 0;
    for (const t of matching(state, view)) if (change(undo, t, 'priority', p.priority)) changed += 1;
    return { matched: matchedCount(view), changed };
  },
  /** @param {QueueState} state @param {{ status: string }} p @param {Change[]} undo @param {View} view */
  set_matching_status(state, p, undo, view) {
    let changed = 0;
    for (const t of matching(state, view)) if (change(undo, t, 'status', p.status)) changed += 1;
    return { matched: matchedCount(view), changed };
  },
  /** @param {QueueState} state @param {{ assignee: string | null }} p @param {Change[]} undo @param {View} view */
  assign_matching_tickets(state, p, undo, view) {
    const who = assigneeOrFail(state, p.assignee);
    let changed = 0;
    for (const t of matching(state, view)) if (change(undo, t, 'assignee', who)) changed += 1;
    return { matched: matchedCount(view), changed };
  },
};

/** @returns {Catalogue} */
function build() {
  const ids = new Set(CATALOGUE_DATA.commands.map((c) => c.id));
  for (const id of Object.keys(HANDLERS)) if (!ids.has(id)) throw new Error(`catalogue.json has no command ${id}`);
  return Object.freeze(Object.fromEntries(CATALOGUE_DATA.commands.map((c) => {
    if (!HANDLERS[c.id]) throw new Error(`no handler for the catalogue command ${c.id}`);
    return [c.id, Object.freeze({ ...c, run: HANDLERS[c.id] })];
  })));
}

export const CATALOGUE = build();

/**
 * The catalogue as data (no handlers): what Tool Packs, the page and agents may read.
 * @returns {CatalogueData}
 */
export function describeCatalogue() {
  return structuredClone(CATALOGUE_DATA);
}
