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
  // Once it is named, the ticket is "it": each thing is said once.
  assert.equal(text, 'Assign the ticket you choose to priya and set its priority to High.');
  const fixed = suggestDescription({ steps: [{ ...steps[0], args: { ticket_id: { from: 'const', value: 'T-1006' } } }, steps[1]] });
  assert.ok(fixed.startsWith('Assign ticket T-1006 to '), fixed);
});

test('a suggested description says "them" for what a search found, and names each value once', async () => {
  const { suggestDescription } = await import('../js/ui/draft_editor.js');
  const find = { command: 'filter_tickets', args: { text: { from: 'param', name: 'phrase' } } };
  const tag = { command: 'tag_matching_tickets', args: { tag: { from: 'const', value: 'bank-feed' } } };
  const urgent = { command: 'set_matching_priority', args: { priority: { from: 'const', value: 'high' } } };
  assert.equal(
    suggestDescription({ steps: [find, tag, urgent] }),
    'Find the tickets mentioning the words you choose, then tag them with “bank-feed” and set their priority to High.',
  );
  // Without a search first, the first change still says which tickets.
  assert.equal(suggestDescription({ steps: [tag, urgent] }), 'Tag every matching ticket with “bank-feed” and set their priority to High.');
  const asked = { command: 'filter_tickets', args: Object.fromEntries(['text', 'status', 'assignee'].map((f) => [f, { from: 'param', name: f }])) };
  asked.args.priority = { from: 'const', value: 'high' };
  assert.equal(suggestDescription({ steps: [asked] }), 'Find the tickets with priority High, matching the words, status and assignee you choose.');
  // Two different tickets are each named.
  const one = { command: 'set_ticket_status', args: { ticket_id: { from: 'const', value: 'T-1' }, status: { from: 'const', value: 'open' } } };
  const two = { command: 'add_ticket_tag', args: { ticket_id: { from: 'const', value: 'T-2' }, tag: { from: 'const', value: 'vip' } } };
  assert.equal(suggestDescription({ steps: [one, two] }), 'Set the status of ticket T-1 to Open and tag ticket T-2 with “vip”.');
});
