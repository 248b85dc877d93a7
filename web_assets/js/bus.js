// The command bus: the single path by which anything reads or changes the queue.
// A click in the console, a call from the shell and (later) a taught tool all dispatch here, so
// there is one place to validate, one log to record from, and one undo record per change.
import { CATALOGUE, CommandError } from './catalogue.js';
import { validatePayload } from './validate.js';
import { refreshMatches, matchIds, noteChange } from './queue_state.js';
import { stringify } from './safe_json.js';

/**
 * @typedef {import('./queue_state.js').QueueState} QueueState
 * @typedef {import('./queue_state.js').View} View
 * @typedef {import('./catalogue.js').Catalogue} Catalogue
 * @typedef {import('./catalogue.js').Command} Command
 * @typedef {import('./catalogue.js').Change} Change
 */
/** @typedef {{ code: string, message: string, problems: string[] }} BusError */
/**
 * What a dispatch came to: done (with the command's result), or refused and nothing changed.
 * @typedef {{ ok: true, seq: number, result: unknown } | { ok: false, error: BusError }} Dispatched
 */
/** A taught tool's run that a command is a step of. @typedef {{ tool: string, by: string }} RunInfo */
/**
 * Where a command came from: who sent it, the control that did, where each value came from,
 * the run it is a step of, and whose view it acts on (the person's when null).
 * @typedef {object} DispatchOptions
 * @property {string} [source] 'ui' (a person's control), 'tool' (a run's step), 'shell', …
 * @property {string | null} [control]
 * @property {Record<string, string> | null} [provenance]
 * @property {RunInfo | null} [run]
 * @property {View | null} [view]
 */
/**
 * What the bus tells onChange after every change: a dispatched entry, or what an undo wrote
 * (with the seq and source of the entry it undid: a run's rollback, js/teach/runner.js).
 * @typedef {object} BusEvent
 * @property {number} seq
 * @property {string} id
 * @property {string} source
 * @property {RunInfo | null} run
 * @property {Change[]} changes
 * @property {boolean} [undone]
 */
/**
 * A dispatched command, as the log keeps it.
 * @typedef {BusEvent & {
 *   payload: Record<string, unknown>,
 *   control: string | null,
 *   provenance: Record<string, string> | null,
 *   at: string,
 *   mutates: boolean,
 *   result: unknown,
 * }} BusEntry
 */
/** @typedef {ReturnType<typeof createBus>} Bus */

const LOG_LIMIT = 500;

/** @param {unknown} result */
function summarise(result) {
  // The log keeps a compact echo of each result (not whole ticket bodies).
  const text = stringify(result ?? null);
  return text.length <= 300 ? result : { summary: `${text.slice(0, 280)}…`, bytes: text.length };
}

/**
 * createBus({ state, catalogue?, now?, onChange? })
 *   dispatch(id, payload, { source, control }) -> { ok, seq, result } | { ok:false, error:{code,message,problems} }
 *   undo(seq): revert one logged change (the change records are kept with the log entry)
 *   log(): entries, oldest first; subscribe(fn): called after every dispatch
 * @param {object} options
 * @param {QueueState} options.state
 * @param {Catalogue} [options.catalogue]
 * @param {() => Date} [options.now]
 * @param {(event: BusEvent) => void} [options.onChange]
 */
export function createBus({ state, catalogue = CATALOGUE, now = () => new Date(), onChange = (_entry) => {} }) {
  /** @type {BusState} */
  const bus = { state, catalogue, now, onChange, seq: 0, entries: [], listeners: new Set() };
  return {
    /**
     * @param {string} id
     * @param {Record<string, unknown>} [payload]
     * @param {DispatchOptions} [options]
     * @returns {Dispatched}
     */
    dispatch: (id, payload = {}, options = {}) => dispatch(bus, id, payload, options),
    /** @param {number | null | undefined} seq no entry has a missing seq: nothing is undone */
    undo: (seq) => undoEntry(bus, seq),
    /** @returns {BusEntry[]} */
    log: () => bus.entries.map((e) => ({ ...e })),
    /**
     * One logged entry by its seq (the log keeps the last 500).
     * @param {number} seq
     */
    entry: (seq) => bus.entries.find((e) => e.seq === seq) ?? null,
    /** @param {(entry: BusEntry) => void} fn */
    subscribe(fn) { bus.listeners.add(fn); return () => bus.listeners.delete(fn); },
    get catalogue() { return catalogue; },
    get state() { return state; },
  };
}

/**
 * @typedef {object} BusState
 * @property {QueueState} state
 * @property {Catalogue} catalogue
 * @property {() => Date} now
 * @property {(event: BusEvent) => void} onChange
 * @property {number} seq
 * @property {BusEntry[]} entries
 * @property {Set<(entry: BusEntry) => void>} listeners
 */

/**
 * @param {BusState} bus
 * @param {BusEntry} entry
 */
function record(bus, entry) {
  bus.entries.push(entry);
  if (bus.entries.length > LOG_LIMIT) bus.entries.splice(0, bus.entries.length - LOG_LIMIT);
  for (const fn of bus.listeners) fn(entry);
}

/**
 * `view` is whose view the command's view parts act on: the person's (the state itself, by
 * default) or a run's own (js/queue_state.js createRunView), so a taught tool's filter and
 * open ticket never become the person's.
 * @param {BusState} bus
 * @param {string} id
 * @param {Record<string, unknown>} payload
 * @param {DispatchOptions} options
 * @returns {Dispatched}
 */
function dispatch(bus, id, payload, { source = 'ui', control = null, provenance = null, run = null, view = null }) {
  const command = Object.hasOwn(bus.catalogue, id) ? bus.catalogue[id] : undefined;
  if (!command) {
    return { ok: false, error: { code: 'unknown_command', message: 'That is not a command of this console.', problems: [] } };
  }
  const problems = validatePayload(command.payloadSchema, payload);
  if (problems.length) {
    return { ok: false, error: { code: 'invalid_payload', message: `${command.title}: ${problems.join('; ')}.`, problems } };
  }
  const applied = apply(bus.state, id, command, payload, view);
  if (applied.ok === false) return applied;
  bus.seq += 1;
  /** @type {BusEntry} */
  const entry = {
    seq: bus.seq,
    id,
    payload: structuredClone(payload),
    source,
    control,
    provenance,
    run,
    at: bus.now().toISOString(),
    mutates: command.mutates,
    result: summarise(applied.result),
    changes: applied.undo,
  };
  record(bus, entry);
  bus.onChange(entry);
  return { ok: true, seq: bus.seq, result: applied.result };
}

/**
 * Run the command's handler; a handler that fails half-way leaves nothing behind.
 * @param {QueueState} state
 * @param {string} id
 * @param {Command} command
 * @param {Record<string, unknown>} payload
 * @param {View | null} view
 * @returns {{ ok: true, result: unknown, undo: Change[] } | { ok: false, error: BusError }}
 */
function apply(state, id, command, payload, view) {
  /** @type {Change[]} */
  const undo = [];
  let result;
  try {
    result = command.run(state, structuredClone(payload), undo, view ?? state);
  } catch (err) {
    revertChanges(state, undo);
    if (err instanceof CommandError) return { ok: false, error: { code: err.code, message: err.message, problems: [] } };
    console.error(`command ${id} failed`, err);
    return { ok: false, error: { code: 'internal', message: `${command.title} failed unexpectedly.`, problems: [] } };
  }
  if (undo.length) {
    for (const c of undo) noteChange(state, c.field, c.before, c.after);
    refreshMatches(state, new Set(undo.map((c) => c.ticket_id)));
    if (view && view !== state && view.matches !== null) view.matches = matchIds(state, view.filter);
  }
  return { ok: true, result, undo };
}

/**
 * @param {QueueState} state
 * @param {Change[]} changes
 */
function revertChanges(state, changes) {
  for (let i = changes.length - 1; i >= 0; i -= 1) {
    const c = changes[i];
    const t = state.byId.get(c.ticket_id);
    if (t) {
      noteChange(state, c.field, t[c.field], c.before);
      t[c.field] = Array.isArray(c.before) ? [...c.before] : c.before;
    }
  }
}

/**
 * Revert one logged change. A field someone changed again since is left alone (its current
 * value is no longer what this entry wrote) and reported in `kept`: undoing a tool's run
 * must never roll back a person's own later work.
 * @param {BusState} bus
 * @param {number | null | undefined} targetSeq
 * @returns {false | { reverted: number, kept: Array<{ ticket_id: string, field: string }> }}
 */
function undoEntry(bus, targetSeq) {
  const { state } = bus;
  const entry = bus.entries.find((e) => e.seq === targetSeq);
  if (!entry || !entry.changes.length) return false;
  /** @type {Change[]} */
  const reverted = [];
  /** @type {Change[]} */
  const kept = [];
  for (let i = entry.changes.length - 1; i >= 0; i -= 1) {
    const c = entry.changes[i];
    const t = state.byId.get(c.ticket_id);
    if (!t) continue;
    if (stringify(t[c.field]) !== stringify(c.after)) { kept.push(c); continue; }
    noteChange(state, c.field, c.after, c.before);
    t[c.field] = Array.isArray(c.before) ? [...c.before] : c.before;
    reverted.push(c);
  }
  refreshMatches(state, new Set(reverted.map((c) => c.ticket_id)));
  entry.changes = [];
  entry.undone = true;
  // What the undo wrote, as changes of their own (after = the value put back), from the
  // same source as the entry it undoes: a run's rollback is part of that run.
  bus.onChange({ seq: entry.seq, id: entry.id, undone: true, source: entry.source, run: entry.run,
    changes: reverted.map((c) => ({ ticket_id: c.ticket_id, field: c.field, before: c.after, after: c.before })) });
  return { reverted: reverted.length, kept: kept.map((c) => ({ ticket_id: c.ticket_id, field: c.field })) };
}
