// Counts in the person's words: the noun agrees with the number, and large numbers read well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ticketCount } from '../js/words.js';

test('a count of tickets has its noun right', () => {
  assert.equal(ticketCount(1), '1 ticket');
  assert.equal(ticketCount(0), '0 tickets');
  assert.equal(ticketCount(7600), '7,600 tickets');
});

test('a suggested description says which ticket the first step works on', async () => {
  const { suggestDescription } = await import('../js/ui/draft_editor.js');
  const steps = [
    { command: 'select_ticket', args: { ticket_id: { from: 'param', name: 'ticket_id' } } },
    { command: 'set_ticket_assignee', args: { ticket_id: { from: 'step', step: 0, path: 'ticket_id' }, assignee: { from: 'const', value: 'priya' } } },
    { command: 'set_ticket_priority', args: { ticket_id: { from: 'step', step: 0, path: 'ticket_id' }, priority: { from: 'const', value: 'high' } } },
  ];
  const text = suggestDescription({ steps });
  // Opening the ticket is not said, so "the same ticket" would have nothing to be the same as.
  assert.ok(text.startsWith('Assign the ticket you choose to '), text);
  assert.match(text, /then set the priority of the same ticket to High\.$/);
  const fixed = suggestDescription({ steps: [{ ...steps[0], args: { ticket_id: { from: 'const', value: 'T-1006' } } }, steps[1]] });
  assert.ok(fixed.startsWith('Assign ticket T-1006 to '), fixed);
});
