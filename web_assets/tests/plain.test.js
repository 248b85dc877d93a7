import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeBus, snapshot } from './helpers.js';
import { createLocalQueue } from '../js/local_queue.js';
import { createPlainHistory } from '../js/ui/history.js';

// A plain browser keeps no undo of the person's: the shell's history (model/history.py) is
// the only one, so there is no second one to hold equal to it.
test('in a plain browser neither the queue nor the shortcuts undo a change', async () => {
  const { state, bus } = makeBus();
  const queue = createLocalQueue({ bus });
  const sent = queue.send('set_ticket_priority', { ticket_id: 'T-1001', priority: 'urgent' });
  assert.equal(sent.ok, true);
  const changed = snapshot(state);
  assert.deepEqual(await queue.undo(sent.ok ? sent.seq : null), { ok: false, nothing: true });
  assert.deepEqual(await queue.redo(), { ok: false, nothing: true });
  const said = [];
  const history = createPlainHistory({ toast: { show: (text) => said.push(text) } });
  assert.equal(history.undo(), false);
  assert.equal(history.redo(), false);
  assert.equal(snapshot(state), changed);
  assert.equal(state.byId.get('T-1001').priority, 'urgent');
  assert.deepEqual(said, ['Undo and redo are in the Understudy app.', 'Undo and redo are in the Understudy app.']);
});
