// Boot: open the stored queue (or the demo queue the first time), wire the bus to the UI and
// to IndexedDB, and either connect to the desktop shell (which holds the approved tools) or,
// in a plain browser, run the page's own registry.
import { createBus } from './bus.js';
import { CATALOGUE_VERSION } from './catalogue.js';
import { createQueueState, replaceQueue, queueDocument } from './queue_state.js';
import { openDatabase, loadQueue, createPersister, createRecordStore } from './persist.js';
import { provenanceFor } from './teach/provenance.js';
import { createRecorder } from './teach/recorder.js';
import { createRegistry } from './teach/registry.js';
import { createMetaTools } from './teach/meta_tools.js';
import { createApprovals } from './teach/local_approvals.js';
import { createLocalLibrary } from './teach/local_library.js';
import { createShellLibrary } from './teach/shell_library.js';
import { createMirror } from './teach/mirror.js';
import { buildDraft } from './teach/draft_builder.js';
import { runTool } from './teach/runner.js';
import { mountTeachUi } from './ui/teach_ui.js';
import { createRunFeedback } from './ui/run_feedback.js';
import { mountQueueList } from './ui/queue_list.js';
import { mountFilterBar } from './ui/filter_bar.js';
import { mountDetailPane } from './ui/detail_pane.js';
import { createToast } from './ui/toast.js';
import { $, visibleControls } from './ui/dom.js';
import { createShellLink } from './shell_api.js';
import { createDurability } from './durable.js';
import { installShortcuts } from './ui/shortcuts.js';
import { createHistory } from './ui/history.js';
import { createShortcutsHelp } from './ui/shortcuts_help.js';

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

/** Recordings: kept in IndexedDB, and handed to the desktop shell, which keeps them too. */
async function openRecordings(db, shell) {
  const store = createRecordStore(db, 'recordings');
  const map = new Map((await store.all()).map((r) => [r.id, r]));
  return {
    all: () => [...map.values()],
    values: () => map.values(),
    get: (id) => map.get(id),
    save(r) {
      r.revision = (r.revision ?? 0) + 1;
      map.set(r.id, r);
      store.put(r);
      shell.push({ event: 'recording-saved', recording: r });
    },
    remove(id) {
      map.delete(id);
      store.delete(id);
      shell.push({ event: 'recording-deleted', id });
    },
    /** The shell's copies: newer ones replace ours; ours it lacks are handed to it. */
    merge(fromShell) {
      const known = new Set();
      for (const r of fromShell) {
        known.add(r.id);
        const mine = map.get(r.id);
        if (!mine || (mine.revision ?? 0) < (r.revision ?? 0)) { map.set(r.id, r); store.put(r); }
      }
      for (const r of map.values()) if (!known.has(r.id)) shell.push({ event: 'recording-saved', recording: r });
    },
  };
}

/** The page's own registry, overlay and meta-tools: only where no desktop app decides. */
async function standaloneLibrary({ db, bus, recordings, drafts, feedback, ui }) {
  const registry = createRegistry({
    bus,
    store: createRecordStore(db, 'tools'),
    onChange: () => ui.teach?.renderLibrary(),
    onRunStep: feedback.onRunStep,
    onRunEnd: (...args) => { feedback.onRunEnd(...args); ui.render(true); },
  });
  const approvals = createApprovals({ registry, onPending: () => ui.teach?.renderApproval() });
  const lib = createLocalLibrary({ registry, approvals });
  const metaTools = createMetaTools({ recordings, drafts, registry, approvals });
  await registry.restore();
  await metaTools.registerAll(new AbortController().signal); // for the life of the page
  return { lib, approvals };
}

/**
 * The queue to start with. In the desktop app the shell's database decides: the cache is used
 * only if it holds exactly what the database holds; otherwise the database's copy comes over
 * (and the person is told, unless this is the very first start). In a plain browser: the
 * cache, or the demo queue the first time.
 */
async function startingQueue(shell, db) {
  const cached = await loadQueue(db).catch((err) => {
    console.warn('the stored queue could not be read; starting from the saved copy', err);
    return null;
  });
  if (!shell.present) return { doc: cached ?? await fetchDemoQueue(), firstRun: !cached, fromCache: Boolean(cached) };
  const cache = cached ? { generation: cached.generation, revision: cached.revision, dirty: cached.dirty, tickets: cached.tickets.length } : null;
  const plan = await shell.ask({ kind: 'queue', cache });
  if (plan?.use === 'cache' && cached) return { doc: cached, firstRun: false, fromCache: true, sync: plan };
  if (plan?.use !== 'url') throw new Error(plan?.message ?? 'the desktop app did not hand over the queue');
  const response = await fetch(plan.url);
  if (!response.ok) throw new Error('the desktop app did not hand over the queue');
  return { doc: await response.json(), firstRun: Boolean(plan.firstRun), fromCache: false, sync: plan, notice: plan.notice ?? '' };
}

async function boot() {
  document.body.dataset.webmcp = webmcpState();
  const shell = createShellLink();
  const db = await openDatabase().catch((err) => {
    console.warn('IndexedDB is unavailable; changes will not be kept', err);
    return null;
  });
  const start = await startingQueue(shell, db);
  const { firstRun } = start;
  const state = createQueueState(start.doc);
  state.badges = new Map(); // ticket id -> { by, tool }: which taught tool last changed it
  const persister = createPersister(db, state);
  const sync = { generation: start.sync?.generation ?? null, revision: start.sync?.revision ?? 0, dirty: false };
  if (!start.fromCache) await persister.replaceAll(queueDocument(state), sync);
  else persister.syncState(sync);
  const durable = createDurability({ shell, persister });
  durable.adopt(sync);

  let history = null;
  const pushView = () => shell.push({ event: 'view', view: { filter: { ...state.filter }, selectedId: state.selectedId } });
  const toast = createToast();
  if (start.notice) toast.show(start.notice, { ms: 10000 });
  const ui = { render: null, teach: null };
  let viewTimer = null;
  const bus = createBus({
    state,
    onChange(entry) {
      const ids = [...new Set(entry.changes.map((c) => c.ticket_id))];
      if (ids.length) persister.ticketsChanged(ids);
      // A run's steps are drawn once, when it ends (runs have their own view; see runTool).
      if (entry.source === 'tool') return;
      if (entry.changes.length) durable.commit(entry);
      history?.note(entry);
      if (VIEW_COMMANDS.has(entry.id)) {
        persister.viewChanged();
        clearTimeout(viewTimer);
        viewTimer = setTimeout(pushView, 300);
      }
      if (ui.render) ui.render(TAG_COMMANDS.has(entry.id));
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
      // Said once the change is saved: the message is the acknowledgement.
      durable.saved(seq).then((saved) => {
        if (!saved.saved) { toast.show(`Not saved: ${saved.message}`, { kind: 'error' }); return; }
        toast.show(`Changed ${r.changed} of ${r.matched} matching tickets.`, {
          undo: r.changed ? () => { bus.undo(seq); toast.show('Undone.'); } : null,
        });
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
    $('queue-name').textContent = visibleControls(state.queueName);
    // In the desktop app the window's status bar says whether an agent is connected.
    const mode = document.body.dataset.webmcp;
    $('webmcp-state').textContent = shell.present ? '' : (mode === 'degraded' ? 'Agents in this browser: off' : 'Agents in this browser: on');
  }

  ui.render = (optionsChanged) => {
    if (optionsChanged) { filters.renderOptions(); detail.renderOptions(); }
    filters.render();
    detail.render();
    list.refresh();
    renderStats();
  };
  ui.render(true);

  // ---- teach: recordings, drafts, the library, and agents' tools -----------------------
  const nameOf = (kind, value) => (kind === 'person' ? state.assignees : state.templates).find((x) => x.id === value)?.name ?? null;
  const recorder = createRecorder({ bus, currentFilter: () => state.filter, nameOf });
  const recordings = await openRecordings(db, shell);
  const drafts = new Map();
  const feedback = createRunFeedback({ state, onBadges: () => list.refresh() });
  let lib;
  let approvals = null;
  let mirror = null;
  if (shell.present) {
    mirror = createMirror({ call: (name, args) => shell.ask({ kind: 'call', name, arguments: args }) });
    let mergedRecordings = false;
    lib = createShellLibrary({
      shell,
      onChange: () => {
        ui.teach?.renderLibrary();
        mirror.sync(lib.list());
      },
    });
    lib.mergeRecordings = (fromShell) => {
      if (mergedRecordings) return;
      mergedRecordings = true;
      recordings.merge(fromShell);
    };
    await mirror.registerBuiltins();
  } else {
    ({ lib, approvals } = await standaloneLibrary({ db, bus, recordings, drafts, feedback, ui }));
  }
  ui.teach = mountTeachUi({ state, recorder, recordings, drafts, lib, approvals, toast });
  ui.teach.renderLibrary();
  history = createHistory({ bus, toast, onChange: () => ui.render(true) });
  const help = createShortcutsHelp();
  installShortcuts({ list, teach: ui.teach, history, help });

  // First run (no stored queue yet): three sentences on Teach, the library and packs.
  if (firstRun) {
    const welcome = $('welcome');
    welcome.hidden = false;
    $('welcome-dismiss').addEventListener('click', () => { welcome.hidden = true; $('queue-list').focus(); });
  }

  /** A queue the shell hands over (a file opened, or its saved copy after a problem). */
  async function loadQueueFrom({ url, generation = null, revision = null, notice = '' }) {
    const t0 = performance.now();
    const response = await fetch(url);
    if (!response.ok) throw new Error('the shell did not hand over the queue');
    const next = await response.json();
    const t1 = performance.now();
    replaceQueue(state, next);
    state.badges.clear();
    $('queue-list').scrollTop = 0;
    ui.render(true);
    const t2 = performance.now();
    await persister.replaceAll(queueDocument(state), { generation, revision: revision ?? 0, dirty: revision === null });
    durable.adopt({ generation, revision }, { keepFailure: Boolean(notice) });
    if (notice) toast.show(notice, { ms: 10000 });
    const t3 = performance.now();
    return { tickets: state.tickets.length, ms: { fetch: t1 - t0, show: t2 - t1, store: t3 - t2 } };
  }

  /** Run exactly the steps the shell handed over (its approved definition). */
  async function runForShell(request, signal) {
    const definition = { name: String(request.tool), steps: request.steps, inputSchema: request.inputSchema };
    const by = request.by === 'person' ? 'person' : 'agent';
    const outcome = await runTool({
      definition, input: request.input ?? {}, signal, bus, by, deadline: request.deadline ?? null,
      onStep: (step) => feedback.onRunStep(definition.name, step, by),
    });
    feedback.onRunEnd(definition.name, outcome, by);
    ui.render(true); // the run's changes, drawn once; the person's view is as they left it
    durable.runApplied(outcome);
    return outcome;
  }

  /** The same steps on a copy of the queue: what a run would change now, changing nothing. */
  async function trialForShell(request) {
    const definition = { name: String(request.tool), steps: request.steps, inputSchema: request.inputSchema };
    const scratch = createQueueState(structuredClone(queueDocument(state)));
    scratch.badges = new Map();
    const copy = createBus({ state: scratch });
    const outcome = await runTool({ definition, input: request.input ?? {}, bus: copy, by: 'person' });
    delete outcome.changes; // the shell needs only which tickets, not their new values
    return outcome;
  }

  const summary = () => ({ tickets: state.tickets.length, matches: state.matches.length, selected: state.selectedId, webmcp: document.body.dataset.webmcp, catalogueVersion: CATALOGUE_VERSION, queueName: state.queueName });
  shell.serve({
    run: runForShell,
    trial: trialForShell,
    draft: ({ recording, pairWith, meta }) => {
      const built = buildDraft({ recording, pairWith, meta });
      return built.error ? { error: built.error } : { definition: built.definition, problems: built.problems, warnings: built.warnings };
    },
    library: (view) => {
      if (Array.isArray(view.recordings)) lib.mergeRecordings?.(view.recordings);
      lib.setView?.(view);
      return null;
    },
    summary,
    exportQueue: () => queueDocument(state),
    loadQueue: (request) => loadQueueFrom(request),
    saved: (request) => { durable.runSaved(request); return null; },
    // The window's menus: View › Library, View › Recordings, Help › Keyboard shortcuts,
    // Edit › Undo and Redo.
    show: ({ what }) => {
      if (what === 'library') ui.teach.openLibrary();
      else if (what === 'recordings') ui.teach.showRecordings();
      else if (what === 'shortcuts') help.open();
      return null;
    },
    undo: () => history.undo(),
    redo: () => history.redo(),
    flush: async () => {
      clearTimeout(viewTimer);
      pushView();
      await durable.idle();
      await persister.idle();
      return true;
    },
  }, {
    // For diagnostics and tests: reads, and the same dispatch any page script could make.
    summary,
    saveState: () => ({ unsaved: durable.unsaved, revision: durable.revision }),
    whenSaved: () => durable.idle(),
    dispatch: (id, payload, source = 'shell') => bus.dispatch(id, payload, { source }),
    log: () => bus.log(),
    exportQueue: () => queueDocument(state),
    teach: () => { ui.teach.toggleTeach(); return recorder.active; },
    recordings: () => recordings.all(),
    tools: () => lib.list(),
  });
}

boot().catch((err) => {
  console.error('the console could not start', err);
  const main = document.querySelector('main');
  if (main) main.replaceChildren(Object.assign(document.createElement('p'), { className: 'boot-error', textContent: `The console could not start: ${err.message}` }));
});
