// Without the desktop app (a plain browser with native WebMCP), the page is the whole app:
// its own registry of taught tools, the approval overlay, and the understudy_* meta-tools.
import { createRecordStore } from '../persist.js';
import { createRegistry } from '../teach/registry.js';
import { createMetaTools } from '../teach/meta_tools.js';
import { createApprovals } from '../teach/local_approvals.js';
import { createLocalLibrary } from '../teach/local_library.js';

/**
 * The page's own registry, overlay and meta-tools: only where no desktop app decides.
 * @param {object} options
 * @param {IDBDatabase | null} options.db
 * @param {import('../bus.js').Bus} options.bus
 * @param {import('./recordings_store.js').LocalRecordings} options.recordings
 * @param {Map<string, import('../teach/local_approvals.js').DraftEntry>} options.drafts
 * @param {import('../ui/run_feedback.js').RunFeedback} options.feedback
 * @param {import('./console_core.js').ConsoleUi} options.ui
 */
export async function standaloneLibrary({ db, bus, recordings, drafts, feedback, ui }) {
  const registry = createRegistry({
    bus,
    // What the registry put there (its entries): IndexedDB keeps no types.
    store: /** @type {import('../persist.js').RecordStore<import('../teach/registry.js').Entry>} */ (createRecordStore(db, 'tools')),
    onChange: () => ui.teach?.renderLibrary(),
    onRunStep: feedback.onRunStep,
    onRunEnd: (...args) => { feedback.onRunEnd(...args); ui.render?.(true); },
  });
  const approvals = createApprovals({ registry, onPending: () => ui.teach?.renderApproval() });
  const lib = createLocalLibrary({ registry, approvals });
  const metaTools = createMetaTools({ recordings, drafts, registry, approvals });
  await registry.restore();
  await metaTools.registerAll(new AbortController().signal); // for the life of the page
  return { lib, approvals };
}

