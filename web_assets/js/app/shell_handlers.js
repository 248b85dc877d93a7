// What the desktop shell may ask of the page (js/shell_api.js carries the messages; every
// message is listed in docs/protocol.md), and the diagnostic API tests and page scripts see.
import { CATALOGUE_VERSION } from '../catalogue.js';
import { createBus } from '../bus.js';
import { createQueueState, replaceQueue, queueDocument } from '../queue_state.js';
import { buildDraft } from '../teach/draft_builder.js';
import { runTool } from '../teach/runner.js';
import { $ } from '../ui/dom.js';

export function serveShell(ctx, teach) {
  const { shell, state, bus, durable, persister, ui } = ctx;
  const summary = () => ({ tickets: state.tickets.length, matches: state.matches.length, selected: state.selectedId, webmcp: document.body.dataset.webmcp, catalogueVersion: CATALOGUE_VERSION, queueName: state.queueName });
  shell.serve({
    run: (request, signal) => runForShell(ctx, teach.feedback, request, signal),
    trial: (request) => trialForShell(state, request),
    draft: ({ recording, pairWith, meta }) => {
      const built = buildDraft({ recording, pairWith, meta });
      return built.error ? { error: built.error } : { definition: built.definition, problems: built.problems, warnings: built.warnings };
    },
    library: (view) => {
      if (Array.isArray(view.recordings)) teach.lib.mergeRecordings?.(view.recordings);
      teach.lib.setView?.(view);
      return null;
    },
    summary,
    exportQueue: () => queueDocument(state),
    loadQueue: (request) => loadQueueFrom(ctx, request),
    saved: (request) => { durable.runSaved(request); return null; },
    show: ({ what }) => show(ui, teach.help, what),
    undo: () => ui.history.undo(),
    redo: () => ui.history.redo(),
    flush: async () => {
      ctx.view.flush();
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
    teach: () => { ui.teach.toggleTeach(); return teach.recorder.active; },
    recordings: () => teach.recordings.all(),
    tools: () => teach.lib.list(),
  });
}

/** The window's menus: View › Library, View › Recordings, Help › Keyboard shortcuts. */
function show(ui, help, what) {
  if (what === 'library') ui.teach.openLibrary();
  else if (what === 'recordings') ui.teach.showRecordings();
  else if (what === 'shortcuts') help.open();
  return null;
}

/** A queue the shell hands over (a file opened, or its saved copy after a problem). */
async function loadQueueFrom(ctx, { url, generation = null, revision = null, notice = '' }) {
  const { state, ui, persister, durable, toast } = ctx;
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
async function runForShell(ctx, feedback, request, signal) {
  const definition = { name: String(request.tool), steps: request.steps, inputSchema: request.inputSchema };
  const by = request.by === 'person' ? 'person' : 'agent';
  const outcome = await runTool({
    definition, input: request.input ?? {}, signal, bus: ctx.bus, by, deadline: request.deadline ?? null,
    onStep: (step) => feedback.onRunStep(definition.name, step, by),
  });
  feedback.onRunEnd(definition.name, outcome, by);
  // The run's changes, drawn once; the person's view is as they left it. The pickers' options
  // are rebuilt only if the run changed tags (the one kind of option a run can add).
  const tagsChanged = (outcome.changes ?? []).some(([, field]) => field === 'tags');
  ctx.ui.render(tagsChanged);
  ctx.durable.runApplied(outcome);
  return outcome;
}

/** The same steps on a copy of the queue: what a run would change now, changing nothing. */
async function trialForShell(state, request) {
  const definition = { name: String(request.tool), steps: request.steps, inputSchema: request.inputSchema };
  const scratch = createQueueState(structuredClone(queueDocument(state)));
  scratch.badges = new Map();
  const copy = createBus({ state: scratch });
  const outcome = await runTool({ definition, input: request.input ?? {}, bus: copy, by: 'person' });
  delete outcome.changes; // the shell needs only which tickets, not their new values
  return outcome;
}
