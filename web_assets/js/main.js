// Boot: open the stored queue (or the demo queue the first time), wire the bus to the UI and
// to IndexedDB, and tell the shell the console is ready.
import { createBus } from './bus.js';
import { CATALOGUE_VERSION, describeCatalogue } from './catalogue.js';
import { createQueueState, replaceQueue, queueDocument } from './queue_state.js';
import { openDatabase, loadQueue, createPersister, createRecordStore } from './persist.js';
import { provenanceFor } from './teach/provenance.js';
import { createRecorder } from './teach/recorder.js';
import { createRegistry } from './teach/registry.js';
import { createMetaTools, createApprovals } from './teach/meta_tools.js';
import { mountTeachUi } from './ui/teach_ui.js';
import { mountQueueList } from './ui/queue_list.js';
import { mountFilterBar } from './ui/filter_bar.js';
import { mountDetailPane } from './ui/detail_pane.js';
import { createToast } from './ui/toast.js';
import { $ } from './ui/dom.js';
import { installShellApi } from './shell_api.js';
import { installShortcuts } from './ui/shortcuts.js';

const TAG_COMMANDS = new Set(['set_ticket_tags', 'add_ticket_tag', 'remove_ticket_tag', 'tag_matching_tickets', 'untag_matching_tickets']);
const VIEW_COMMANDS = new Set(['filter_tickets', 'select_ticket']);

/** native: the browser's own WebMCP; bridged: the desktop shell's shim; degraded: neither. */
function webmcpState() {
  if (!('modelContext' in document)) return 'degraded';
  const register = document.modelContext.registerTool;
  return /\{\s*\[native code\]\s*\}/.test(Function.prototype.toString.call(register)) ? 'native' : 'bridged';
}

async function fetchDemoQueue() {
  const response = await fetch('data/default_queue.json');
  if (!response.ok) throw new Error(`the demo queue is missing (${response.status})`);
  return response.json();
}

async function boot() {
  document.body.dataset.webmcp = webmcpState();
  const db = await openDatabase().catch((err) => {
    console.warn('IndexedDB is unavailable; changes will not be kept', err);
    return null;
  });
  let doc = await loadQueue(db);
  const firstRun = !doc;
  if (!doc) doc = await fetchDemoQueue();
  const state = createQueueState(doc);
  state.badges = new Map(); // ticket id -> { by, tool }: which taught tool last changed it
  const persister = createPersister(db, state, queueDocument);
  if (firstRun) await persister.replaceAll(queueDocument(state));

  const toast = createToast();
  let ui = null;
  const bus = createBus({
    state,
    onChange(entry) {
      const ids = [...new Set(entry.changes.map((c) => c.ticket_id))];
      if (ids.length) persister.ticketsChanged(ids);
      if (VIEW_COMMANDS.has(entry.id)) persister.viewChanged();
      if (ui) ui.render(TAG_COMMANDS.has(entry.id));
    },
  });

  /** What a control does: dispatch, then say what happened in words. */
  function uiDispatch(id, payload, control) {
    const outcome = bus.dispatch(id, payload, { source: 'ui', control, provenance: provenanceFor(id, payload, control) });
    if (!outcome.ok) {
      toast.show(outcome.error.message, { kind: 'error' });
      ui.render(false);
      return false;
    }
    const r = outcome.result;
    if (r && typeof r.changed === 'number') {
      const seq = outcome.seq;
      toast.show(`Changed ${r.changed} of ${r.matched} matching tickets.`, {
        undo: r.changed ? () => { bus.undo(seq); toast.show('Undone.'); } : null,
      });
    }
    if (id === 'select_ticket') list.scrollToSelected();
    return true;
  }

  const list = mountQueueList({ state, onSelect: (ticketId) => uiDispatch('select_ticket', { ticket_id: ticketId }, 'queue-list') });
  const filters = mountFilterBar({ state, dispatch: uiDispatch });
  const detail = mountDetailPane({ state, dispatch: uiDispatch });

  function renderStats() {
    const counts = { new: 0, open: 0, pending: 0 };
    for (const t of state.tickets) if (t.status in counts) counts[t.status] += 1;
    $('top-stats').textContent = `${counts.new.toLocaleString('en')} new · ${counts.open.toLocaleString('en')} open · ${counts.pending.toLocaleString('en')} pending`;
    $('queue-name').textContent = state.queueName;
    const mode = document.body.dataset.webmcp;
    $('webmcp-state').textContent = mode === 'degraded' ? 'Agent tools: off' : `Agent tools: WebMCP ${mode}`;
  }

  ui = {
    render(optionsChanged) {
      if (optionsChanged) { filters.renderOptions(); detail.renderOptions(); }
      filters.render();
      detail.render();
      list.refresh();
      renderStats();
    },
  };
  ui.render(true);

  // ---- teach: recordings, drafts, approvals, taught tools, meta-tools -------------------
  const recorder = createRecorder({ bus });
  const recordingStore = createRecordStore(db, 'recordings');
  const recordingMap = new Map((await recordingStore.all()).map((r) => [r.id, r]));
  const recordings = {
    all: () => [...recordingMap.values()],
    values: () => recordingMap.values(),
    get: (id) => recordingMap.get(id),
    save: (r) => {
      r.revision = (r.revision ?? 0) + 1;
      recordingMap.set(r.id, r);
      recordingStore.put(r);
      document.dispatchEvent(new Event('understudy:store-changed'));
    },
    remove: (id) => {
      recordingMap.delete(id);
      recordingStore.delete(id);
      document.dispatchEvent(new Event('understudy:store-changed'));
    },
  };
  const drafts = new Map();
  let teachUi = null;
  const registry = createRegistry({
    bus,
    store: createRecordStore(db, 'tools'),
    onChange: () => teachUi?.renderLibrary(),
    onRunStep: (...args) => teachUi?.onRunStep(...args),
    onRunEnd: (...args) => { teachUi?.onRunEnd(...args); list.refresh(); },
  });
  const shellDecides = () => document.documentElement.dataset.shell === 'desktop';
  const approvals = createApprovals({ registry, onPending: () => teachUi?.renderApproval(), onDecided: (r) => teachUi?.announceDecision(r), shellDecides });
  const metaTools = createMetaTools({ recordings, drafts, registry, approvals });
  teachUi = mountTeachUi({ state, recorder, recordings, drafts, registry, approvals, toast, shellDecides });
  await registry.restore();
  const pageLife = new AbortController(); // the meta-tools live as long as the page
  await metaTools.registerAll(pageLife.signal);
  installShortcuts({ list, teach: teachUi });

  // First run (no stored queue yet): three sentences on Teach, the library and packs.
  if (firstRun) {
    const welcome = $('welcome');
    welcome.hidden = false;
    $('welcome-dismiss').addEventListener('click', () => { welcome.hidden = true; $('queue-list').focus(); });
  }

  async function loadQueueFrom(url) {
    const t0 = performance.now();
    const response = await fetch(url);
    if (!response.ok) throw new Error('the shell did not hand over the queue');
    const next = await response.json();
    const t1 = performance.now();
    replaceQueue(state, next);
    $('queue-list').scrollTop = 0;
    ui.render(true);
    const t2 = performance.now();
    await persister.replaceAll(queueDocument(state));
    const t3 = performance.now();
    return { tickets: state.tickets.length, ms: { fetch: t1 - t0, show: t2 - t1, store: t3 - t2 } };
  }

  installShellApi({
    summary: () => ({ tickets: state.tickets.length, matches: state.matches.length, selected: state.selectedId, webmcp: document.body.dataset.webmcp, catalogueVersion: CATALOGUE_VERSION, queueName: state.queueName }),
    dispatch: (id, payload, source = 'shell') => bus.dispatch(id, payload, { source }),
    log: () => bus.log(),
    catalogue: () => describeCatalogue(),
    exportQueue: () => queueDocument(state),
    loadQueueFrom,
    flush: async () => { await persister.idle(); return true; },
    teach: () => { teachUi.toggleTeach(); return recorder.active; },
    recordings: () => recordings.all(),
    tools: () => registry.list(),
    runTool: (name, input) => registry.runByPerson(name, input),
    pendingApprovals: () => approvals.list().map((r) => ({ draftId: r.draft.id, name: r.draft.definition.name })),
    // --- for the shell's consent service (it decides; the page only carries out) ---
    draftDefinition: (id) => {
      const d = drafts.get(id);
      return d && d.definition ? { definition: d.definition, problems: d.problems ?? [], replaces: d.replaces ?? null, by: d.by ?? 'agent' } : null;
    },
    publishApproved: (id, hash) => {
      const d = drafts.get(id);
      return d ? approvals.approveDecided(d, d.by ?? 'agent', hash) : null;
    },
    approvalDeclined: (id) => approvals.reject(id, 'rejected in the dialog'),
    toolDefinitions: () => Object.fromEntries(registry.list().map((t) => [t.name, { definition: t.definition, status: t.status }])),
    markNeedsReview: (name, reason) => registry.needsReview(name, reason),
    reapproved: (name, hash) => registry.reapproved(name, hash),
    revokeTool: (name) => registry.revoke(name),
    setAskEveryTime: (name, value) => registry.setAskEveryTime(name, value),
    setDriftNote: (name, text) => registry.setNote(name, text),
    importTools: (definitions, hashes, replace) => registry.importApproved(definitions, hashes, replace),
    storeSnapshot: () => ({ tools: registry.list(), recordings: recordings.all() }),
    restoreFromDisk: async (toolRecords, recordingRecords) => {
      const restoredRecordings = [];
      for (const r of recordingRecords) {
        const current = recordingMap.get(r.id);
        if (current && (current.revision ?? 0) >= r.revision) continue;
        const { fileVersion: _v, ...plain } = r;
        recordingMap.set(plain.id, plain);
        await recordingStore.put(plain);
        restoredRecordings.push(plain.id);
      }
      return { tools: await registry.restoreFromDisk(toolRecords), recordings: restoredRecordings };
    },
  });
}

boot().catch((err) => {
  console.error('the console could not start', err);
  const main = document.querySelector('main');
  if (main) main.replaceChildren(Object.assign(document.createElement('p'), { className: 'boot-error', textContent: `The console could not start: ${err.message}` }));
});
