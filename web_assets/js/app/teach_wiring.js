// Teaching and the library: recordings, drafts, run feedback, and either the desktop shell's
// teaching and library (mirrored into the page's WebMCP registration) or, in a plain browser,
// the page's own recorder and library. Then the teach views, undo history, shortcuts and the
// welcome.
import { createTicketTools } from '../ui/ticket_tools.js';
import { createRecorder } from '../teach/recorder.js';
import { createShellLibrary } from '../teach/shell_library.js';
import { createShellTeaching, createShellRecordings } from '../teach/shell_teaching.js';
import { createMirror } from '../teach/mirror.js';
import { mountTeachUi } from '../ui/teach_ui.js';
import { createRunFeedback } from '../ui/run_feedback.js';
import { installShortcuts } from '../ui/shortcuts.js';
import { createPlainHistory, createShellHistory } from '../ui/history.js';
import { createShortcutsHelp } from '../ui/shortcuts_help.js';
import { $ } from '../ui/dom.js';
import { isRefusal } from '../shell_api.js';
import { openRecordings } from './recordings_store.js';
import { standaloneLibrary } from './standalone.js';

/** @typedef {Awaited<ReturnType<typeof mountTeach>>} Teach */

/**
 * @param {import('./console_core.js').Console} ctx
 * @param {import('./views.js').Views} views
 * @param {boolean} firstRun
 */
export async function mountTeach(ctx, views, firstRun) {
  const { state, bus, shell, ui, toast } = ctx;
  const feedback = createRunFeedback({ state, onBadges: () => views.list.refresh() });
  ui.feedback = feedback;
  /** @type {Map<string, import('../teach/local_approvals.js').DraftEntry>} */
  const drafts = new Map();
  /** @type {import('../ui/teach_ui.js').TeachRecorder} */
  let recorder;
  /** @type {import('../ui/teach_ui.js').Recordings} */
  let recordings;
  /** @type {import('../teach/shell_library.js').Library} */
  let lib;
  /** @type {import('../teach/local_approvals.js').Approvals | null} */
  let approvals = null;
  if (shell.present) {
    recorder = createShellTeaching({ shell });
    recordings = createShellRecordings({ shell, onChange: () => ui.teach?.recordingsChanged() });
    lib = await shellLibrary(ctx);
  } else {
    /** @param {'person' | 'template'} kind @param {unknown} value */
    const nameOf = (kind, value) => (kind === 'person' ? state.assignees : state.templates).find((x) => x.id === value)?.name ?? null;
    recorder = createRecorder({ bus, currentFilter: () => state.filter, nameOf });
    recordings = await openRecordings(ctx.db);
    ({ lib, approvals } = await standaloneLibrary({ db: ctx.db, bus, recordings, drafts, feedback, ui }));
  }
  /** @param {number} seq */
  const undo = (seq) => {
    void ctx.queue.undo(seq).then((out) => toast.show(!isRefusal(out) && out?.kept ? 'Undone, except what was changed again since.' : 'Undone.'));
  };
  ui.teach = mountTeachUi({ state, recorder, recordings, drafts, lib, approvals, toast, undo });
  ui.teach.renderLibrary();
  ui.history = shell.present
    ? createShellHistory({ queue: ctx.queue, toast })
    : createPlainHistory({ toast });
  const help = createShortcutsHelp();
  const ticketTools = createTicketTools({ tools: ui.teach, toast, state, selection: views.list });
  ui.marksChanged = () => ticketTools.selectionChanged();
  installShortcuts({ list: views.list, teach: ui.teach, history: ui.history, help, ticketTools });
  if (firstRun) showWelcome();
  return { recorder, recordings, lib, feedback, help };
}

/**
 * The shell's library, mirrored into this page's WebMCP registration for agents here.
 * @param {import('./console_core.js').Console} ctx
 */
async function shellLibrary(ctx) {
  const { shell, ui } = ctx;
  const mirror = createMirror({ call: (name, args) => shell.ask({ kind: 'call', name, arguments: args }) });
  const lib = createShellLibrary({
    shell,
    onChange: () => {
      ui.teach?.renderLibrary();
      mirror.sync(lib.list());
    },
  });
  await mirror.registerBuiltins();
  return lib;
}

/** First run (no stored queue yet): three sentences on Teach, the library and packs. */
function showWelcome() {
  const welcome = $('welcome');
  welcome.hidden = false;
  $('welcome-dismiss').addEventListener('click', () => { welcome.hidden = true; $('queue-list').focus(); });
}
