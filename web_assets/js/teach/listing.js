// A taught tool's schema as agents read it: without the keywords that only narrow what is
// accepted (data/rules.json, listedSchemaOmits). Every call is still checked against the
// whole approved schema. The shell applies the same rule (understudy_desktop/rules.py).
import RULES from '../../data/rules.json' with { type: 'json' };

const OMIT = new Set(RULES.listedSchemaOmits.keywords);

/**
 * @param {Protocol.JsonSchema} schema (anything else that is not an object is given back as it is)
 * @returns {Protocol.JsonSchema}
 */
export function listedSchema(schema) {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return schema;
  /** @type {Protocol.JsonSchema} */
  const out = Object.fromEntries(Object.entries(schema).filter(([k]) => !OMIT.has(k)));
  if (out.properties && typeof out.properties === 'object') {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([k, v]) => [k, listedSchema(v)]));
  }
  if ('items' in out) out.items = listedSchema(/** @type {Protocol.JsonSchema} */ (out.items));
  return out;
}
