// Where the console's queue comes from at start-up: in the desktop app the shell's database
// decides; in a plain browser, IndexedDB, or the demo queue the first time.
import { loadQueue } from '../persist.js';
import { isRefusal } from '../shell_api.js';

/**
 * The queue the console starts with, where it came from, and (from the shell) where it
 * stands against the database.
 * @typedef {object} Start
 * @property {import('../queue_state.js').QueueDoc} doc
 * @property {boolean} firstRun
 * @property {boolean} fromCache
 * @property {{ generation?: string | null, revision?: number | null }} [sync]
 * @property {string} [notice] one line for the person
 */

/** native: the browser's own WebMCP; bridged: the desktop shell's shim; degraded: neither. */
export function webmcpState() {
  if (!('modelContext' in document)) return 'degraded';
  const register = /** @type {ModelContext} */ (document.modelContext).registerTool;
  return /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(register)) ? 'native' : 'bridged';
}

/** @returns {Promise<import('../queue_state.js').QueueDoc>} */
async function fetchDemoQueue() {
  const response = await fetch('data/default_queue.json');
  if (!response.ok) throw new Error(`the demo queue is missing (${response.status})`);
  return response.json();
}

/**
 * The queue to start with. In the desktop app the shell's database decides: the cache is used
 * only if it holds exactly what the database holds; otherwise the database's copy comes over
 * (and the person is told, unless this is the very first start). In a plain browser: the
 * cache, or the demo queue the first time.
 * @param {import('../shell_api.js').ShellLink} shell
 * @param {IDBDatabase | null} db
 * @returns {Promise<Start>}
 */
export async function startingQueue(shell, db) {
  const cached = await loadQueue(db).catch((err) => {
    console.warn('the stored queue could not be read; starting from the saved copy', err);
    return null;
  });
  if (!shell.present) return { doc: cached ?? await fetchDemoQueue(), firstRun: !cached, fromCache: Boolean(cached) };
  const cache = cached ? { generation: cached.generation, revision: cached.revision, dirty: cached.dirty, tickets: cached.tickets.length } : null;
  // The shell hands over the database's copy, always (Protocol.QueuePlan), or says why not.
  const plan = await shell.ask({ kind: 'queue', cache });
  if (isRefusal(plan) || plan?.use !== 'url') throw new Error(plan?.message ?? 'the desktop app did not hand over the queue');
  const response = await fetch(plan.url);
  if (!response.ok) throw new Error('the desktop app did not hand over the queue');
  return { doc: await response.json(), firstRun: Boolean(plan.firstRun), fromCache: false, sync: plan, notice: plan.notice ?? '' };
}

