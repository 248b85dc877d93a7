// The library where the page runs without the desktop app: the page's own registry, with the
// page's overlay as the approval. Same interface as js/teach/shell_library.js.
import { definitionHash, MAX_TAUGHT_TOOLS } from './registry.js';

/** @typedef {import('./shell_library.js').LibraryReply} LibraryReply */

/**
 * @param {object} options
 * @param {ReturnType<typeof import('./registry.js').createRegistry>} options.registry
 * @param {import('./local_approvals.js').Approvals} options.approvals
 * @returns {import('./shell_library.js').Library}
 */
export function createLocalLibrary({ registry, approvals }) {
  /**
   * @param {import('./local_approvals.js').ApprovalRequest} entry
   * @returns {Promise<LibraryReply>}
   */
  async function decide(entry) {
    const record = approvals.request(entry);
    await record.decided;
    approvals.forget(entry.id);
    if (record.state === 'rejected') return { isError: true, code: 'consent_denied', message: 'Rejected.' };
    // Approved: approve() set the result before it said so.
    return /** @type {import('./local_approvals.js').ApprovalResult} */ (record.result);
  }

  /**
   * @param {Protocol.LibraryAsk['action']} action
   * @param {string} name
   * @param {Record<string, unknown>} [input]
   * @returns {Promise<LibraryReply>}
   */
  async function act(action, name, input = {}) {
    const ok = { status: 'ok' };
    try {
      switch (action) {
        case 'run': return await registry.runByPerson(name, input);
        case 'run_selection': return { isError: true, code: 'not_found', message: 'Running a tool on several tickets at once is done in the Understudy app.' };
        case 'disable': return (await registry.disable(name)) ? ok : { isError: true, code: 'not_found', message: 'That tool is not active.' };
        case 'enable': return (await registry.enable(name)) ? ok : { isError: true, code: 'not_found', message: 'That tool is not turned off.' };
        case 'revoke': return (await registry.revoke(name)) ? { status: 'revoked' } : { isError: true, code: 'not_found', message: 'That tool is gone.' };
        case 'ask': await registry.setAskEveryTime(name, true); return ok;
        case 'relax': await registry.setAskEveryTime(name, false); return ok;
        case 'review': {
          const entry = registry.get(name);
          return entry && await registry.reapproved(name, await definitionHash(entry.definition)) ? ok : { isError: true, code: 'not_found', message: 'That tool is gone.' };
        }
        default: return { isError: true, code: 'not_found', message: 'Unknown action.' };
      }
    } catch (err) {
      const failed = /** @type {{ code?: string, message: string }} */ (err); // a RegistryError, or what the run threw
      return { isError: true, code: failed.code ?? 'tool_error', message: failed.message };
    }
  }

  return {
    decidesInDialog: false,
    list: () => registry.views(),
    get: (name) => registry.views().find((t) => t.name === name) ?? null,
    max: MAX_TAUGHT_TOOLS,
    activeCount: () => registry.activeCount(),
    publish: (request) => decide({ id: request.draftId ?? `p-${Date.now()}`, definition: request.definition, replaces: request.replaces ?? null, by: 'person' }),
    act,
  };
}
