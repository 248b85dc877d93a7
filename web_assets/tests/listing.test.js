import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listedSchema } from '../js/teach/listing.js';

test('the listed schema drops only the narrowing keywords rules.json names', () => {
  const full = {
    type: 'object',
    properties: {
      ticket_id: { type: 'string', minLength: 1, maxLength: 64, description: 'The ticket.' },
      tags: { type: 'array', items: { type: 'string', maxLength: 20, enum: ['a', 'b'] } },
    },
    required: ['ticket_id'],
    additionalProperties: false,
  };
  assert.deepEqual(listedSchema(full), {
    type: 'object',
    properties: {
      ticket_id: { type: 'string', description: 'The ticket.' },
      tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
    },
    required: ['ticket_id'],
  });
  assert.equal(full.additionalProperties, false, 'the approved schema itself is untouched');
});
