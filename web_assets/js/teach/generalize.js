// From a recording to a procedure: a linear list of the recorded steps, unchanged, where each
// payload value is a parameter, a binding to an earlier step's result, or a constant. The
// desktop shell drafts an agent's tool with its own copy of these rules
// (understudy_desktop/library/generalize.py); tests/test_draft_parity.py keeps the two equal.
//
// Rules (in this order):
//  1. An entity id (ticket_id) that an earlier step's result produced becomes a binding.
//  2. Any other entity id becomes a parameter: never a frozen constant, or the tool keeps
//     hitting last week's ticket. If no earlier step picked it and the step changes tickets,
//     the panel shows an "unexplained selection" warning.
//  3. A typed or picked value becomes a candidate parameter. By default only what the routine
//     acted on is asked each time: the ticket, or the words a set-based routine searched for
//     (and, for a pair of recordings, whatever differs between them). Every other value stays
//     as the person did it ("assign to Priya"); they can let whoever runs it choose instead.
//  4. Everything else is a constant.
// A person or a template keeps its name beside its id ("ref"), so the tool can find them on
// another queue, where the same person may have another id.
import { CATALOGUE } from '../catalogue.js';
import { fieldWords, refKind } from '../words.js';
import { stringify } from '../safe_json.js';

/**
 * @typedef {import('../catalogue.js').Catalogue} Catalogue
 * @typedef {Protocol.ParamArg | Protocol.ConstArg | Protocol.StepArg} ArgSpec
 * @typedef {Protocol.Step} Step
 */
/**
 * A step as recorded: the shell's (Protocol.RecordedStep) or the page's own recorder's. Where
 * each value came from is the recorder's word, or (for a pair) "varies" or "constant".
 * @typedef {object} RecordedStep
 * @property {string} command
 * @property {Record<string, unknown>} payload
 * @property {unknown} [result]
 * @property {string | null} [control]
 * @property {Record<string, string>} [provenance]
 * @property {Record<string, Protocol.Ref>} [refs]
 */
/** @typedef {{ id: string, name?: string, createdAt?: string, steps: RecordedStep[] }} Recording */
/**
 * A value the tool could ask for each time: the field it fills, what the person did, and
 * whether it is asked (`bound`) or stays as recorded.
 * @typedef {object} Param
 * @property {string} name
 * @property {string} field
 * @property {string} command
 * @property {unknown} recorded
 * @property {Protocol.Ref | null} recordedRef
 * @property {'person' | 'template' | null} ref
 * @property {string} description
 * @property {boolean} bound
 * @property {boolean} fallback asked, with the recorded value as its default
 * @property {string} kind 'entity', 'typed', 'picked', 'varies', …
 */
/** @typedef {{ step: number, field: string, code: string, message: string }} Warning */
/**
 * A procedure: the recorded steps, each value a parameter, a binding or a constant.
 * (A repair's draft comes from no recording.)
 * @typedef {{ recordingId?: string, steps: Step[], params: Param[], warnings: Warning[], pairedWith?: string }} Draft
 */

/** @type {Record<string, string>} */
const PARAM_NAMES = { text: 'phrase', tags: 'tags' };

export class GeneralizeError extends Error {}

/**
 * @param {Protocol.ConstArg} spec
 * @param {Protocol.Ref | undefined} ref
 * @returns {Protocol.ConstArg}
 */
function withRef(spec, ref) {
  return ref?.name ? { ...spec, ref: { kind: ref.kind, name: ref.name } } : spec;
}

/** @param {unknown} a @param {unknown} b */
function sameValue(a, b) {
  return stringify(a) === stringify(b);
}

/** @param {string} field */
function paramNameFor(field) {
  return PARAM_NAMES[field] ?? field;
}

/**
 * @param {RecordedStep[]} steps
 * @param {number} index
 * @param {unknown} value
 * @param {Catalogue} catalogue
 * @returns {Protocol.StepArg | null}
 */
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

/**
 * A person-facing description of a step, composed by the app (never by a model).
 * @param {{ command: string }} step
 * @param {Catalogue} [catalogue]
 */
export function describeStep(step, catalogue = CATALOGUE) {
  return catalogue[step.command]?.title ?? step.command;
}

/**
 * @param {Recording | null | undefined} recording
 * @param {{ catalogue?: Catalogue }} [options]
 * @returns {Draft}
 */
export function generalize(recording, { catalogue = CATALOGUE } = {}) {
  if (!recording?.steps?.length) throw new GeneralizeError('This recording has no steps. Press Teach, do the routine once, then Stop.');
  /** @type {Param[]} */
  const params = [];
  /** @type {Warning[]} */
  const warnings = [];
  const steps = recording.steps.map((step, index) => {
    const command = catalogue[step.command];
    if (!command) throw new GeneralizeError(`Step ${index + 1} uses "${step.command}", which this console no longer has.`);
    /** @type {Record<string, ArgSpec>} */
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
          warnings.push({ step: index, field, code: 'unexplained_selection', message: `Step ${index + 1} changes a ticket that no earlier step opened or found, so whoever runs the tool will say which ticket.` });
        }
      } else if (kind !== 'typed' && kind !== 'picked' && kind !== 'varies') {
        args[field] = withRef({ from: 'const', value: structuredClone(value) }, step.refs?.[field]);
        continue;
      }
      // Same field and same value in several steps: one parameter.
      let param = params.find((p) => p.field === field && sameValue(p.recorded, value));
      if (!param) {
        const base = paramNameFor(field);
        let name = base;
        for (let n = 2; params.some((p) => p.name === name); n += 1) name = `${base}_${n}`;
        // Plain words for whoever runs it (the catalogue's, written for people).
        const description = fieldWords(step.command, field).describe || command.payloadSchema.properties?.[field]?.description || '';
        const entity = command.entityFields.includes(field);
        const searched = step.command === 'filter_tickets' && field === 'text';
        param = {
          name, field, command: step.command, recorded: structuredClone(value), recordedRef: step.refs?.[field] ?? null,
          ref: refKind(step.command, field), description, bound: entity || searched || kind === 'varies', fallback: false,
          kind: entity ? 'entity' : kind,
        };
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
 * @param {Recording} first
 * @param {Recording} second
 * @param {{ catalogue?: Catalogue }} [options]
 * @returns {Draft}
 */
export function generalizePair(first, second, { catalogue = CATALOGUE } = {}) {
  const a = first?.steps ?? [];
  const b = second?.steps ?? [];
  /** @param {RecordedStep[]} steps */
  const sequence = (steps) => steps.map((s) => s.command).join(' → ');
  if (a.length !== b.length || a.some((s, i) => s.command !== b[i].command)) {
    throw new GeneralizeError(`These two recordings do not do the same steps, so they cannot be paired. First: ${sequence(a) || '(empty)'}. Second: ${sequence(b) || '(empty)'}.`);
  }
  const merged = structuredClone(first);
  merged.steps.forEach((step, i) => {
    const other = b[i];
    /** @type {Record<string, string>} */
    const provenance = {};
    for (const field of Object.keys(step.payload)) {
      // What differs between the two runs is what changes from one run to the next: asked.
      // (A command this console no longer has is refused by generalize, in words.)
      provenance[field] = sameValue(step.payload[field], other.payload[field]) && !(catalogue[step.command]?.entityFields ?? []).includes(field)
        ? 'constant' : (step.provenance?.[field] === 'context' ? 'context' : 'varies');
    }
    step.provenance = provenance;
  });
  const draft = generalize(merged, { catalogue });
  draft.pairedWith = second.id;
  return draft;
}
