// Teach mode: while recording, every command a person dispatches from the console becomes a
// step. A step is the command and its payload as dispatched (intent, not clicks), a compact
// result summary, and where each value came from.
//
// A routine that changes "every matching ticket" without searching first acted on the filter
// the person had set before recording. That filter becomes the routine's first step, so the
// tool does what was shown: a run has its own view and starts with no filter at all.
import { CATALOGUE } from '../catalogue.js';
import { refKind } from '../words.js';

/**
 * @typedef {import('./generalize.js').RecordedStep} RecordedStep
 * @typedef {{ id: string, name: string, createdAt: string, steps: RecordedStep[], revision?: number }} Recording
 * @typedef {ReturnType<typeof createRecorder>} Recorder
 */

let counter = 0;

/**
 * @param {Partial<import('../queue_state.js').Filter>} filter
 * @returns {RecordedStep}
 */
function filterStep(filter) {
  const payload = Object.fromEntries(Object.entries(filter).filter(([, v]) => v !== '' && v !== null && v !== undefined));
  return {
    command: 'filter_tickets',
    payload,
    result: null,
    control: 'filter-bar',
    provenance: Object.fromEntries(Object.keys(payload).map((k) => [k, 'context'])),
  };
}

/**
 * createRecorder({ bus, now, currentFilter, nameOf })
 *   currentFilter()       the person's filter when recording starts
 *   nameOf(kind, value)   a person's or a template's name, kept beside its id
 * @param {object} options
 * @param {import('../bus.js').Bus} options.bus
 * @param {() => Date} [options.now]
 * @param {() => Partial<import('../queue_state.js').Filter>} [options.currentFilter]
 * @param {(kind: 'person' | 'template', value: unknown) => string | null} [options.nameOf]
 */
export function createRecorder({ bus, now = () => new Date(), currentFilter = () => ({}), nameOf = (_kind, _value) => null }) {
  /** @type {Recording | null} */
  let current = null;
  /** @type {(() => boolean) | null} */
  let unsubscribe = null;
  /** @type {Partial<import('../queue_state.js').Filter>} */
  let filterAtStart = {};

  /** @param {import('../bus.js').BusEntry} entry */
  function onEntry(entry) {
    if (!current || entry.source !== 'ui' || entry.undone) return;
    const searched = current.steps.some((s) => s.command === 'filter_tickets');
    if (CATALOGUE[entry.id]?.setBased && !searched) current.steps.unshift(filterStep(filterAtStart));
    /** @type {Record<string, Protocol.Ref>} */
    const refs = {};
    for (const [field, value] of Object.entries(entry.payload ?? {})) {
      const kind = refKind(entry.id, field);
      const name = kind ? nameOf(kind, value) : null;
      if (kind && name) refs[field] = { kind, name };
    }
    current.steps.push({
      command: entry.id,
      payload: structuredClone(entry.payload),
      result: structuredClone(entry.result ?? null),
      control: entry.control,
      provenance: { ...(entry.provenance ?? {}) },
      ...(Object.keys(refs).length ? { refs } : {}),
    });
    if (api.onStep) api.onStep();
  }

  const api = {
    /** @type {false} the page decides what is recorded and kept (the shell's says true) */
    decidedByShell: false,
    /** @type {(() => void) | null} */
    onStep: null,
    get recording() { return current; },
    get active() { return current !== null; },
    start(name = '') {
      if (current) return current;
      counter += 1;
      const at = now();
      current = { id: `rec-${at.getTime().toString(36)}-${counter}`, name: name || `Recording ${at.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })}`, createdAt: at.toISOString(), steps: [] };
      filterAtStart = structuredClone(currentFilter());
      unsubscribe = bus.subscribe(onEntry);
      return current;
    },
    stop() {
      const done = current;
      current = null;
      if (unsubscribe) unsubscribe();
      unsubscribe = null;
      return done;
    },
  };
  return api;
}
