// Error texts never repeat what the caller sent: every catalogue command's error paths are
// driven with a recognisable marker (as a value, as an unknown key, in every field) and the
// marker must not appear in anything the command answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CATALOGUE } from '../js/catalogue.js';
import { makeBus } from './helpers.js';

const MARKER = 'Zq9echo7Zq';
const TICKET = 'T-1001';

/** A payload the command accepts, built from its schema (the first enum value, a real id…). */
function validPayload(command, state) {
  const out = {};
  for (const [field, spec] of Object.entries(command.payloadSchema.properties ?? {})) {
    if (field === 'ticket_id') out[field] = TICKET;
    else if (field === 'assignee') out[field] = state.assignees[0].id;
    else if (field === 'template_id') out[field] = state.templates[0].id;
    else if (spec.enum) out[field] = spec.enum.find((v) => v !== null) ?? spec.enum[0];
    else if (spec.type === 'string' || (Array.isArray(spec.type) && spec.type.includes('string'))) out[field] = 'refund';
    else if (spec.type === 'boolean') out[field] = true;
    else if (spec.type === 'array') out[field] = ['refund'];
  }
  return out;
}

function payloadsFor(command, state) {
  const base = validPayload(command, state);
  const cases = [{ ...base, [MARKER]: 1 }, { [MARKER]: MARKER }];
  for (const field of Object.keys(base)) {
    for (const bad of [MARKER, `T-${MARKER}`, [MARKER], { [MARKER]: MARKER }, MARKER.repeat(40)]) {
      cases.push({ ...base, [field]: bad });
    }
  }
  return cases;
}

test('no catalogue command repeats its input in an error', () => {
  let failures = 0;
  for (const command of Object.values(CATALOGUE)) {
    for (const payload of payloadsFor(command, makeBus().state)) {
      const { bus } = makeBus();
      const out = bus.dispatch(command.id, payload, { source: 'agent' });
      if (out.ok) continue;
      failures += 1;
      assert.ok(!JSON.stringify(out.error).includes(MARKER), `${command.id} ${JSON.stringify(payload).slice(0, 80)} -> ${JSON.stringify(out.error)}`);
    }
  }
  assert.ok(failures > 100, `only ${failures} error paths were reached`);
});

test('an unknown command id is not repeated either', () => {
  const { bus } = makeBus();
  const out = bus.dispatch(MARKER, {}, { source: 'agent' });
  assert.equal(out.ok, false);
  assert.ok(!JSON.stringify(out.error).includes(MARKER));
});
