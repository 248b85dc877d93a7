// Teaching and the library: the recorder, recordings, drafts, run feedback, and either the
// desktop shell's library (mirrored into the page's WebMCP registration) or, in a plain
// browser, the page's own. Then the teach views, undo history, shortcuts and the welcome.
import { createRecorder } from '../teach/recorder.js';
import { createShellLibrary } from '../teach/shell_library.js';
import { createMirror } from '../teach/mirror.js';
import { mountTeachUi } from '../ui/teach_ui.js';
import { createRunFeedback } from '../ui/run_feedback.js';
import { installShortcuts } from '../ui/shortcuts.js';
import { createHistory } from '../ui/history.js';
import { createShortcutsHelp } from '../ui/shortcuts_help.js';
import { $ } from '../ui/dom.js';
import { openRecordings } from './recordings_store.js';
import { standaloneLibrary } from './standalone.js';

export async function mountTeach(ctx, views, firstRun) {
  const { state, bus, shell, ui, toast } = ctx;
  const nameOf = (kind, value) => (kind === 'person' ? state.assignees : state.templates).find((x) => x.id === value)?.name ?? null;
  const recorder = createRecorder({ bus, currentFilter: () => state.filter, nameOf });
  const recordings = await openRecordings(ctx.db, shell);
  const drafts = new Map();
  const feedback = createRunFeedback({ state, onBadges: () => views.list.refresh() });
  const { lib, approvals } = shell.present
    ? { lib: await shellLibrary(ctx, recordings), approvals: null }
    : await standaloneLibrary({ db: ctx.db, bus, recordings, drafts, feedback, ui });
  ui.teach = mountTeachUi({ state, recorder, recordings, drafts, lib, approvals, toast });
  ui.teach.renderLibrary();
  ui.history = createHistory({ bus, toast, onChange: () => ui.render(true) });
  const help = createShortcutsHelp();
  installShortcuts({ list: views.list, teach: ui.teach, history: ui.history, help });
  if (firstRun) showWelcome();
  return { recorder, recordings, lib, feedback, help };
}

/** The shell's library, mirrored into this page's WebMCP registration for agents here. */
async function shellLibrary(ctx, recordings) {
  const { shell, ui } = ctx;
  const mirror = createMirror({ call: (name, args) => shell.ask({ kind: 'call', name, arguments: args }) });
  let mergedRecordings = false;
  const lib = createShellLibrary({
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
  return lib;
}

/** First run (no stored queue yet): three sentences on Teach, the library and packs. */
function showWelcome() {
  const welcome = $('welcome');
  welcome.hidden = false;
  $('welcome-dismiss').addEventListener('click', () => { welcome.hidden = true; $('queue-list').focus(); });
}
