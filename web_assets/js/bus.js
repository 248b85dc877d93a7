// The command bus: the single path by which anything reads or changes the queue.
// A click in the console, a call from the shell and (later) a taught tool all dispatch here, so
// there is one place to validate, one log to record from, and one undo record per change.
import { CATALOGUE, CommandError } from './catalogue.js';
import { validatePayload } from './validate.js';
import { recomputeMatches, matchIds } from './queue_state.js';

const LOG_LIMIT = 500;

function summarise(result) {
  // The log keeps a compact echo of each result (not whole ticket bodies).
  const text = JSON.stringify(result ?? null);
  return text.length <= 300 ? result : { summary: `${text.slice(0, 280)}…`, bytes: text.length };
}

/**
 * createBus({ state, catalogue?, now?, onChange? })
 *   dispatch(id, payload, { source, control }) -> { ok, seq, result } | { ok:false, error:{code,message,problems} }
 *   undo(seq): revert one logged change (the change records are kept with the log entry)
 *   log(): entries, oldest first; subscribe(fn): called after every dispatch
 */
export function createBus({ state, catalogue = CATALOGUE, now = () => new Date(), onChange = (_entry) => {} }) {
  let seq = 0;
  const entries = [];
  const listeners = new Set();

  function record(entry) {
    entries.push(entry);
    if (entries.length > LOG_LIMIT) entries.splice(0, entries.length - LOG_LIMIT);
    for (const fn of listeners) fn(entry);
  }

  /**
   * `view` is whose view the command's view parts act on: the person's (the state itself, by
   * default) or a run's own (js/queue_state.js createRunView), so a taught tool's filter and
   * open ticket never become the person's.
   */
  function dispatch(id, payload = {}, { source = 'ui', control = null, provenance = null, run = null, view = null } = {}) {
    const command = Object.hasOwn(catalogue, id) ? catalogue[id] : undefined;
    if (!command) {
      return { ok: false, error: { code: 'unknown_command', message: 'That is not a command of this console.', problems: [] } };
    }
    const problems = validatePayload(command.payloadSchema, payload);
    if (problems.length) {
      return { ok: false, error: { code: 'invalid_payload', message: `${command.title}: ${problems.join('; ')}.`, problems } };
    }
    const undo = [];
    let result;
    try {
      result = command.run(state, structuredClone(payload), undo, view ?? state);
    } catch (err) {
      // A handler that fails half-way must leave nothing behind.
      revertChanges(undo);
      if (err instanceof CommandError) return { ok: false, error: { code: err.code, message: err.message, problems: [] } };
      console.error(`command ${id} failed`, err);
      return { ok: false, error: { code: 'internal', message: `${command.title} failed unexpectedly.`, problems: [] } };
    }
    if (undo.length) {
      recomputeMatches(state);
      if (view && view !== state && view.matches !== null) view.matches = matchIds(state, view.filter);
    }
    seq += 1;
    const entry = {
      seq,
      id,
      payload: structuredClone(payload),
      source,
      control,
      provenance,
      run,
      at: now().toISOString(),
      mutates: command.mutates,
      result: summarise(result),
      changes: undo,
    };
    record(entry);
    onChange(entry);
    return { ok: true, seq, result };
  }

  function revertChanges(changes) {
    for (let i = changes.length - 1; i >= 0; i -= 1) {
      const c = changes[i];
      const t = state.byId.get(c.ticket_id);
      if (t) t[c.field] = Array.isArray(c.before) ? [...c.before] : c.before;
    }
  }

  /**
   * Revert one logged change. A field someone changed again since is left alone (its current
   * value is no longer what this entry wrote) and reported in `kept`: undoing a tool's run
   * must never roll back a person's own later work.
   */
  function undoEntry(targetSeq) {
    const entry = entries.find((e) => e.seq === targetSeq);
    if (!entry || !entry.changes.length) return false;
    const reverted = [];
    const kept = [];
    for (let i = entry.changes.length - 1; i >= 0; i -= 1) {
      const c = entry.changes[i];
      const t = state.byId.get(c.ticket_id);
      if (!t) continue;
      if (JSON.stringify(t[c.field]) !== JSON.stringify(c.after)) { kept.push(c); continue; }
      t[c.field] = Array.isArray(c.before) ? [...c.before] : c.before;
      reverted.push(c);
    }
    recomputeMatches(state);
    entry.undoneChanges = reverted;
    entry.changes = [];
    entry.undone = true;
    // What the undo wrote, as changes of their own (after = the value put back), from the
    // same source as the entry it undoes: a run's rollback is part of that run.
    onChange({ seq: targetSeq, id: entry.id, undone: true, source: entry.source, run: entry.run,
      changes: reverted.map((c) => ({ ticket_id: c.ticket_id, field: c.field, before: c.after, after: c.before })) });
    return { reverted: reverted.length, kept: kept.map((c) => ({ ticket_id: c.ticket_id, field: c.field })) };
  }

  /** Put back what an undo took away (a field changed again since is left alone). */
  function redoEntry(targetSeq) {
    const entry = entries.find((e) => e.seq === targetSeq);
    if (!entry || !entry.undone || !entry.undoneChanges?.length) return false;
    const redone = [];
    for (const c of entry.undoneChanges) {
      const t = state.byId.get(c.ticket_id);
      if (!t || JSON.stringify(t[c.field]) !== JSON.stringify(c.before)) continue;
      t[c.field] = Array.isArray(c.after) ? [...c.after] : c.after;
      redone.push(c);
    }
    recomputeMatches(state);
    entry.changes = redone;
    entry.undone = false;
    delete entry.undoneChanges;
    onChange({ seq: targetSeq, id: entry.id, redone: true, source: entry.source, run: entry.run, changes: redone.map((c) => ({ ...c })) });
    return { redone: redone.length };
  }

  return {
    dispatch,
    undo: undoEntry,
    redo: redoEntry,
    log: () => entries.map((e) => ({ ...e })),
    subscribe(fn) { listeners.add(fn); return () => listeners.delete(fn); },
    get catalogue() { return catalogue; },
    get state() { return state; },
  };
}
