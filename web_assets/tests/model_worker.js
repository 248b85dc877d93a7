// The page's own model, driven from Python for the differential test between the two models
// (tests/test_model_parity.py). One JSON request per line on stdin, one answer per line:
//   {queue, commands: [[id, payload], ...]} -> {outcomes: [{ok, code?, result?}], tickets, view}
// Each command is a person's, dispatched through the bus on the person's view, as a click is.
import { createInterface } from 'node:readline';
import { createQueueState } from '../js/queue_state.js';
import { createBus } from '../js/bus.js';

function run({ queue, commands }) {
  const state = createQueueState(queue);
  const bus = createBus({ state, now: () => new Date('2026-12-01T09:00:00Z') });
  const outcomes = commands.map(([id, payload]) => {
    const out = bus.dispatch(id, payload, { source: 'ui' });
    return out.ok ? { ok: true, result: out.result ?? null } : { ok: false, code: out.error.code };
  });
  const tickets = state.tickets.map(({ id, subject, body, requester, created, status, priority, assignee, tags, reply_draft }) => (
    { id, subject, body, requester, created, status, priority, assignee, tags, reply_draft }));
  return { outcomes, tickets, view: { filter: state.filter, selectedId: state.selectedId } };
}

const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  let answer;
  try {
    answer = run(JSON.parse(line));
  } catch (err) {
    answer = { crashed: String(err?.stack ?? err) };
  }
  process.stdout.write(`${JSON.stringify(answer)}\n`);
});
