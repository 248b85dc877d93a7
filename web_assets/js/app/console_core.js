// The console's core, shared by every view: the queue state, its IndexedDB persister, the
// durability link to the shell, the bus every change goes through, and the toast. What the
// bus reports is fanned out here: stored, acknowledged, noted for undo, drawn.
import { createBus } from '../bus.js';
import { createQueueState, queueDocument } from '../queue_state.js';
import { createPersister } from '../persist.js';
import { createDurability } from '../durable.js';
import { createToast } from '../ui/toast.js';

const TAG_COMMANDS = new Set(['set_ticket_tags', 'add_ticket_tag', 'remove_ticket_tag', 'tag_matching_tickets', 'untag_matching_tickets']);
const VIEW_COMMANDS = new Set(['filter_tickets', 'select_ticket']);
const VIEW_PUSH_MS = 300;

/**
 * ctx: { shell, db, state, persister, durable, toast, bus, view, ui }
 *   ui.render(optionsChanged) and ui.teach / ui.history are filled in as the views mount.
 */
export async function createConsole({ shell, db, start }) {
  const state = createQueueState(start.doc);
  state.badges = new Map(); // ticket id -> { by, tool }: which taught tool last changed it
  const persister = createPersister(db, state);
  const sync = { generation: start.sync?.generation ?? null, revision: start.sync?.revision ?? 0, dirty: false };
  if (!start.fromCache) await persister.replaceAll(queueDocument(state), sync);
  else persister.syncState(sync);
  const durable = createDurability({ shell, persister });
  durable.adopt(sync);
  const toast = createToast();
  if (start.notice) toast.show(start.notice, { ms: 10000 });
  const ctx = { shell, db, state, persister, durable, toast, bus: null, view: viewPusher(shell, state), ui: { render: null, teach: null, history: null } };
  ctx.bus = createBus({ state, onChange: (entry) => changed(ctx, entry) });
  return ctx;
}

/** The person's filter and open ticket, told to the shell a moment after they settle. */
function viewPusher(shell, state) {
  let timer = null;
  const push = () => shell.push({ event: 'view', view: { filter: { ...state.filter }, selectedId: state.selectedId } });
  return {
    changed() { clearTimeout(timer); timer = setTimeout(push, VIEW_PUSH_MS); },
    flush() { clearTimeout(timer); push(); },
  };
}

function changed(ctx, entry) {
  const ids = [...new Set(entry.changes.map((c) => c.ticket_id))];
  if (ids.length) ctx.persister.ticketsChanged(ids);
  // A run's steps are drawn once, when it ends (runs have their own view; see runTool).
  if (entry.source === 'tool') return;
  if (entry.changes.length) ctx.durable.commit(entry);
  ctx.ui.history?.note(entry);
  if (VIEW_COMMANDS.has(entry.id)) {
    ctx.persister.viewChanged();
    ctx.view.changed();
  }
  ctx.ui.render?.(TAG_COMMANDS.has(entry.id));
}
