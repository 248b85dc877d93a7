// Fail-and-repair: a person re-does one broken step; every other step stays as approved.
// The new step keeps the broken step's parameters and bindings where its fields match (so a
// ticket id stays a parameter), and takes the re-taught values as constants otherwise. The
// result is a new definition under the same name, which must be approved again.
import { CATALOGUE } from '../catalogue.js';

/**
 * @typedef {import('./generalize.js').RecordedStep} RecordedStep
 * @typedef {import('./generalize.js').ArgSpec} ArgSpec
 * @typedef {import('./compile.js').Definition} Definition
 */

export class RepairError extends Error {}

/**
 * The step the person re-did: the one step recorded, or, when they also opened a ticket or
 * searched to get there, the one step that changed a ticket (library/checks.py agrees).
 * @param {RecordedStep[]} recordedSteps
 * @returns {RecordedStep}
 */
export function redoneStep(recordedSteps) {
  if (recordedSteps.length === 1) return recordedSteps[0];
  const changing = recordedSteps.filter((s) => CATALOGUE[s.command]?.mutates);
  if (changing.length === 1) return changing[0];
  const count = changing.length || recordedSteps.length;
  throw new RepairError(`Re-do just the one step (you recorded ${count}). Press Repair again to retry.`);
}

/**
 * @param {Definition} definition
 * @param {number} stepIndex
 * @param {RecordedStep[]} recordedSteps
 * @returns {Definition}
 */
export function repairDefinition(definition, stepIndex, recordedSteps) {
  if (!definition.steps[stepIndex]) throw new RepairError(`The tool has no step ${stepIndex + 1}.`);
  const recorded = redoneStep(recordedSteps);
  const command = CATALOGUE[recorded.command];
  if (!command) throw new RepairError('A step you recorded is not something this console can do. Press Repair again to retry.');
  const old = definition.steps[stepIndex];
  /** @type {Record<string, ArgSpec>} */
  const args = {};
  for (const [field, value] of Object.entries(recorded.payload)) {
    const before = old.args[field];
    if (before && (before.from === 'param' || before.from === 'step')) args[field] = structuredClone(before);
    else {
      const ref = recorded.refs?.[field];
      args[field] = { from: 'const', value: structuredClone(value), ...(ref?.name ? { ref: { kind: ref.kind, name: ref.name } } : {}) };
    }
  }
  // A parameter the old step used that the new one does not: it must still exist in the
  // schema only if another step uses it.
  const repaired = structuredClone(definition);
  repaired.steps[stepIndex] = { command: recorded.command, args };
  const used = new Set(repaired.steps.flatMap((s) => Object.values(s.args).flatMap((a) => (a.from === 'param' ? [a.name] : []))));
  const schema = repaired.inputSchema;
  for (const name of Object.keys(/** @type {Record<string, unknown>} */ (schema.properties))) {
    if (!used.has(name)) {
      delete schema.properties?.[name];
      schema.required = /** @type {string[]} */ (schema.required).filter((r) => r !== name);
    }
  }
  repaired.annotations = {
    readOnlyHint: !repaired.steps.some((s) => CATALOGUE[s.command]?.mutates),
    untrustedContentHint: repaired.steps.some((s) => CATALOGUE[s.command]?.returnsCustomerText),
  };
  return repaired;
}
