// Running a taught tool where the page is the whole app (a plain browser): the steps the
// page's own registry (js/teach/registry.js) hands over, once it has checked the tool still
// hashes to its approval, through the same bus the console's clicks use. In the desktop app
// nothing here runs: the shell applies every run's steps itself (model/runs.py) and the page
// only draws what changed.
// - Every step must be a command of this console's catalogue, checked before anything runs.
// - A run past its deadline does not start (the caller was already told it timed out).
// - All or nothing: when a step fails or the call is aborted, the run's own changes are undone
//   through the bus's undo records; a person's later edits to the same fields are kept.
// - Failures resolve (never throw) with isError and a code, because a thrown error reaches the
//   agent only as an opaque UnknownError.
import { CATALOGUE } from '../catalogue.js';
import { validatePayload } from '../validate.js';
import { BUDGET } from './compile.js';
import { createRunView } from '../queue_state.js';
import { refKind } from '../words.js';
import { stringify } from '../safe_json.js';

/**
 * @typedef {import('./generalize.js').ArgSpec} ArgSpec
 * @typedef {Protocol.Step} Step
 * @typedef {import('../queue_state.js').QueueState} QueueState
 * @typedef {import('../queue_state.js').FieldValue} FieldValue
 */
/**
 * A run that did not happen, or was undone: why, in words, and where it stopped.
 * @typedef {object} RunFailure
 * @property {true} isError
 * @property {string} code
 * @property {string} message
 * @property {number} [failedStep] 1-based: the step the library offers to repair
 * @property {number} [stoppedAt]
 * @property {boolean} [rolledBack]
 * @property {Array<{ ticket_id: string, field: string }>} [kept] fields left as someone changed them since
 * @property {string} [command]
 * @property {string} [reason]
 */
/**
 * A run that happened: its tickets, the last step's result, and (for the shell only) what it
 * wrote, [ticket, field, value] per field.
 * @typedef {{ ok: true, tool: string, steps: number, changed: string[], result: unknown, changes?: Array<[string, string, FieldValue | undefined]> }} RunSuccess
 * @typedef {RunSuccess | RunFailure} RunAnswer
 */
/** What is to run: exactly these steps, asking these questions. @typedef {{ name: string, inputSchema: Protocol.JsonSchema, steps: Step[] }} Runnable */
/** The step a run is at, for the toast and the highlight. @typedef {{ index: number, command: string, title: string, control: string | null }} RunStep */

/**
 * @param {string} code
 * @param {string} message
 * @param {Partial<RunFailure>} [extra]
 * @returns {RunFailure}
 */
function fail(code, message, extra = {}) {
  return { isError: true, code, message, ...extra };
}

/**
 * Keep a result inside the output budget by trimming its lists, never by cutting JSON.
 * @template T
 * @param {T} result
 * @param {number} [budget]
 * @returns {T}
 */
export function compact(result, budget = BUDGET.output) {
  let out = structuredClone(result);
  for (let limit = 20; stringify(out).length > budget && limit >= 0; limit -= 5) {
    out = structuredClone(result);
    /** @param {Record<string, unknown>} obj */
    const trim = (obj) => {
      for (const [k, v] of Object.entries(obj)) {
        if (Array.isArray(v) && v.length > limit) { obj[k] = v.slice(0, limit); obj[`${k}_more`] = v.length - limit; }
        else if (typeof v === 'string' && v.length > 200) obj[k] = `${v.slice(0, 200)}…`;
        else if (v && typeof v === 'object') trim(/** @type {Record<string, unknown>} */ (v));
      }
    };
    trim(/** @type {Record<string, unknown>} */ (out));
  }
  return out;
}

/**
 * @param {Step} step
 * @param {Record<string, unknown>} input
 * @param {unknown[]} results what each earlier step's command returned
 * @returns {Record<string, unknown>}
 */
function resolveArgs(step, input, results) {
  /** @type {Record<string, unknown>} */
  const payload = {};
  for (const [field, spec] of Object.entries(step.args)) {
    if (spec.from === 'param') {
      // A question left unanswered (optional, no default) leaves its field out.
      if (input[spec.name] !== undefined) payload[field] = structuredClone(input[spec.name]);
    } else if (spec.from === 'const') payload[field] = structuredClone(spec.value);
    else if (spec.from === 'step') {
      // A command's result is an object (or null): its fields are what a binding reads.
      const earlier = /** @type {Record<string, unknown> | null | undefined} */ (results[spec.step]);
      if (!earlier || !(spec.path in earlier)) throw new Error(`step ${spec.step + 1} gave no ${spec.path}`);
      payload[field] = structuredClone(earlier[spec.path]);
    } else throw new Error(`unknown value source for ${field}`);
  }
  return payload;
}

const UNASSIGNED = '__unassigned__';

/**
 * A person or a template on this queue, found by id, else by the name the tool keeps.
 * @param {QueueState} state
 * @param {'person' | 'template'} kind
 * @param {unknown} value
 * @param {string | null | undefined} name
 * @param {boolean} asked whether whoever runs it gave the value (else the tool keeps it)
 * @param {number} step
 */
function resolveRef(state, kind, value, name, asked, step) {
  if (value === null || value === undefined || value === '' || value === UNASSIGNED) return value;
  /** @type {Array<{ id: string, name?: string, email?: string }>} */
  const list = kind === 'person' ? state.assignees : state.templates;
  if (list.some((x) => x.id === value)) return value;
  const wanted = String(name ?? value).trim().toLowerCase();
  const hit = list.find((x) => String(x.name ?? '').toLowerCase() === wanted || String(x.email ?? '').toLowerCase() === wanted);
  if (hit) return hit.id;
  if (asked) {
    throw new RefMissing(kind === 'person'
      ? 'The person you chose is not on this queue. Choose one that is.'
      : 'The reply template you chose is not on this queue. Choose one that is.');
  }
  // Never repeats the value: it may come from a colleague's pack or an agent's draft, and an
  // error is read by the next model. The step number says where (runs.py says the same).
  throw new RefMissing(kind === 'person'
    ? `The person step ${step + 1} assigns to is not on this queue. Choose someone who is, or repair the tool.`
    : `The reply template step ${step + 1} uses is not on this queue. Choose one that is, or repair the tool.`);
}

class RefMissing extends Error {
  step = -1; // the step whose person or template is missing
}

/**
 * The tool's people and templates, found on this queue before anything runs: by id, else by
 * name (a tool made on another queue, or imported from a colleague, names Priya Raman where
 * this queue knows her as priya-raman). A value asked each time may be a name too.
 * @param {QueueState} state
 * @param {Step[]} steps
 * @param {Record<string, unknown>} values
 */
function resolveRefs(state, steps, values) {
  const resolved = structuredClone(steps);
  const asked = { ...values };
  resolved.forEach((step, index) => {
    for (const [field, spec] of Object.entries(step.args)) {
      const kind = refKind(step.command, field);
      if (!kind) continue;
      try {
        if (spec.from === 'const') spec.value = resolveRef(state, kind, spec.value, spec.ref?.name, false, index);
        else if (spec.from === 'param' && asked[spec.name] !== undefined) asked[spec.name] = resolveRef(state, kind, asked[spec.name], null, true, index);
      } catch (err) {
        if (err instanceof RefMissing) err.step = index; // so the library offers "Repair step N"
        throw err;
      }
    }
  });
  return { steps: resolved, values: asked };
}

/**
 * runTool({ definition, input, signal, bus, by, onStep, deadline })
 *   definition  { name, inputSchema, steps }: exactly what is to run
 *   by          'agent' or 'person', for badges and the library's counts
 *   deadline    Date.now() milliseconds after which the run must not start (or null)
 * Steps run one after another without yielding: a run is one change of the queue, drawn once.
 * @param {object} options
 * @param {Runnable} options.definition
 * @param {Record<string, unknown> | null} [options.input]
 * @param {AbortSignal | null} [options.signal]
 * @param {import('../bus.js').Bus} options.bus
 * @param {string} [options.by]
 * @param {(step: RunStep) => void} [options.onStep]
 * @param {number | null} [options.deadline]
 * @param {() => number} [options.now]
 * @returns {Promise<RunAnswer>}
 */
export async function runTool({ definition, input = {}, signal = null, bus, by = 'agent', onStep = (_step) => {}, deadline = null, now = Date.now }) {
  if (deadline !== null && now() > deadline) return fail('timeout', 'It did not start in time, so nothing was changed.');
  const unknown = definition.steps.findIndex((s) => !Object.hasOwn(CATALOGUE, s.command));
  if (unknown >= 0) return fail('not_approved', `Step ${unknown + 1} is not a command of this console. Nothing was changed.`, { failedStep: unknown + 1 });
  const problems = validatePayload(definition.inputSchema, input ?? {});
  if (problems.length) return fail('invalid_input', `The arguments do not fit the tool: ${problems.join('; ')}.`);
  const given = { ...(input ?? {}) };
  for (const [name, schema] of Object.entries(definition.inputSchema.properties ?? {})) {
    if (!(name in given) && 'default' in schema) given[name] = structuredClone(schema.default);
  }
  let steps;
  let values;
  try {
    ({ steps, values } = resolveRefs(bus.state, definition.steps, given));
  } catch (err) {
    if (err instanceof RefMissing) return fail('not_found', `${err.message} Nothing was changed.`, { failedStep: err.step + 1 });
    throw err;
  }
  const results = /** @type {unknown[]} */ ([]);
  const seqs = /** @type {number[]} */ ([]);
  const changed = /** @type {Set<string>} */ (new Set());
  const writes = /** @type {Map<string, [string, string, FieldValue | undefined]>} */ (new Map()); // "ticket\u0000field" -> [ticket, field, value]: the run's net changes
  const run = { tool: definition.name, by };
  const view = createRunView(); // the run's own filter and open ticket, never the person's

  async function rollback() {
    const kept = /** @type {Array<{ ticket_id: string, field: string }>} */ ([]);
    for (const seq of [...seqs].reverse()) {
      const undone = bus.undo(seq);
      if (undone && undone.kept) kept.push(...undone.kept);
    }
    return kept;
  }

  for (let i = 0; i < steps.length; i += 1) {
    const step = steps[i];
    const title = CATALOGUE[step.command]?.title ?? step.command;
    if (signal?.aborted) {
      const kept = await rollback();
      return fail('cancelled', `Stopped before step ${i + 1} (${title}); the changes it had made were undone.`, { stoppedAt: i + 1, rolledBack: seqs.length > 0, kept });
    }
    let payload;
    try {
      payload = resolveArgs(step, values, results);
    } catch (err) {
      const kept = await rollback();
      return fail('step_failed', `Step ${i + 1} (${title}) could not start: ${/** @type {Error} */ (err).message}. Earlier changes were undone.`, { failedStep: i + 1, command: step.command, rolledBack: seqs.length > 0, kept });
    }
    onStep({ index: i, command: step.command, title, control: CATALOGUE[step.command]?.control ?? null });
    const outcome = bus.dispatch(step.command, payload, { source: 'tool', control: CATALOGUE[step.command]?.control ?? null, run, view });
    if (outcome.ok === false) {
      const kept = await rollback();
      return fail('step_failed', `Step ${i + 1} (${title}) failed: ${outcome.error.message} ${seqs.length ? 'The changes made before it were undone.' : 'Nothing had changed yet.'}`, { failedStep: i + 1, command: step.command, reason: outcome.error.code, rolledBack: seqs.length > 0, kept });
    }
    results.push(outcome.result);
    const entry = bus.log().find((e) => e.seq === outcome.seq);
    if (entry?.changes?.length) {
      seqs.push(outcome.seq);
      for (const c of entry.changes) {
        changed.add(c.ticket_id);
        writes.set(`${c.ticket_id}\u0000${c.field}`, [c.ticket_id, c.field, c.after]);
      }
    }
  }
  const last = results.at(-1) ?? null;
  const answer = compact(/** @type {RunSuccess} */ ({ ok: true, tool: definition.name, steps: steps.length, changed: [...changed], result: last }));
  // For the shell, which keeps them before the caller hears of the run (never shown to agents).
  answer.changes = [...writes.values()];
  return answer;
}
