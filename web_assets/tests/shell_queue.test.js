// The change feed as the desktop app's page draws it: whatever way a write takes through
// feed() (a plain value on many tickets, a counted field, a tag), the tickets, the counts and
// the run's badges end the same.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createShellQueue } from '../js/shell_queue.js';
import { createQueueState, statusCounts } from '../js/queue_state.js';

function ticket(id, status = 'open') {
  return { id, subject: 's', body: 'b', requester: 'r', created: '2026-11-20', status, priority: 'low', assignee: null, tags: [], reply_draft: '' };
}

function shellQueue() {
  const tickets = [ticket('S-1'), ticket('S-2'), ticket('S-3', 'new')];
  const state = Object.assign(createQueueState({ tickets, assignees: [], templates: [] }), { badges: new Map(), marked: new Set() });
  const drawn = [];
  const queue = createShellQueue({
    shell: { ask: async () => null, present: true },
    state,
    bus: {},
    durable: { advance() {} },
    persister: { ticketsChanged(ids) { drawn.push([...ids].sort()); }, viewChanged() {}, syncState() {} },
    toast: {},
    feedback: { onRun() {} },
    onDrawn() {},
  });
  queue.adopted({ generation: 'g', revision: 1 });
  return { queue, state, drawn };
}

test('a run writes plain values, counted fields and tags, and badges only what it changed', () => {
  const { queue, state, drawn } = shellQueue();
  const before = { ...statusCounts(state) }; // counted, so the feed must keep the counts right
  queue.feedMany([{
    rev: 2, generation: 'g', by: 'agent', tool: 'tag_phrase', toolShown: 'Tag bank feeds',
    writes: [
      ['set', 'priority', 'high', ['S-1', 'S-2', 'GONE-9']],
      ['set', 'status', 'solved', ['S-1']],
      ['add_tag', 'tags', 'vip', ['S-2']],
      ['set', 'assignee', null, ['S-2']],
    ],
    step: null,
  }]);
  const [s1, s2, s3] = state.tickets;
  assert.deepEqual([s1.priority, s2.priority, s3.priority], ['high', 'high', 'low']);
  assert.equal(s1.status, 'solved');
  assert.deepEqual(s2.tags, ['vip']);
  assert.equal(s2.assignee, null);
  assert.equal(statusCounts(state).solved, before.solved + 1);
  assert.equal(statusCounts(state).open, before.open - 1);
  assert.deepEqual([...state.badges.keys()].sort(), ['S-1', 'S-2']);
  assert.deepEqual(state.badges.get('S-1'), { by: 'agent', tool: 'Tag bank feeds' });
  assert.deepEqual(drawn, [['S-1', 'S-2']]);
});

test("the person's own change is not badged as a run's", () => {
  const { queue, state } = shellQueue();
  queue.feedMany([{ rev: 2, generation: 'g', by: 'person', tool: '', toolShown: '', writes: [['set', 'priority', 'urgent', ['S-3']]], step: null }]);
  assert.equal(state.tickets[2].priority, 'urgent');
  assert.equal(state.badges.size, 0);
});
