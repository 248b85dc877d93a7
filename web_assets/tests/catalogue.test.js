import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE, CATALOGUE_VERSION, describeCatalogue } from '../js/catalogue.js';
import { makeBus, snapshot } from './helpers.js';

// One valid payload per command, and what must be true after it ran.
const VALID = {
  filter_tickets: [{ text: 'bank feed', status: 'open' }, (s, r) => r.matched === s.matches.length && s.matches.every((id) => s.byId.get(id).status === 'open')],
  get_ticket: [{ ticket_id: 'T-1006' }, (s, r) => r.id === 'T-1006' && r.body.length > 0],
  list_templates: [{}, (s, r) => r.length === 8 && r.every((t) => t.id && t.name)],
  list_assignees: [{}, (s, r) => r.length === 5 && r.some((a) => a.id === 'priya')],
  select_ticket: [{ ticket_id: 'T-1010' }, (s) => s.selectedId === 'T-1010'],
  set_ticket_priority: [{ ticket_id: 'T-1001', priority: 'urgent' }, (s) => s.byId.get('T-1001').priority === 'urgent'],
  set_ticket_status: [{ ticket_id: 'T-1001', status: 'pending' }, (s) => s.byId.get('T-1001').status === 'pending'],
  set_ticket_assignee: [{ ticket_id: 'T-1011', assignee: 'marcus' }, (s) => s.byId.get('T-1011').assignee === 'marcus'],
  set_ticket_tags: [{ ticket_id: 'T-1001', tags: ['vip', 'billing'] }, (s) => s.byId.get('T-1001').tags.join() === 'billing,vip'],
  add_ticket_tag: [{ ticket_id: 'T-1002', tag: 'vip' }, (s) => s.byId.get('T-1002').tags.includes('vip')],
  remove_ticket_tag: [{ ticket_id: 'T-1002', tag: 'login' }, (s) => !s.byId.get('T-1002').tags.includes('login')],
  apply_template: [{ ticket_id: 'T-1006', template_id: 'refund_approved' }, (s) => s.byId.get('T-1006').reply_draft.startsWith('Hi Derek')],
  set_reply_draft: [{ ticket_id: 'T-1006', text: 'Thanks!' }, (s) => s.byId.get('T-1006').reply_draft === 'Thanks!'],
  tag_matching_tickets: [{ tag: 'checked' }, (s) => s.tickets.every((t) => t.tags.includes('checked'))],
  untag_matching_tickets: [{ tag: 'billing' }, (s) => s.tickets.every((t) => !t.tags.includes('billing'))],
  set_matching_priority: [{ priority: 'low' }, (s) => s.tickets.every((t) => t.priority === 'low')],
  set_matching_status: [{ status: 'solved' }, (s) => s.tickets.every((t) => t.status === 'solved')],
  assign_matching_tickets: [{ assignee: null }, (s) => s.tickets.every((t) => t.assignee === null)],
};

// One invalid payload per command, each of which the schema or the handler must refuse.
const INVALID = {
  filter_tickets: { status: 'sleeping' },
  get_ticket: { ticket_id: 'T-9999' },
  list_templates: { extra: 1 },
  list_assignees: { id: 'x' },
  select_ticket: {},
  set_ticket_priority: { ticket_id: 'T-1001', priority: 'asap' },
  set_ticket_status: { ticket_id: 'T-1001', status: 42 },
  set_ticket_assignee: { ticket_id: 'T-1001', assignee: 'nobody-here' },
  set_ticket_tags: { ticket_id: 'T-1001', tags: ['Has Space'] },
  add_ticket_tag: { ticket_id: 'T-1001', tag: '' },
  remove_ticket_tag: { ticket_id: 'T-1001' },
  apply_template: { ticket_id: 'T-1001', template_id: 'no_such_template' },
  set_reply_draft: { ticket_id: 'T-1001', text: 'x'.repeat(10001) },
  tag_matching_tickets: { tag: 'UPPER' },
  untag_matching_tickets: {},
  set_matching_priority: { priority: 'whenever' },
  set_matching_status: { status: '' },
  assign_matching_tickets: { assignee: 'ghost' },
};

test('every catalogue command has a valid and an invalid case here', () => {
  assert.deepEqual(Object.keys(VALID).sort(), Object.keys(CATALOGUE).sort());
  assert.deepEqual(Object.keys(INVALID).sort(), Object.keys(CATALOGUE).sort());
});

test('the catalogue describes itself with stable ids, 2020-12 schemas and a version', () => {
  const described = describeCatalogue();
  assert.equal(described.version, CATALOGUE_VERSION);
  for (const c of described.commands) {
    assert.match(c.id, /^[a-z_]+$/);
    assert.ok(c.title && c.description, `${c.id} has a title and a description`);
    assert.equal(typeof c.mutates, 'boolean');
    assert.equal(c.payloadSchema.$schema, 'https://json-schema.org/draft/2020-12/schema');
    assert.equal(c.payloadSchema.type, 'object');
    assert.equal(c.payloadSchema.additionalProperties, false);
  }
  const reads = ['filter_tickets', 'get_ticket', 'list_templates', 'list_assignees'];
  for (const id of reads) assert.equal(CATALOGUE[id].mutates, false, id);
  for (const id of ['set_ticket_priority', 'apply_template', 'tag_matching_tickets']) assert.equal(CATALOGUE[id].mutates, true, id);
});

for (const [id, [payload, check]] of Object.entries(VALID)) {
  test(`${id}: a valid payload runs and is logged`, () => {
    const { state, bus } = makeBus();
    const out = bus.dispatch(id, payload, { source: 'test' });
    assert.equal(out.ok, true, JSON.stringify(out.error));
    assert.ok(check(state, out.result), `${id} did what it says`);
    const last = bus.log().at(-1);
    assert.equal(last.id, id);
    assert.deepEqual(last.payload, payload);
    assert.equal(last.source, 'test');
  });
}

for (const [id, payload] of Object.entries(INVALID)) {
  test(`${id}: an invalid payload gets a clear error and changes nothing`, () => {
    const { state, bus } = makeBus();
    const before = snapshot(state);
    const filterBefore = JSON.stringify(state.filter);
    const out = bus.dispatch(id, payload);
    assert.equal(out.ok, false);
    assert.ok(['invalid_payload', 'not_found'].includes(out.error.code), out.error.code);
    assert.ok(out.error.message.length > 10, 'the message says something');
    assert.equal(snapshot(state), before);
    assert.equal(JSON.stringify(state.filter), filterBefore);
    assert.equal(bus.log().length, 0, 'a refused command is not logged');
  });
}

test('an unknown command id is refused without touching state', () => {
  const { state, bus } = makeBus();
  const before = snapshot(state);
  const out = bus.dispatch('delete_everything', {});
  assert.equal(out.error.code, 'unknown_command');
  assert.equal(snapshot(state), before);
  // Object prototype names are not commands either.
  assert.equal(bus.dispatch('constructor', {}).error.code, 'unknown_command');
});

test('error messages name the field but never echo the rejected value', () => {
  const { bus } = makeBus();
  const out = bus.dispatch('set_ticket_priority', { ticket_id: 'T-1001', priority: 'SECRET-VALUE' });
  assert.match(out.error.message, /priority must be one of: low, normal, high, urgent/);
  assert.doesNotMatch(out.error.message, /SECRET-VALUE/);
});
