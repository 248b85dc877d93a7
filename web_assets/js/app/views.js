// The console's views for a person: the queue list, the filter bar, the detail pane and the
// header's counts, and the one way a control changes anything (uiDispatch).
import { provenanceFor } from '../teach/provenance.js';
import { mountQueueList } from '../ui/queue_list.js';
import { mountFilterBar } from '../ui/filter_bar.js';
import { mountDetailPane } from '../ui/detail_pane.js';
import { $, setText } from '../ui/dom.js';
import { statusCounts } from '../queue_state.js';
import { isRefusal } from '../shell_api.js';

/**
 * @typedef {import('./console_core.js').Console} Console
 * @typedef {{ list: import('../ui/queue_list.js').QueueList, filters: ReturnType<typeof mountFilterBar>, detail: ReturnType<typeof mountDetailPane> }} Views
 */

/** @param {Console} ctx */
export function mountViews(ctx) {
  /** @type {import('../ui/detail_pane.js').Dispatch} */
  const dispatch = (id, payload, control) => uiDispatch(ctx, views, id, payload, control);
  const list = mountQueueList({
    state: ctx.state,
    onSelect: (ticketId) => dispatch('select_ticket', { ticket_id: ticketId }, 'queue-list'),
    onMarks: () => ctx.ui.marksChanged?.(),
  });
  /** @type {Views} */
  /** @type {import('../ui/detail_pane.js').Typing} */
  const typing = (ticket) => { if (ctx.shell.present) void ctx.shell.ask({ kind: 'typing', ticket }); };
  const views = { list, filters: mountFilterBar({ state: ctx.state, dispatch }), detail: mountDetailPane({ state: ctx.state, dispatch, typing }) };
  ctx.ui.render = (optionsChanged) => {
    if (optionsChanged) { views.filters.renderOptions(); views.detail.renderOptions(); }
    views.filters.render();
    views.detail.render();
    views.list.refresh();
    renderStats(ctx);
  };
  ctx.ui.render(true);
  return views;
}

/**
 * The counts a set-based command answers with (how many it matched, how many it changed).
 * @typedef {{ matched: number, changed: number }} Counts
 */

/**
 * What a control does: send the command, then say what happened in words.
 * @param {Console} ctx
 * @param {Views} views
 * @param {string} id
 * @param {Record<string, unknown>} payload
 * @param {string} control
 */
function uiDispatch(ctx, views, id, payload, control) {
  const { queue, toast } = ctx;
  const outcome = queue.send(id, payload, { control, provenance: provenanceFor(id, payload, control) });
  if (outcome.ok === false) {
    toast.show(outcome.error.message, { kind: 'error' });
    ctx.ui.render?.(false);
    return false;
  }
  const counts = /** @type {Partial<Counts> | null} */ (outcome.result);
  if (counts && typeof counts.changed === 'number') {
    // Said once the change is saved, in the numbers it was saved with: the acknowledgement.
    outcome.answered.then((reply) => {
      if (isRefusal(reply)) return; // already said, and put back
      const r = /** @type {Counts} */ (reply?.result ?? outcome.result);
      const seq = reply?.seq ?? outcome.seq;
      toast.show(`Changed ${r.changed.toLocaleString('en')} of ${r.matched.toLocaleString('en')} matching tickets.`, {
        // Undo is the shell's (a plain browser keeps none).
        undo: r.changed && ctx.shell.present ? () => queue.undo(seq).then((out) => toast.show(!isRefusal(out) && out?.kept ? 'Undone, except what was changed again since.' : 'Undone.')) : null,
      });
    });
  }
  if (id === 'select_ticket') views.list.scrollToSelected();
  return true;
}

/** @param {Console} ctx */
function renderStats({ state, shell }) {
  const counts = statusCounts(state);
  setText($('top-stats'), `${counts.new.toLocaleString('en')} new · ${counts.open.toLocaleString('en')} open · ${counts.pending.toLocaleString('en')} pending`);
  setText($('queue-name'), state.queueName);
  // In the desktop app the window's status bar says whether an agent is connected.
  const mode = document.body.dataset.webmcp;
  setText($('webmcp-state'), shell.present ? '' : (mode === 'degraded' ? 'Agents in this browser: off' : 'Agents in this browser: on'));
}
