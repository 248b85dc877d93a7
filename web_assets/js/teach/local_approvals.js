// Approvals where the page runs without the desktop app (a plain browser): the page's own
// overlay decides. One pending request per draft (or per revoke): asking again joins it, so an
// agent hammering publish opens one decision, not twenty. In the desktop app this module is
// not used; the shell's native dialog decides.
import { RegistryError } from './registry.js';

export function publicTool(definition) {
  return { name: definition.name, title: definition.title, description: definition.description, inputSchema: definition.inputSchema, annotations: definition.annotations };
}

export function createApprovals({ registry, onPending = () => {}, onDecided = (_record) => {} }) {
  const pending = new Map();
  return {
    /** draft: { id, definition, draft?, replaces?, by } or a revoke { id, revoke: name } */
    request(draft) {
      let record = pending.get(draft.id);
      if (record) return record;
      let resolve;
      record = { draft, state: 'pending', result: null, reason: '', decided: new Promise((r) => { resolve = r; }) };
      record.resolve = resolve;
      pending.set(draft.id, record);
      onPending();
      return record;
    },
    list: () => [...pending.values()].filter((r) => r.state === 'pending'),
    get: (id) => pending.get(id) ?? null,
    forget: (id) => pending.delete(id),

    async approve(id, author = 'agent') {
      const record = pending.get(id);
      if (!record || record.state !== 'pending') return null;
      const { draft } = record;
      try {
        if (draft.revoke) {
          await registry.revoke(draft.revoke);
          record.result = { status: 'revoked', name: draft.revoke };
        } else {
          if (draft.replaces) await registry.replace(draft.definition, { author });
          else await registry.publish(draft.definition, { author });
          draft.publishedAs = draft.definition.name;
          record.result = { status: 'published', name: draft.definition.name, tool: publicTool(draft.definition) };
        }
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        record.result = { isError: true, code: err.code, message: err.message };
      }
      record.state = 'approved';
      record.resolve();
      onPending();
      onDecided(record);
      return record.result;
    },
    reject(id, reason = '') {
      const record = pending.get(id);
      if (!record || record.state !== 'pending') return false;
      record.state = 'rejected';
      record.reason = reason;
      record.resolve();
      onPending();
      onDecided(record);
      return true;
    },
  };
}
