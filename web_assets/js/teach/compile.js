// From a reviewed procedure to a WebMCP tool definition. The input schema is built here from
// the catalogue's own field schemas, never written by an agent; annotations are computed from
// the catalogue, never hand-set. Budgets and the schema lint block publishing.
import { CATALOGUE, CATALOGUE_VERSION } from '../catalogue.js';

export const BUDGET = Object.freeze({ name: 30, description: 500, paramDescription: 150, output: 1500 });
export const TOOL_NAME = /^[a-z][a-z0-9_]{0,29}$/;
const RESERVED_PREFIX = 'understudy_';

// JSON Schema 2020-12 keywords a tool's input schema may use (validation and annotations).
const KNOWN_KEYWORDS = new Set([
  '$schema', 'type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'const',
  'minLength', 'maxLength', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minItems', 'maxItems', 'uniqueItems', 'anyOf', 'oneOf', 'allOf', 'not', 'format', 'title',
  'description', 'default', 'examples', 'multipleOf', 'minProperties', 'maxProperties',
  'prefixItems', 'contains', 'deprecated', 'readOnly', 'writeOnly',
]);

/** Lint an input schema: 2020-12, object root, known keywords, no $ref, satisfiable. */
export function lintSchema(schema) {
  const problems = [];
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return ['the input schema must be a JSON object'];
  if (schema.type !== 'object') problems.push('the input schema must describe an object (type: "object")');
  if (schema.$schema && schema.$schema !== 'https://json-schema.org/draft/2020-12/schema') problems.push('only JSON Schema 2020-12 is accepted');
  const walk = (node, where) => {
    if (!node || typeof node !== 'object') return;
    if (Array.isArray(node)) { node.forEach((n, i) => walk(n, `${where}/${i}`)); return; }
    for (const [key, value] of Object.entries(node)) {
      const parentIsMap = where.endsWith('/properties');
      if (parentIsMap) { walk(value, `${where}/${key}`); continue; }
      if (key === '$ref' || key === '$dynamicRef') problems.push(`${where || '/'}: $ref is not allowed`);
      else if (!KNOWN_KEYWORDS.has(key)) problems.push(`${where || '/'}: unknown keyword "${key}"`);
      if (key === 'properties' || key === 'items' || key === 'anyOf' || key === 'oneOf' || key === 'allOf' || key === 'not' || key === 'prefixItems') walk(value, `${where}/${key}`);
    }
    if (typeof node.minLength === 'number' && typeof node.maxLength === 'number' && node.minLength > node.maxLength) problems.push(`${where || '/'}: minLength is above maxLength`);
    if (typeof node.minimum === 'number' && typeof node.maximum === 'number' && node.minimum > node.maximum) problems.push(`${where || '/'}: minimum is above maximum`);
    if (typeof node.minItems === 'number' && typeof node.maxItems === 'number' && node.minItems > node.maxItems) problems.push(`${where || '/'}: minItems is above maxItems`);
    if (Array.isArray(node.enum) && node.enum.length === 0) problems.push(`${where || '/'}: an empty enum can never be satisfied`);
    if (Array.isArray(node.required) && node.properties && node.additionalProperties === false) {
      for (const r of node.required) if (!(r in node.properties)) problems.push(`${where || '/'}: "${r}" is required but not allowed`);
    }
  };
  walk(schema, '');
  return problems;
}

function fieldSchema(command, field) {
  const source = CATALOGUE[command]?.payloadSchema?.properties?.[field] ?? {};
  const { description: _ignored, ...rest } = source;
  return structuredClone(rest);
}

/** The values a step gets at run time: parameters, bindings, constants (unbound = constant). */
function resolveSpecs(draft) {
  const bound = new Map(draft.params.filter((p) => p.bound).map((p) => [p.name, p]));
  const unbound = new Map(draft.params.filter((p) => !p.bound).map((p) => [p.name, p]));
  return draft.steps.map((step) => ({
    command: step.command,
    args: Object.fromEntries(Object.entries(step.args).map(([field, spec]) => {
      if (spec.from === 'param' && unbound.has(spec.name)) return [field, { from: 'const', value: structuredClone(unbound.get(spec.name).recorded) }];
      if (spec.from === 'param' && !bound.has(spec.name)) return [field, { from: 'const', value: null }];
      return [field, structuredClone(spec)];
    })),
  }));
}

/**
 * compile(draft, {name, title, description}) -> { definition, problems }
 * `definition` is what gets approved, hashed, stored and registered; `problems` (plain
 * sentences saying what to fix) block publishing when not empty.
 */
export function compile(draft, meta) {
  const problems = [];
  const name = String(meta.name ?? '').trim();
  const description = String(meta.description ?? '').trim();
  if (!TOOL_NAME.test(name)) problems.push(`Name: use 1 to ${BUDGET.name} characters: lower-case letters, digits and _, starting with a letter (for example assign_refund).`);
  if (name.startsWith(RESERVED_PREFIX)) problems.push(`Name: names starting with "${RESERVED_PREFIX}" are reserved for Understudy's own tools.`);
  if (!description) problems.push('Description: say in a sentence what the tool does and when to use it.');
  if (description.length > BUDGET.description) problems.push(`Description: ${description.length} characters; the limit is ${BUDGET.description}.`);
  const properties = {};
  const required = [];
  for (const p of draft.params.filter((x) => x.bound)) {
    const text = String(p.description ?? '').trim();
    if (!text) problems.push(`Parameter ${p.name}: describe what it is (for example "The ticket to refund").`);
    if (text.length > BUDGET.paramDescription) problems.push(`Parameter ${p.name}: the description has ${text.length} characters; the limit is ${BUDGET.paramDescription}.`);
    if (!/^[a-z][a-z0-9_]{0,39}$/.test(p.name)) problems.push(`Parameter ${p.name}: use lower-case letters, digits and _ only.`);
    const schema = { ...fieldSchema(p.command, p.field), description: text };
    if (p.fallback) schema.default = structuredClone(p.recorded);
    else required.push(p.name);
    properties[p.name] = schema;
  }
  const inputSchema = { type: 'object', properties, required, additionalProperties: false };
  for (const issue of lintSchema(inputSchema)) problems.push(`Input schema: ${issue}.`);
  const steps = resolveSpecs(draft);
  const mutates = steps.some((s) => CATALOGUE[s.command]?.mutates);
  const customerText = steps.some((s) => CATALOGUE[s.command]?.returnsCustomerText);
  const definition = {
    name,
    title: String(meta.title ?? '').trim(),
    description,
    inputSchema,
    annotations: { readOnlyHint: !mutates, untrustedContentHint: customerText },
    steps,
    catalogueVersion: CATALOGUE_VERSION,
    // What each command looked like when this was recorded: after an app update, the shell
    // compares these with the catalogue to grade drift.
    commandSchemas: Object.fromEntries([...new Set(steps.map((s) => s.command))].map((id) => [id, structuredClone(CATALOGUE[id].payloadSchema)])),
  };
  return { definition, problems };
}

/** Recompute a definition's annotations from the catalogue (imports never keep their own). */
export function computedAnnotations(steps) {
  return {
    readOnlyHint: !steps.some((s) => CATALOGUE[s.command]?.mutates),
    untrustedContentHint: steps.some((s) => CATALOGUE[s.command]?.returnsCustomerText),
  };
}

/** What the tool does, in plain words, composed by the app from the steps (never by a model). */
export function plainSummary(definition) {
  const params = Object.keys(definition.inputSchema.properties);
  const changes = definition.steps.filter((s) => CATALOGUE[s.command]?.mutates).map((s) => CATALOGUE[s.command].title.toLowerCase());
  const reads = definition.steps.filter((s) => !CATALOGUE[s.command]?.mutates).map((s) => CATALOGUE[s.command].title.toLowerCase());
  const parts = [`"${definition.name}" runs ${definition.steps.length} recorded step${definition.steps.length === 1 ? '' : 's'}`];
  if (params.length) parts.push(`with the parameter${params.length === 1 ? '' : 's'} ${params.join(', ')}`);
  let text = `${parts.join(' ')}.`;
  text += changes.length ? ` It changes tickets: ${[...new Set(changes)].join(', ')}.` : ' It only reads; it changes nothing.';
  if (reads.length) text += ` It also does: ${[...new Set(reads)].join(', ')}.`;
  return text;
}
