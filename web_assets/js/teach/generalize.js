// From a recording to a procedure: a linear list of the recorded steps, unchanged, where each
// payload value is a parameter, a binding to an earlier step's result, or a constant.
//
// Rules (in this order):
//  1. An entity id (ticket_id) that an earlier step's result produced becomes a binding.
//  2. Any other entity id becomes a parameter: never a frozen constant, or the tool keeps
//     hitting last week's ticket. If no earlier step picked it and the step changes tickets,
//     the panel shows an "unexplained selection" warning.
//  3. A typed or picked value becomes a candidate parameter (bound; the person may unbind it).
//  4. Everything else is a constant.
import { CATALOGUE } from '../catalogue.js';

const PARAM_NAMES = { text: 'phrase', tags: 'tags' };

export class GeneralizeError extends Error {}

function sameValue(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

function paramNameFor(field) {
  return PARAM_NAMES[field] ?? field;
}

function findBinding(steps, index, value, catalogue) {
  for (let j = index - 1; j >= 0; j -= 1) {
    const result = steps[j].result;
    if (!result || typeof result !== 'object' || !catalogue[steps[j].command]) continue;
    for (const [key, v] of Object.entries(result)) {
      if (key === 'ticket_id' && v === value) return { from: 'step', step: j, path: key };
    }
  }
  return null;
}

/** A person-facing description of a step, composed by the app (never by a model). */
export function describeStep(step, catalogue = CATALOGUE) {
  return catalogue[step.command]?.title ?? step.command;
}

export function generalize(recording, { catalogue = CATALOGUE } = {}) {
  if (!recording?.steps?.length) throw new GeneralizeError('This recording has no steps. Press Teach, do the routine once, then Stop.');
  const params = [];
  const warnings = [];
  const steps = recording.steps.map((step, index) => {
    const command = catalogue[step.command];
    if (!command) throw new GeneralizeError(`Step ${index + 1} uses "${step.command}", which this console no longer has.`);
    const args = {};
    for (const [field, value] of Object.entries(step.payload)) {
      const kind = step.provenance?.[field] ?? 'constant';
      if (command.entityFields.includes(field)) {
        const binding = findBinding(recording.steps, index, value, catalogue);
        if (binding) {
          args[field] = binding;
          continue;
        }
        if (command.mutates) {
          warnings.push({ step: index, field, code: 'unexplained_selection', message: `Step ${index + 1} (${command.title}) changes a ticket that no earlier step of the routine picked. It becomes the parameter "${paramNameFor(field)}": whoever runs the tool says which ticket.` });
        }
      } else if (kind !== 'typed' && kind !== 'picked') {
        args[field] = { from: 'const', value: structuredClone(value) };
        continue;
      }
      // Same field and same value in several steps: one parameter.
      let param = params.find((p) => p.field === field && sameValue(p.recorded, value));
      if (!param) {
        const base = paramNameFor(field);
        let name = base;
        for (let n = 2; params.some((p) => p.name === name); n += 1) name = `${base}_${n}`;
        // The catalogue's own words for the field are a sensible first description.
        const description = command.payloadSchema.properties[field]?.description ?? '';
        param = { name, field, command: step.command, recorded: structuredClone(value), description, bound: true, fallback: false, kind: command.entityFields.includes(field) ? 'entity' : kind };
        params.push(param);
      }
      args[field] = { from: 'param', name: param.name };
    }
    return { command: step.command, args };
  });
  return { recordingId: recording.id, steps, params, warnings };
}

/**
 * Two recordings of the same routine: values that differ between them are what changes from
 * one run to the next, so they become parameters; values that agree become constants.
 */
export function generalizePair(first, second, { catalogue = CATALOGUE } = {}) {
  const a = first?.steps ?? [];
  const b = second?.steps ?? [];
  const sequence = (steps) => steps.map((s) => s.command).join(' → ');
  if (a.length !== b.length || a.some((s, i) => s.command !== b[i].command)) {
    throw new GeneralizeError(`These two recordings do not do the same steps, so they cannot be paired. First: ${sequence(a) || '(empty)'}. Second: ${sequence(b) || '(empty)'}.`);
  }
  const merged = structuredClone(first);
  merged.steps.forEach((step, i) => {
    const other = b[i];
    const provenance = {};
    for (const field of Object.keys(step.payload)) {
      provenance[field] = sameValue(step.payload[field], other.payload[field]) && !catalogue[step.command].entityFields.includes(field)
        ? 'constant' : (step.provenance?.[field] === 'context' ? 'context' : 'typed');
    }
    step.provenance = provenance;
  });
  const draft = generalize(merged, { catalogue });
  draft.pairedWith = second.id;
  return draft;
}
