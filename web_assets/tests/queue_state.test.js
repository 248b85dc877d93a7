import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createQueueState, recomputeMatches, queueDocument, UNASSIGNED } from '../js/queue_state.js';
import { demoDocument } from './helpers.js';

test('the demo queue is 40 tickets, 5 assignees, 8 templates', () => {
  const doc = demoDocument();
  assert.equal(doc.tickets.length, 40);
  assert.equal(new Set(doc.tickets.map((t) => t.id)).size, 40);
  assert.equal(doc.assignees.length, 5);
  assert.equal(doc.templates.length, 8);
});

test('filters combine with AND and text search ignores case', () => {
  const state = createQueueState(demoDocument());
  state.filter = { text: 'REFUND', status: '', priority: '', assignee: '', tag: '' };
  const all = recomputeMatches(state).length;
  state.filter.status = 'new';
  const both = recomputeMatches(state);
  assert.ok(both.length > 0 && both.length < all);
  for (const id of both) {
    const t = state.byId.get(id);
    assert.equal(t.status, 'new');
    assert.match(`${t.id} ${t.subject} ${t.body} ${t.requester}`.toLowerCase(), /refund/);
  }
});

test('the unassigned filter finds tickets without an assignee', () => {
  const state = createQueueState(demoDocument());
  state.filter = { text: '', status: '', priority: '', assignee: UNASSIGNED, tag: '' };
  const ids = recomputeMatches(state);
  assert.equal(ids.length, 15);
  assert.ok(ids.every((id) => state.byId.get(id).assignee === null));
});

test('100,000 tickets filter by text in well under a second', () => {
  const base = demoDocument();
  const tickets = [];
  for (let i = 0; i < 100000; i += 1) {
    const t = base.tickets[i % base.tickets.length];
    tickets.push({ ...t, id: `X-${i}` });
  }
  const state = createQueueState({ ...base, tickets });
  state.filter = { text: 'bank feed', status: 'open', priority: '', assignee: '', tag: '' };
  const ids = recomputeMatches(state);
  assert.ok(ids.length > 0);
  // Correctness only: timing lives in bench/, not in tests.
  assert.ok(ids.every((id) => state.byId.get(id).status === 'open'));
});

test('the queue document round-trips without private fields', () => {
  const state = createQueueState(demoDocument());
  recomputeMatches(state);
  const doc = queueDocument(state);
  assert.equal(doc.tickets.length, 40);
  assert.ok(!('_hay' in doc.tickets[0]));
  const again = createQueueState(JSON.parse(JSON.stringify(doc)));
  assert.deepEqual(queueDocument(again).tickets, doc.tickets);
});
