// JSON Schema 2020-12 validation for command payloads, using @cfworker/json-schema (npm).
// Compiled validators are cached per schema object; errors are turned into short sentences
// a person can act on, naming the field but never echoing the rejected value.
// Imported by path (not a bare name) so the same file runs in the page, which has no
// bundler or import map, and under node's test runner.
import { Validator } from '../node_modules/@cfworker/json-schema/dist/esm/index.js';

/** @typedef {import('../node_modules/@cfworker/json-schema/dist/esm/index.js').OutputUnit} OutputUnit */
/** @typedef {import('../node_modules/@cfworker/json-schema/dist/esm/index.js').Schema} CfSchema */

/** @type {WeakMap<Protocol.JsonSchema, Validator>} */
const cache = new WeakMap();

/** @param {Protocol.JsonSchema} schema */
function validatorFor(schema) {
  let v = cache.get(schema);
  if (!v) {
    // The same document, in the validator's own (narrower) type for its keywords.
    v = new Validator(/** @type {CfSchema} */ (/** @type {unknown} */ (schema)), '2020-12', false);
    cache.set(schema, v);
  }
  return v;
}

/** @param {string} instanceLocation */
function fieldName(instanceLocation) {
  const path = instanceLocation.replace(/^#\/?/, '');
  return path ? path.split('/').join('.') : 'the payload';
}

/**
 * @param {OutputUnit} err
 * @param {Protocol.JsonSchema} schema
 * @returns {string}
 */
function sentence(err, schema) {
  const where = fieldName(err.instanceLocation);
  switch (err.keyword) {
    case 'required': {
      const m = /"([^"]+)"/.exec(err.error);
      return `${m ? m[1] : 'a field'} is required`;
    }
    case 'additionalProperties': {
      // The unknown key is the caller's input: say which fields there are, not what it was.
      const parent = where === 'the payload' ? schema : null;
      const known = Object.keys(parent?.properties ?? {});
      return known.length ? `${where} has a field it does not take (it takes: ${known.join(', ')})` : `${where} has a field it does not take`;
    }
    case 'enum': {
      const prop = where.split('.').pop() ?? '';
      const allowed = schema?.properties?.[prop]?.enum;
      return allowed ? `${where} must be one of: ${allowed.join(', ')}` : `${where} is not an allowed value`;
    }
    case 'type': {
      const m = /Expected "([^"]+)"/.exec(err.error);
      return `${where} must be ${m ? `a ${m[1]}` : 'of another type'}`;
    }
    case 'minLength': return `${where} must not be empty`;
    case 'maxLength': return `${where} is too long`;
    case 'pattern': return `${where} has characters that are not allowed`;
    case 'minItems': return `${where} needs at least one item`;
    case 'maxItems': return `${where} has too many items`;
    case 'uniqueItems': return `${where} lists the same item twice`;
    default: return `${where} is not valid (${err.keyword})`;
  }
}

/**
 * Validate `value`; returns [] when valid, else a list of plain-language problems.
 * @param {Protocol.JsonSchema} schema
 * @param {unknown} value
 * @returns {string[]}
 */
export function validatePayload(schema, value) {
  const result = validatorFor(schema).validate(value);
  if (result.valid) return [];
  // cfworker reports the container ("properties") and then the leaf; the leaf says more.
  // A `false` schema error sits at the unknown key's own location (the caller's input); the
  // additionalProperties sentence already says it, without repeating the key.
  const leaves = result.errors.filter((e) => !['properties', 'items', 'allOf', 'anyOf', '$ref', 'false'].includes(e.keyword));
  const chosen = leaves.length ? leaves : result.errors;
  return [...new Set(chosen.map((e) => sentence(e, schema)))];
}
