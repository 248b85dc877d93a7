// Counts in the person's words: the noun agrees with the number, and large numbers read well.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ticketCount } from '../js/words.js';

test('a count of tickets has its noun right', () => {
  assert.equal(ticketCount(1), '1 ticket');
  assert.equal(ticketCount(0), '0 tickets');
  assert.equal(ticketCount(7600), '7,600 tickets');
});
