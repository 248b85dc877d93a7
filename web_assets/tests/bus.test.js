import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeBus, snapshot } from './helpers.js';

test('bulk commands act on the current filter, not on ids', () => {
  const { state, bus } = makeBus();
  const f = bus.dispatch('filter_tickets', { text: 'bank feed' });
  assert.ok(f.result.matched >= 4);
  const matched = new Set(state.matches);
  const out = bus.dispatch('tag_matching_tickets', { tag: 'bank-issue' });
  assert.equal(out.result.matched, matched.size);
  for (const t of state.tickets) assert.equal(t.tags.includes('bank-issue'), matched.has(t.id), t.id);
});

test('a recording of the same routine needs no ticket ids', () => {
  const { bus } = makeBus();
  bus.dispatch('filter_tickets', { text: 'refund' });
  bus.dispatch('tag_matching_tickets', { tag: 'refund-review' });
  bus.dispatch('set_matching_priority', { priority: 'high' });
  const payloads = bus.log().map((e) => JSON.stringify(e.payload));
  assert.ok(payloads.every((p) => !/T-\d+/.test(p)), payloads.join(' '));
});

test('each mutation keeps an undo record that restores the exact previous values', () => {
  const { state, bus } = makeBus();
  const before = snapshot(state);
  bus.dispatch('filter_tickets', { status: 'new' });
  const out = bus.dispatch('set_matching_priority', { priority: 'urgent' });
  assert.ok(out.result.changed > 0);
  assert.notEqual(snapshot(state), before);
  assert.deepEqual(bus.undo(out.seq), { reverted: out.result.changed, kept: [] });
  assert.equal(snapshot(state), before);
  assert.equal(bus.undo(out.seq), false, 'an undone entry cannot be undone twice');
});

test('undo of one change leaves later, unrelated changes alone', () => {
  const { state, bus } = makeBus();
  const a = bus.dispatch('set_ticket_priority', { ticket_id: 'T-1001', priority: 'urgent' });
  bus.dispatch('set_ticket_status', { ticket_id: 'T-1002', status: 'open' });
  bus.undo(a.seq);
  assert.equal(state.byId.get('T-1001').priority, 'normal');
  assert.equal(state.byId.get('T-1002').status, 'open');
});

test('a change that does nothing records no undo entry', () => {
  const { bus } = makeBus();
  const out = bus.dispatch('set_ticket_priority', { ticket_id: 'T-1001', priority: 'normal' });
  assert.equal(out.ok, true);
  assert.deepEqual(bus.log().at(-1).changes, []);
});

test('the matching set follows changes (untagging removes tickets from a tag filter)', () => {
  const { state, bus } = makeBus();
  bus.dispatch('filter_tickets', { tag: 'refund' });
  const n = state.matches.length;
  assert.ok(n > 0);
  bus.dispatch('untag_matching_tickets', { tag: 'refund' });
  assert.equal(state.matches.length, 0);
});

test('log entries carry source, control, time and a compact result', () => {
  const { bus } = makeBus();
  bus.dispatch('get_ticket', { ticket_id: 'T-1001' }, { source: 'ui', control: 'detail' });
  const e = bus.log()[0];
  assert.equal(e.source, 'ui');
  assert.equal(e.control, 'detail');
  assert.equal(e.at, '2026-11-30T09:00:00.000Z');
  assert.ok(JSON.stringify(e.result).length <= 400, 'results are summarised in the log');
});

test('payloads are copied: changing the caller object later does not change the log', () => {
  const { bus } = makeBus();
  const payload = { ticket_id: 'T-1001', priority: 'high' };
  bus.dispatch('set_ticket_priority', payload);
  payload.priority = 'low';
  assert.equal(bus.log()[0].payload.priority, 'high');
});

test('undo leaves alone a field someone changed again since', () => {
  const { state, bus } = makeBus();
  bus.dispatch('filter_tickets', { status: 'new' });
  const bulk = bus.dispatch('set_matching_priority', { priority: 'urgent' });
  const someone = state.matches[0];
  bus.dispatch('set_ticket_priority', { ticket_id: someone, priority: 'low' });
  const undone = bus.undo(bulk.seq);
  assert.deepEqual(undone.kept, [{ ticket_id: someone, field: 'priority' }]);
  assert.equal(undone.reverted, bulk.result.changed - 1);
  assert.equal(state.byId.get(someone).priority, 'low');
});
