// The console's views for a person: the queue list, the filter bar, the detail pane and the
// header's counts, and the one way a control changes anything (uiDispatch).
import { provenanceFor } from '../teach/provenance.js';
import { mountQueueList } from '../ui/queue_list.js';
import { mountFilterBar } from '../ui/filter_bar.js';
import { mountDetailPane } from '../ui/detail_pane.js';
import { $, setText } from '../ui/dom.js';

export function mountViews(ctx) {
  const views = { list: null, filters: null, detail: null };
  const dispatch = (id, payload, control) => uiDispatch(ctx, views, id, payload, control);
  views.list = mountQueueList({ state: ctx.state, onSelect: (ticketId) => dispatch('select_ticket', { ticket_id: ticketId }, 'queue-list') });
  views.filters = mountFilterBar({ state: ctx.state, dispatch });
  views.detail = mountDetailPane({ state: ctx.state, dispatch });
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

/** What a control does: dispatch, then say what happened in words. */
function uiDispatch(ctx, views, id, payload, control) {
  const { bus, toast, durable } = ctx;
  const outcome = bus.dispatch(id, payload, { source: 'ui', control, provenance: provenanceFor(id, payload, control) });
  if (!outcome.ok) {
    toast.show(outcome.error.message, { kind: 'error' });
    ctx.ui.render(false);
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
  if (id === 'select_ticket') views.list.scrollToSelected();
  return true;
}

function renderStats({ state, shell }) {
  const counts = { new: 0, open: 0, pending: 0 };
  for (const t of state.tickets) if (t.status in counts) counts[t.status] += 1;
  setText($('top-stats'), `${counts.new.toLocaleString('en')} new · ${counts.open.toLocaleString('en')} open · ${counts.pending.toLocaleString('en')} pending`);
  setText($('queue-name'), state.queueName);
  // In the desktop app the window's status bar says whether an agent is connected.
  const mode = document.body.dataset.webmcp;
  setText($('webmcp-state'), shell.present ? '' : (mode === 'degraded' ? 'Agents in this browser: off' : 'Agents in this browser: on'));
}
