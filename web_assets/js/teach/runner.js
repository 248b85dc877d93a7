// Running a taught tool: the recorded steps, through the same bus the console uses.
// - Only command ids of the tool's *approved* definition may run (checked per step against the
//   stored approval, not against the steps being run, so a tampered step list is refused).
// - The call's AbortSignal is checked between steps.
// - All or nothing: when a step fails or the call is aborted, the run's own changes are undone
//   through the bus's undo records; a person's later edits to the same fields are kept.
// - Failures resolve (never throw) with isError and a code, because a thrown error reaches the
//   agent only as an opaque UnknownError.
import { CATALOGUE } from '../catalogue.js';
import { validatePayload } from '../validate.js';
import { BUDGET } from './compile.js';

const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

function fail(code, message, extra = {}) {
  return { isError: true, code, message, ...extra };
}

/** Keep a result inside the output budget by trimming its lists, never by cutting JSON. */
export function compact(result, budget = BUDGET.output) {
  let out = structuredClone(result);
  for (let limit = 20; JSON.stringify(out).length > budget && limit >= 0; limit -= 5) {
    out = structuredClone(result);
    const trim = (obj) => {
      for (const [k, v] of Object.entries(obj)) {
        if (Array.isArray(v) && v.length > limit) { obj[k] = v.slice(0, limit); obj[`${k}_more`] = v.length - limit; }
        else if (typeof v === 'string' && v.length > 200) obj[k] = `${v.slice(0, 200)}…`;
        else if (v && typeof v === 'object') trim(v);
      }
    };
    trim(out);
  }
  return out;
}

function resolveArgs(step, input, results) {
  const payload = {};
  for (const [field, spec] of Object.entries(step.args)) {
    if (spec.from === 'param') payload[field] = structuredClone(input[spec.name]);
    else if (spec.from === 'const') payload[field] = structuredClone(spec.value);
    else if (spec.from === 'step') {
      const earlier = results[spec.step];
      if (!earlier || !(spec.path in earlier)) throw new Error(`step ${spec.step + 1} gave no ${spec.path}`);
      payload[field] = structuredClone(earlier[spec.path]);
    } else throw new Error(`unknown value source for ${field}`);
  }
  return payload;
}

/**
 * runTool({ definition, approvedCommands, input, signal, bus, by, onStep, tick })
 *   definition        the tool as it is now (steps may have been tampered with)
 *   approvedCommands  command ids of the definition as it was approved (from storage)
 *   by                'agent' or 'person', for badges and the library's counts
 */
export async function runTool({ definition, approvedCommands, input = {}, signal = null, bus, by = 'agent', onStep = () => {}, tick = nextTask }) {
  const problems = validatePayload(definition.inputSchema, input ?? {});
  if (problems.length) return fail('invalid_input', `The arguments do not fit the tool: ${problems.join('; ')}.`);
  const values = { ...(input ?? {}) };
  for (const [name, schema] of Object.entries(definition.inputSchema.properties ?? {})) {
    if (!(name in values) && 'default' in schema) values[name] = structuredClone(schema.default);
  }
  const allowed = new Set(approvedCommands);
  const results = [];
  const seqs = [];
  const changed = new Set();
  const run = { tool: definition.name, by };

  async function rollback() {
    const kept = [];
    for (const seq of [...seqs].reverse()) {
      const undone = bus.undo(seq);
      if (undone && undone.kept) kept.push(...undone.kept);
    }
    return kept;
  }

  for (let i = 0; i < definition.steps.length; i += 1) {
    const step = definition.steps[i];
    const title = CATALOGUE[step.command]?.title ?? step.command;
    if (signal?.aborted) {
      const kept = await rollback();
      return fail('cancelled', `Stopped before step ${i + 1} (${title}); the changes it had made were undone.`, { stoppedAt: i + 1, rolledBack: seqs.length > 0, kept });
    }
    if (!allowed.has(step.command)) {
      const kept = await rollback();
      return fail('not_approved', `Step ${i + 1} runs "${step.command}", which is not in this tool's approved recording. Nothing was changed.`, { failedStep: i + 1, rolledBack: seqs.length > 0, kept });
    }
    let payload;
    try {
      payload = resolveArgs(step, values, results);
    } catch (err) {
      const kept = await rollback();
      return fail('step_failed', `Step ${i + 1} (${title}) could not start: ${err.message}. Earlier changes were undone.`, { failedStep: i + 1, command: step.command, rolledBack: seqs.length > 0, kept });
    }
    onStep({ index: i, command: step.command, title, control: CATALOGUE[step.command]?.control ?? null });
    const outcome = bus.dispatch(step.command, payload, { source: 'tool', control: CATALOGUE[step.command]?.control ?? null, run });
    if (!outcome.ok) {
      const kept = await rollback();
      return fail('step_failed', `Step ${i + 1} (${title}) failed: ${outcome.error.message} ${seqs.length ? 'The changes made before it were undone.' : 'Nothing had changed yet.'}`, { failedStep: i + 1, command: step.command, reason: outcome.error.code, rolledBack: seqs.length > 0, kept });
    }
    results.push(outcome.result);
    const entry = bus.log().find((e) => e.seq === outcome.seq);
    if (entry?.changes?.length) {
      seqs.push(outcome.seq);
      for (const c of entry.changes) changed.add(c.ticket_id);
    }
    if (i < definition.steps.length - 1) await tick();
  }
  const last = results.at(-1) ?? null;
  return compact({ ok: true, tool: definition.name, steps: definition.steps.length, changed: [...changed], result: last });
}
