// What the desktop shell may ask of the page (js/shell_api.js carries the messages; every
// message is listed in docs/protocol.md, and typed by web_assets/types/protocol.d.ts: each
// handler takes its Protocol.ShellRequests and answers its Protocol.PageAnswers), and the
// diagnostic API tests and page scripts see.
// Nothing here decides what happened to the queue: the shell applied it, and `feed` draws it.
import { CATALOGUE_VERSION } from '../catalogue.js';
import { replaceQueue, queueDocument } from '../queue_state.js';
import { $ } from '../ui/dom.js';

const VIEW_COMMANDS = new Set(['filter_tickets', 'select_ticket']);

/** @typedef {import('./console_core.js').Console} Console */

/**
 * @param {Console} ctx
 * @param {import('./teach_wiring.js').Teach} teach
 */
export function serveShell(ctx, teach) {
  const { shell, state, bus, durable, persister, ui } = ctx;
  /** @returns {Protocol.Summary} */
  const summary = () => ({ tickets: state.tickets.length, matches: state.matches.length, selected: state.selectedId, webmcp: document.body.dataset.webmcp, catalogueVersion: CATALOGUE_VERSION, queueName: state.queueName });
  shell.serve({
    feed: ({ entries }) => { ctx.queue.feedMany(entries); return null; },
    teaching: (request) => { ui.teach?.teachingState(request); return null; },
    helpdesk: (standing) => { showHelpdesk(ctx, standing); return null; },
    storageOk: () => { durable.recovered(); return null; },
    library: (view) => {
      if (teach.recordings.decidedByShell) teach.recordings.setAll(view.recordings);
      teach.lib.setView?.(view);
      return null;
    },
    summary,
    loadQueue: (request) => loadQueueFrom(ctx, request),
    saved: (request) => { ctx.queue.queueSaved(request); return null; },
    show: ({ what }) => show(ui, teach.help, what),
    /** @returns {Promise<true>} */
    flush: async () => {
      await durable.idle();
      await persister.idle();
      return true;
    },
  }, {
    // For diagnostics and tests: reads, and the same commands a person's clicks send.
    summary,
    saveState: () => ({ unsaved: durable.unsaved, revision: durable.revision }),
    whenSaved: () => durable.idle(),
    /** @param {string} id @param {Record<string, unknown>} payload @param {string} [source] */
    dispatch: (id, payload, source = 'shell') => apiDispatch(ctx, id, payload, source),
    log: () => bus.log(),
    exportQueue: () => queueDocument(state),
    teach: () => { ui.teach?.toggleTeach(); return teach.recorder.active; },
    recordings: () => teach.recordings.all(),
    tools: () => teach.lib.list(),
  });
}

/**
 * Where the connected helpdesk's changes stand: the shell's words, drawn as they are.
 * @param {Console} ctx
 * @param {Partial<Protocol.HelpdeskRequest>} [standing]
 */
function showHelpdesk(ctx, { title = '', inWords = '', tickets = {} } = {}) {
  /** @type {Map<string, { state: string, words: string }>} */
  const byTicket = new Map();
  for (const [id, standing] of Object.entries(tickets || {})) {
    if (standing && typeof standing.words === 'string') byTicket.set(id, { state: String(standing.state || ''), words: standing.words });
  }
  ctx.state.helpdesk = title ? { title: String(title), inWords: String(inWords), tickets: byTicket } : null;
  ctx.ui.render?.(false);
}

/**
 * A command from a script: a read answers from the page's copy; a change or a view command is
 * a person's command like any click (in the desktop app, sent to the shell, which applies it).
 * The answer is the page's own outcome at once (without the shell's reply).
 * @param {Console} ctx
 * @param {string} id
 * @param {Record<string, unknown>} payload
 * @param {string} source
 */
function apiDispatch(ctx, id, payload, source) {
  const command = ctx.bus.catalogue[id];
  if (ctx.shell.present && command && (command.mutates || VIEW_COMMANDS.has(id))) {
    const sent = ctx.queue.send(id, payload);
    if (!('answered' in sent)) return sent; // refused here: nothing was sent
    const { answered: _answered, ...outcome } = sent;
    return outcome;
  }
  return ctx.bus.dispatch(id, payload, { source });
}

/**
 * The window's menus: View › Library, View › Recordings, Help › Keyboard shortcuts.
 * @param {import('./console_core.js').ConsoleUi} ui
 * @param {{ open(): void }} help
 * @param {Protocol.ShowRequest['what']} what
 * @returns {null}
 */
function show(ui, help, what) {
  if (what === 'library') ui.teach?.openLibrary();
  else if (what === 'recordings') ui.teach?.showRecordings();
  else if (what === 'shortcuts') help.open();
  return null;
}

/**
 * A queue the shell hands over (a file opened, or its saved copy after a problem).
 * @param {Console} ctx
 * @param {Protocol.LoadQueueRequest} request
 * @returns {Promise<Protocol.QueueLoaded>}
 */
async function loadQueueFrom(ctx, { url, generation = null, revision = null, notice = '' }) {
  const { state, ui, persister, durable, toast } = ctx;
  const t0 = performance.now();
  const response = await fetch(url);
  if (!response.ok) throw new Error('the shell did not hand over the queue');
  const next = await response.json();
  const t1 = performance.now();
  replaceQueue(state, next);
  state.badges.clear();
  state.marked.clear(); // a new queue's tickets are not the ones selected (ids may repeat)
  ui.marksChanged?.();
  ctx.queue.adopted({ generation, revision });
  $('queue-list').scrollTop = 0;
  ui.render?.(true);
  const t2 = performance.now();
  await persister.replaceAll(queueDocument(state), { generation, revision: revision ?? 0, dirty: revision === null });
  durable.adopt({ generation, revision }, { keepFailure: Boolean(notice) });
  if (notice) toast.show(notice, { ms: 10000 });
  const t3 = performance.now();
  return { tickets: state.tickets.length, ms: { fetch: t1 - t0, show: t2 - t1, store: t3 - t2 } };
}
