// Where each value of a person's command came from, as the recorder keeps it:
//   typed    written into a text field (a search phrase, a tag, reply text)
//   picked   chosen from a list (a status, a person, a template, a row of the queue)
//   context  not chosen in this step: the ticket that was already open
// "derived" (taken from an earlier step's result) is worked out later, by the generalizer.
import { CATALOGUE } from '../catalogue.js';

const TYPED_FIELDS = new Set(['text', 'tag', 'tags']);

/**
 * @param {string} commandId
 * @param {Record<string, unknown> | null | undefined} payload
 * @param {string | null} control
 * @returns {NonNullable<Protocol.CommandAsk['provenance']>}
 */
export function provenanceFor(commandId, payload, control) {
  const command = CATALOGUE[commandId];
  if (!command) return {};
  /** @type {NonNullable<Protocol.CommandAsk['provenance']>} */
  const out = {};
  for (const field of Object.keys(payload ?? {})) {
    if (command.entityFields.includes(field)) out[field] = control === 'queue-list' ? 'picked' : 'context';
    else out[field] = TYPED_FIELDS.has(field) ? 'typed' : 'picked';
  }
  return out;
}
