// Teach mode: while recording, every command a person dispatches from the console becomes a
// step. A step is the command and its payload as dispatched (intent, not clicks), a compact
// result summary, and where each value came from.

let counter = 0;

export function createRecorder({ bus, now = () => new Date() }) {
  let current = null;
  let unsubscribe = null;

  function onEntry(entry) {
    if (!current || entry.source !== 'ui' || entry.undone) return;
    current.steps.push({
      command: entry.id,
      payload: structuredClone(entry.payload),
      result: structuredClone(entry.result ?? null),
      control: entry.control,
      provenance: { ...(entry.provenance ?? {}) },
    });
    if (api.onStep) api.onStep();
  }

  const api = {
    onStep: null,
    get recording() { return current; },
    get active() { return current !== null; },
    start(name = '') {
      if (current) return current;
      counter += 1;
      const at = now();
      current = { id: `rec-${at.getTime().toString(36)}-${counter}`, name: name || `Recording ${at.toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'short' })}`, createdAt: at.toISOString(), steps: [] };
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
