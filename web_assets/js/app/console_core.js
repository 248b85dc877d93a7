// The console's core, shared by every view: the queue state, its IndexedDB persister, the
// durability footer, the bus, the queue driver every change goes through (the shell's, or in a
// plain browser the page's own), and the toast. What the bus applies is fanned out here:
// stored in the cache, drawn.
import { createBus } from '../bus.js';
import { createQueueState, queueDocument } from '../queue_state.js';
import { createPersister } from '../persist.js';
import { createDurability } from '../durable.js';
import { createShellQueue } from '../shell_queue.js';
import { createLocalQueue } from '../local_queue.js';
import { createToast } from '../ui/toast.js';

const TAG_COMMANDS = new Set(['set_ticket_tags', 'add_ticket_tag', 'remove_ticket_tag', 'tag_matching_tickets', 'untag_matching_tickets']);
const VIEW_COMMANDS = new Set(['filter_tickets', 'select_ticket']);
const CACHE_DELAY_MS = 1000;

/**
 * Which taught tool last changed a ticket, and who ran it.
 * @typedef {{ by: string, tool: string }} Badge
 */
/**
 * Where the connected helpdesk's changes stand (the shell's words, per ticket).
 * @typedef {{ title: string, inWords: string, tickets: Map<string, { state: string, words: string }> }} HelpdeskView
 */
/**
 * The queue as the console shows it: the model's state, the badges, the helpdesk's standing.
 * @typedef {import('../queue_state.js').QueueState & { badges: Map<string, Badge>, marked: Set<string>, helpdesk?: HelpdeskView | null }} ConsoleState
 * marked: the tickets the person selected in the list for a run on all of them
 */
/**
 * What the views fill in as they mount.
 * @typedef {object} ConsoleUi
 * @property {((optionsChanged: boolean | undefined) => void) | null} render
 * @property {import('../ui/teach_ui.js').TeachUi | null} teach
 * @property {import('../ui/history.js').History | null} history
 * @property {import('../ui/run_feedback.js').RunFeedback | null} feedback
 * @property {(() => void) | null} [marksChanged] the tickets selected in the list changed
 */
/**
 * @typedef {object} Console
 * @property {import('../shell_api.js').ShellLink} shell
 * @property {IDBDatabase | null} db
 * @property {ConsoleState} state
 * @property {import('../persist.js').Persister} persister
 * @property {import('../durable.js').Durability} durable
 * @property {import('../ui/toast.js').Toast} toast
 * @property {import('../bus.js').Bus} bus
 * @property {import('../shell_queue.js').QueueDriver} queue
 * @property {ConsoleUi} ui
 */

/**
 * ctx: { shell, db, state, persister, durable, toast, bus, queue, ui }
 *   ui.render(optionsChanged), ui.teach, ui.history and ui.feedback are filled in as the views
 *   mount.
 * @param {object} options
 * @param {import('../shell_api.js').ShellLink} options.shell
 * @param {IDBDatabase | null} options.db
 * @param {import('./queue_start.js').Start} options.start
 * @returns {Promise<Console>}
 */
export async function createConsole({ shell, db, start }) {
  // badges: ticket id -> { by, tool }: which taught tool last changed it
  /** @type {ConsoleState} */
  const state = Object.assign(createQueueState(start.doc), { badges: new Map(), marked: new Set() });
  // In the desktop app IndexedDB is only a cache the page rebuilds from the shell's copy (it
  // is never read back as the queue), so it is written a while after changes settle, off
  // the path of a person's edit; in a plain browser it is the only copy, written at once.
  const persister = createPersister(db, state, { delayMs: shell.present ? CACHE_DELAY_MS : 40 });
  const sync = { generation: start.sync?.generation ?? null, revision: start.sync?.revision ?? 0, dirty: false };
  if (!start.fromCache) await persister.replaceAll(queueDocument(state), sync);
  else persister.syncState(sync);
  const durable = createDurability({ shell, persister });
  durable.adopt(sync);
  const toast = createToast();
  if (start.notice) toast.show(start.notice, { ms: 10000 });
  /** @type {ConsoleUi} */
  const ui = { render: null, teach: null, history: null, feedback: null };
  const bus = createBus({ state, onChange: (entry) => changed(ctx, entry) });
  const queue = shell.present
    ? createShellQueue({
      shell, state, bus, durable, persister, toast,
      feedback: { onRun: (entry) => ui.feedback?.onFeed(entry) },
      onDrawn: (tags) => ui.render?.(tags),
      onTeachSteps: (steps) => ui.teach?.teachSteps(steps),
    })
    : createLocalQueue({ bus });
  /** @type {Console} */
  const ctx = { shell, db, state, persister, durable, toast, bus, queue, ui };
  ctx.queue.adopted(sync);
  return ctx;
}

/**
 * @param {Console} ctx
 * @param {import('../bus.js').BusEvent} entry
 */
function changed(ctx, entry) {
  const ids = [...new Set(entry.changes.map((c) => c.ticket_id))];
  if (ids.length) ctx.persister.ticketsChanged(ids);
  // A run in a plain browser is drawn once, when it ends (runs have their own view).
  if (entry.source === 'tool') return;
  if (VIEW_COMMANDS.has(entry.id)) ctx.persister.viewChanged();
  ctx.ui.render?.(TAG_COMMANDS.has(entry.id));
}
