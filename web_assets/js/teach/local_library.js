// The library where the page runs without the desktop app: the page's own registry, with the
// page's overlay as the approval. Same interface as js/teach/shell_library.js, reduced to what
// a plain browser is kept for (the comparison with native WebMCP): publishing a tool (and
// repairing one) through the overlay, and running it. Turning a tool off or on, revoking it,
// reviewing it and asking before each run are the desktop app's, where its dialog asks; here
// they are refused, so the page never changes a tool in a way the shell would ask about first
// (tests/test_plain_decisions.py holds it to consent/manifest.py).
import { MAX_TAUGHT_TOOLS } from './registry.js';

/** @typedef {import('./shell_library.js').LibraryReply} LibraryReply */

/** The library's actions a plain browser takes: a person's Run. @type {ReadonlySet<Protocol.LibraryAsk['action']>} */
export const PLAIN_ACTIONS = new Set(['run']);
const ELSEWHERE = 'Turning a tool off or on, revoking it, reviewing it, asking before each run and running it on several tickets are done in the Understudy app.';

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
    if (!PLAIN_ACTIONS.has(action)) return { isError: true, code: 'no_shell', message: ELSEWHERE };
    try {
      return await registry.runByPerson(name, input);
    } catch (err) {
      const failed = /** @type {{ code?: string, message: string }} */ (err); // what the run threw
      return { isError: true, code: failed.code ?? 'tool_error', message: failed.message };
    }
  }

  return {
    decidesInDialog: false,
    actions: PLAIN_ACTIONS,
    list: () => registry.views(),
    get: (name) => registry.views().find((t) => t.name === name) ?? null,
    max: MAX_TAUGHT_TOOLS,
    activeCount: () => registry.activeCount(),
    publish: (request) => decide({ id: request.draftId ?? `p-${Date.now()}`, definition: request.definition, replaces: request.replaces ?? null, by: 'person' }),
    act,
  };
}
