// The queue in a plain browser, where the page is the whole app: commands are applied by the
// page's own model (js/bus.js), and IndexedDB is the only copy. The same interface as
// js/shell_queue.js, so the views do not know which one they drive.

/**
 * @param {{ bus: import('./bus.js').Bus }} options
 * @returns {import('./shell_queue.js').QueueDriver}
 */
export function createLocalQueue({ bus }) {
  return {
    send(id, payload, { control = null, provenance = {} } = {}) {
      const out = bus.dispatch(id, payload, { source: 'ui', control, provenance });
      if (out.ok === false) return out;
      return { ...out, answered: Promise.resolve({ ok: true, seq: out.seq, result: out.result }) };
    },
    // A plain browser keeps no undo of the person's (js/ui/history.js): nothing is undone.
    undo: () => Promise.resolve({ ok: false, nothing: true }),
    redo: () => Promise.resolve({ ok: false, nothing: true }),
    feed() {},
    feedMany() {},
    adopted() {},
    queueSaved() {},
    pendingFields: 0,
  };
}
