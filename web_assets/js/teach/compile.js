// From a reviewed procedure to a WebMCP tool definition. The input schema is built here from
// the catalogue's own field schemas, never written by an agent; annotations are computed from
// the catalogue, never hand-set. Budgets and the schema lint block publishing.
import { CATALOGUE, CATALOGUE_VERSION } from '../catalogue.js';
import { fieldWords, stepSentence } from '../words.js';
import RULES from '../../data/rules.json' with { type: 'json' };

/**
 * @typedef {import('./generalize.js').Draft} Draft
 * @typedef {import('./generalize.js').ArgSpec} ArgSpec
 * @typedef {Protocol.Step} Step
 * @typedef {Protocol.JsonSchema} JsonSchema
 * @typedef {{ readOnlyHint: boolean, untrustedContentHint: boolean }} Annotations
 */
/**
 * A tool as it is approved, hashed, stored and registered.
 * @typedef {object} Definition
 * @property {string} name what agents call it
 * @property {string} title what people see it called
 * @property {string} description
 * @property {JsonSchema} inputSchema the questions it asks, built from the catalogue's schemas
 * @property {Annotations | Record<string, unknown>} [annotations] computed from the catalogue
 * @property {Step[]} steps
 * @property {number} [catalogueVersion]
 * @property {Record<string, JsonSchema>} [commandSchemas] each command as it was when recorded
 */
/** @typedef {{ name?: string, title?: string, description?: string }} Meta */

// Budgets, name rules and the lint's keyword policy come from data/rules.json, which the
// desktop shell reads too (one file, so the page and the shell cannot disagree).
export const BUDGET = Object.freeze({ ...RULES.budgets });
/**
 * 1 to `budget` lower-case letters, digits or _, starting with a letter (rules.py: identifier).
 * @param {number} budget
 */
export function identifier(budget) {
  return new RegExp(`^[a-z][a-z0-9_]{0,${budget - 1}}$`);
}
export const TOOL_NAME = identifier(RULES.budgets.name);
export const PARAM_NAME = identifier(RULES.budgets.paramName);
const RESERVED_PREFIX = RULES.reservedPrefix;
const LINT = RULES.schemaLint;
const KNOWN_KEYWORDS = new Set(LINT.keywords);
const FORBIDDEN = new Set(LINT.forbidden);
const SUBSCHEMA = new Set(LINT.subschemaKeywords);

/**
 * Lint an input schema: 2020-12, object root, known keywords, no $ref, satisfiable.
 * @param {unknown} schema
 * @returns {string[]}
 */
export function lintSchema(schema) {
  /** @type {string[]} */
  const problems = [];
  if (!isSchema(schema)) return ['the input schema must be a JSON object'];
  if (schema.type !== 'object') problems.push('the input schema must describe an object (type: "object")');
  if ('$schema' in schema && schema.$schema !== LINT.dialect) problems.push('only JSON Schema 2020-12 is accepted');
  walk(schema, '', problems);
  return problems;
}

/**
 * @param {unknown} value
 * @returns {value is JsonSchema}
 */
function isSchema(value) {
  return Boolean(value) && typeof value === 'object' && !Array.isArray(value);
}

/**
 * @param {JsonSchema} node
 * @param {string} low
 * @param {string} high
 * @param {string} where
 * @param {string[]} problems
 */
function bounds(node, low, high, where, problems) {
  const [min, max] = [node[low], node[high]];
  if (typeof min === 'number' && typeof max === 'number' && min > max) problems.push(`${where || '/'}: ${low} is above ${high}`);
}

/**
 * @param {unknown} node
 * @param {string} where
 * @param {string[]} problems
 */
function walk(node, where, problems) {
  if (Array.isArray(node)) { node.forEach((n, i) => walk(n, `${where}/${i}`, problems)); return; }
  if (!isSchema(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (FORBIDDEN.has(key)) problems.push(`${where || '/'}: $ref is not allowed`);
    // Never the key itself, nor a property's name in the path: both are the author's text,
    // and an agent reads these (lint.py says the same).
    else if (!KNOWN_KEYWORDS.has(key)) problems.push(`${where || '/'}: a keyword that is not allowed`);
    if (key === 'properties' && value && typeof value === 'object' && !Array.isArray(value)) {
      Object.values(value).forEach((sub, i) => walk(sub, `${where}/properties/${i + 1}`, problems));
    } else if (SUBSCHEMA.has(key) || (key === 'additionalProperties' && value && typeof value === 'object' && !Array.isArray(value))) {
      walk(value, `${where}/${key}`, problems);
    }
  }
  bounds(node, 'minLength', 'maxLength', where, problems);
  bounds(node, 'minimum', 'maximum', where, problems);
  bounds(node, 'minItems', 'maxItems', where, problems);
  if (Array.isArray(node.enum) && node.enum.length === 0) problems.push(`${where || '/'}: an empty enum can never be satisfied`);
  if (node.additionalProperties === false && Array.isArray(node.required) && node.properties && typeof node.properties === 'object') {
    for (const r of node.required) if (!(r in node.properties)) problems.push(`${where || '/'}: a required property is not among its properties`);
  }
}

/**
 * @param {string} command
 * @param {string} field
 * @returns {JsonSchema}
 */
function fieldSchema(command, field) {
  const source = CATALOGUE[command]?.payloadSchema?.properties?.[field] ?? {};
  const { description: _ignored, ...rest } = source;
  return structuredClone(rest);
}

/**
 * The values a step gets at run time: parameters, bindings, constants (unbound = constant).
 * @param {Draft} draft
 * @returns {Step[]}
 */
function resolveSpecs(draft) {
  const bound = new Map(draft.params.filter((p) => p.bound).map((p) => [p.name, p]));
  const unbound = new Map(draft.params.filter((p) => !p.bound).map((p) => [p.name, p]));
  return draft.steps.map((step) => ({
    command: step.command,
    args: Object.fromEntries(Object.entries(step.args).map(([field, spec]) => {
      const p = spec.from === 'param' ? unbound.get(spec.name) : undefined;
      if (p) {
        /** @type {Protocol.ConstArg} */
        const fixed = { from: 'const', value: structuredClone(p.recorded) };
        return [field, p.recordedRef?.name ? { ...fixed, ref: { kind: p.recordedRef.kind, name: p.recordedRef.name } } : fixed];
      }
      if (spec.from === 'param' && !bound.has(spec.name)) return [field, { from: 'const', value: null }];
      return [field, structuredClone(spec)];
    })),
  }));
}

/**
 * compile(draft, {name, title, description}) -> { definition, problems }
 * `definition` is what gets approved, hashed, stored and registered; `problems` (plain
 * sentences saying what to fix) block publishing when not empty.
 * @param {Draft} draft
 * @param {Meta} meta
 * @returns {{ definition: Definition, problems: string[] }}
 */
export function compile(draft, meta) {
  /** @type {string[]} */
  const problems = [];
  const name = String(meta.name ?? '').trim();
  const description = String(meta.description ?? '').trim();
  const title = String(meta.title ?? '').trim();
  if (title.length > BUDGET.title) problems.push(`Name: ${title.length} characters; the limit is ${BUDGET.title}.`);
  if (!TOOL_NAME.test(name)) problems.push(`What agents call it: use 1 to ${BUDGET.name} characters: lower-case letters, digits and _, starting with a letter (for example assign_refund).`);
  if (name.startsWith(RESERVED_PREFIX)) problems.push(`What agents call it: names starting with “${RESERVED_PREFIX}” are reserved for Understudy's own tools.`);
  if (!description) problems.push('Description: say in a sentence what the tool does and when to use it.');
  if (description.length > BUDGET.description) problems.push(`Description: ${description.length} characters; the limit is ${BUDGET.description}.`);
  /** @type {Record<string, JsonSchema>} */
  const properties = {};
  /** @type {string[]} */
  const required = [];
  for (const p of draft.params.filter((x) => x.bound)) {
    const text = String(p.description ?? '').trim();
    const asked = fieldWords(p.command, p.field).asked;
    if (!text) problems.push(`Say in a few words what ${asked} is, for whoever runs the tool (for example "The ticket to refund").`);
    if (text.length > BUDGET.paramDescription) problems.push(`What ${asked} is: ${text.length} characters; the limit is ${BUDGET.paramDescription}.`);
    if (!PARAM_NAME.test(p.name)) problems.push(`The name for ${asked} can use lower-case letters, digits and _ only.`);
    const schema = { ...fieldSchema(p.command, p.field), description: text };
    if (p.fallback) schema.default = structuredClone(p.recorded);
    else required.push(p.name);
    properties[p.name] = schema;
  }
  const inputSchema = { type: 'object', properties, required, additionalProperties: false };
  for (const issue of lintSchema(inputSchema)) problems.push(`Input schema: ${issue}.`);
  const steps = resolveSpecs(draft);
  /** @type {Definition} */
  const definition = {
    name,
    title,
    description,
    inputSchema,
    annotations: computedAnnotations(steps),
    steps,
    catalogueVersion: CATALOGUE_VERSION,
    // What each command looked like when this was recorded: after an app update, the shell
    // compares these with the catalogue to grade drift.
    commandSchemas: Object.fromEntries([...new Set(steps.map((s) => s.command))].map((id) => [id, structuredClone(CATALOGUE[id].payloadSchema)])),
  };
  return { definition, problems };
}

/**
 * Recompute a definition's annotations from the catalogue (imports never keep their own).
 * @param {Array<{ command: string }>} steps
 * @returns {Annotations}
 */
export function computedAnnotations(steps) {
  return {
    readOnlyHint: !steps.some((s) => CATALOGUE[s.command]?.mutates),
    untrustedContentHint: steps.some((s) => CATALOGUE[s.command]?.returnsCustomerText),
  };
}

/**
 * What the tool does, in plain words, composed by the app from the steps (never by a model).
 * @param {{ steps: Step[] }} definition
 */
export function plainSummary(definition) {
  const steps = definition.steps.map((s) => stepSentence(s));
  const changes = definition.steps.some((s) => CATALOGUE[s.command]?.mutates);
  return `${steps.join('. ')}.${changes ? '' : ' It only reads; it changes nothing.'}`;
}
