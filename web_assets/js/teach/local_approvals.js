// Approvals where the page runs without the desktop app (a plain browser): the page's own
// overlay decides. One pending request per draft (or per revoke): asking again joins it, so an
// agent hammering publish opens one decision, not twenty. In the desktop app this module is
// not used; the shell's native dialog decides.
import { RegistryError } from './registry.js';

/**
 * @typedef {import('./compile.js').Definition} Definition
 * @typedef {ReturnType<typeof createApprovals>} Approvals
 */
/**
 * A draft a person or an agent made, to publish (or a repair of one step of a tool).
 * @typedef {object} DraftEntry
 * @property {string} id
 * @property {import('./generalize.js').Draft} draft
 * @property {Definition} definition
 * @property {string[]} problems
 * @property {string} by 'person' or 'agent'
 * @property {string} [recordingId]
 * @property {string} [pairWith] the recording it was paired with
 * @property {string | null} [replaces] the tool a repair replaces
 * @property {string} [publishedAs]
 * @property {import('./compile.js').Meta} [meta] the editor's words for it
 * @property {string} [fallbackName]
 * @property {boolean} [described] the person wrote the description (it no longer follows)
 * @property {boolean} [named] the person wrote what agents call it
 */
/**
 * What is put to the person: a publish (a draft, or a repair) or, from an agent, a revoke.
 * @typedef {{ id: string, definition: Definition, by: string, draft?: import('./generalize.js').Draft, replaces?: string | null, revoke?: string, publishedAs?: string }} ApprovalRequest
 */
/**
 * @typedef {{ status: string, name: string, tool?: ReturnType<typeof publicTool> } | { isError: true, code: string, message: string }} ApprovalResult
 * @typedef {{ draft: ApprovalRequest, state: 'pending' | 'approved' | 'rejected', result: ApprovalResult | null, reason: string, decided: Promise<void>, resolve: () => void }} Approval
 */

/** @param {Definition} definition */
export function publicTool(definition) {
  return { name: definition.name, title: definition.title, description: definition.description, inputSchema: definition.inputSchema, annotations: definition.annotations };
}

/**
 * @param {object} options
 * @param {ReturnType<typeof import('./registry.js').createRegistry>} options.registry
 * @param {() => void} [options.onPending]
 * @param {(record: Approval) => void} [options.onDecided]
 */
export function createApprovals({ registry, onPending = () => {}, onDecided = (_record) => {} }) {
  /** @type {Map<string, Approval>} */
  const pending = new Map();
  return {
    /**
     * draft: { id, definition, draft?, replaces?, by } or a revoke { id, revoke: name }
     * @param {ApprovalRequest} draft
     * @returns {Approval}
     */
    request(draft) {
      const asked = pending.get(draft.id);
      if (asked) return asked;
      /** @type {() => void} */
      let resolve = () => {};
      const decided = /** @type {Promise<void>} */ (new Promise((r) => { resolve = r; }));
      /** @type {Approval} */
      const record = { draft, state: 'pending', result: null, reason: '', decided, resolve };
      pending.set(draft.id, record);
      onPending();
      return record;
    },
    list: () => [...pending.values()].filter((r) => r.state === 'pending'),
    /** @param {string} id */
    get: (id) => pending.get(id) ?? null,
    /** @param {string} id */
    forget: (id) => pending.delete(id),

    /**
     * @param {string} id
     * @param {string} [author]
     */
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
    /**
     * @param {string} id
     * @param {string} [reason]
     */
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
