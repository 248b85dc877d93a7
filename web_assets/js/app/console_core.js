// The console's core, shared by every view: the queue state, its IndexedDB persister, the
// durability footer, the bus, the queue driver every change goes through (the shell's, or in a
// plain browser the page's own), and the toast. What the bus applies is fanned out here:
// stored in the cache, noted for undo, drawn.
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
 * ctx: { shell, db, state, persister, durable, toast, bus, queue, ui }
 *   ui.render(optionsChanged), ui.teach, ui.history and ui.feedback are filled in as the views
 *   mount.
 */
export async function createConsole({ shell, db, start }) {
  const state = createQueueState(start.doc);
  state.badges = new Map(); // ticket id -> { by, tool }: which taught tool last changed it
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
  const ctx = { shell, db, state, persister, durable, toast, bus: null, queue: null, ui: { render: null, teach: null, history: null, feedback: null } };
  ctx.bus = createBus({ state, onChange: (entry) => changed(ctx, entry) });
  ctx.queue = shell.present
    ? createShellQueue({
      shell, state, bus: ctx.bus, durable, persister, toast,
      feedback: { onRun: (entry) => ctx.ui.feedback?.onFeed(entry) },
      onDrawn: (tags) => ctx.ui.render?.(tags),
      onTeachSteps: (steps) => ctx.ui.teach?.teachSteps(steps),
    })
    : createLocalQueue({ bus: ctx.bus });
  ctx.queue.adopted(sync);
  return ctx;
}

function changed(ctx, entry) {
  const ids = [...new Set(entry.changes.map((c) => c.ticket_id))];
  if (ids.length) ctx.persister.ticketsChanged(ids);
  // A run in a plain browser is drawn once, when it ends (runs have their own view).
  if (entry.source === 'tool') return;
  if (!ctx.shell.present) ctx.ui.history?.note(entry);
  if (VIEW_COMMANDS.has(entry.id)) ctx.persister.viewChanged();
  ctx.ui.render?.(TAG_COMMANDS.has(entry.id));
}
