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
    undo(seq) {
      const out = bus.undo(seq);
      return Promise.resolve(out ? { ok: true, reverted: out.reverted, kept: out.kept.length } : { ok: false, nothing: true });
    },
    // Here the page's own history redoes through the bus (js/ui/history.js createHistory);
    // nothing is ever asked of this.
    redo: () => Promise.resolve({ ok: false, nothing: true }),
    feed() {},
    feedMany() {},
    adopted() {},
    queueSaved() {},
    pendingFields: 0,
  };
}
