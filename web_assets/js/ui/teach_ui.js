// Teach: the Teach button and recorder, the editor, the approval card, the library and
// repair, wired together. Each view lives in its own module; this one only composes them.
// Everything is built with el() and textContent: names and descriptions may come from an
// agent and are shown as text, never as markup.
import { $ } from './dom.js';
import { isRefusal } from '../shell_api.js';
import { CATALOGUE } from '../catalogue.js';
import { repairDefinition, RepairError } from '../teach/repair.js';
import { createRecordingsView } from './recordings_view.js';
import { createDraftEditor } from './draft_editor.js';
import { createApprovalOverlay } from './approval_overlay.js';
import { createLibraryView } from './library_view.js';

/**
 * @typedef {import('../teach/shell_library.js').LibraryTool} LibraryTool
 * @typedef {import('../teach/shell_library.js').Library} Library
 * @typedef {import('../teach/shell_library.js').LibraryReply} LibraryReply
 * @typedef {import('../teach/shell_library.js').PublishRequest} PublishRequest
 * @typedef {import('../teach/local_approvals.js').DraftEntry} DraftEntry
 * @typedef {import('../teach/recorder.js').Recording} Recording
 */
/**
 * Who records: the shell (it records what it applies), or, where the page is the whole app,
 * the page's own recorder.
 * @typedef {import('../teach/shell_teaching.js').ShellTeaching | import('../teach/recorder.js').Recorder} TeachRecorder
 */
/**
 * The recordings: the shell's (renamed and deleted in its dialogs) or the page's own.
 * @typedef {import('../teach/shell_teaching.js').ShellRecordings | import('../app/recordings_store.js').LocalRecordings} Recordings
 */
/** @typedef {ReturnType<typeof mountTeachUi>} TeachUi */
/**
 * @typedef {object} TeachView
 * @property {TeachRecorder} recorder
 * @property {Recordings} recordings
 * @property {Map<string, DraftEntry>} drafts
 * @property {Library} lib
 * @property {import('../teach/local_approvals.js').Approvals | null} approvals
 * @property {import('./toast.js').Toast} toast
 * @property {HTMLElement} panel
 * @property {HTMLElement} drawer
 * @property {HTMLElement} teachButton
 * @property {ReturnType<typeof createApprovalOverlay>} overlay
 * @property {{ tool: LibraryTool, step: number } | null} repairing while a person re-does one step
 * @property {boolean} stopping the shell is asking whether to keep what was recorded
 * @property {ReturnType<typeof createDraftEditor>} editor
 * @property {ReturnType<typeof createLibraryView>} libraryView
 */

/**
 * The definition fields of a library entry (the view also carries status and counts).
 * @param {LibraryTool} tool
 * @returns {import('../teach/compile.js').Definition}
 */
function definitionOf(tool) {
  const { name, title, description, inputSchema, annotations, steps } = tool;
  return structuredClone({ name, title: title ?? '', description, inputSchema, annotations, steps });
}

/**
 * @param {object} options
 * @param {import('../app/console_core.js').ConsoleState} options.state
 * @param {TeachRecorder} options.recorder
 * @param {Recordings} options.recordings
 * @param {Map<string, DraftEntry>} options.drafts
 * @param {Library} options.lib
 * @param {import('../teach/local_approvals.js').Approvals | null} options.approvals
 * @param {import('./toast.js').Toast} options.toast
 * @param {(seq: number) => void} [options.undo] undo the person's change `seq` (a run on a selection)
 */
export function mountTeachUi({ state, recorder, recordings, drafts, lib, approvals, toast, undo }) {
  const panel = $('teach-panel');
  const drawer = $('library-panel');
  const teachButton = $('teach-button');
  const overlay = createApprovalOverlay({ decidesInDialog: lib.decidesInDialog });
  const editor = createDraftEditor({
    panel, library: drawer, drafts, toast,
    onPublish: (entry) => publish(t, entry, {
      definition: entry.definition, recordingId: entry.recordingId, draftId: entry.id,
      ...(entry.pairWith ? { pairWith: entry.pairWith } : {}),
      words: { name: entry.meta?.name ?? '', title: entry.meta?.title ?? '', description: entry.meta?.description ?? '' },
      asks: Object.fromEntries(entry.draft.params.map((p) => [p.name, { bind: p.bound, description: p.description }])),
    }),
  });
  const recordingsView = createRecordingsView({ panel, library: drawer, recordings, toast, openEditor: (r, d, second) => t.editor.open(r, d, second), startDraft: (r) => t.editor.start(r) });
  const libraryView = createLibraryView({ drawer, panel, lib, state, toast, onRepair: (tool, step) => startRepair(t, tool, step), undo });
  /** @type {TeachView} */
  const t = { recorder, recordings, drafts, lib, approvals, toast, panel, drawer, teachButton, overlay, repairing: null, stopping: false, editor, libraryView };
  $('library-button').addEventListener('click', () => t.libraryView.open());
  $('recordings-button').addEventListener('click', () => recordingsView.show());
  t.teachButton.addEventListener('click', () => toggleTeach(t));
  /** @param {number} count */
  const stepLabel = (count) => {
    if (recorder.active) $('teach-label').textContent = `${t.repairing ? 'Stop repairing' : 'Stop teaching'} (${count})`;
  };
  // The page's own recorder says when it records a step (the shell says so in its answers).
  if (!recorder.decidedByShell) recorder.onStep = () => stepLabel(/** @type {Recording} */ (recorder.recording).steps.length);
  return {
    toggleTeach: () => toggleTeach(t),
    showRecordings: () => recordingsView.show(),
    openLibrary: () => t.libraryView.open(),
    ticketTools: () => t.libraryView.ticketTools(),
    /** @param {import('../teach/shell_library.js').LibraryTool} tool */
    runOnTicket: (tool) => t.libraryView.runOnTicket(tool),
    /** @param {import('../teach/shell_library.js').LibraryTool} tool @param {string[]} tickets @param {() => void} done */
    runOnSelection: (tool, tickets, done) => t.libraryView.runOnSelection(tool, tickets, done),
    renderLibrary: () => t.libraryView.render(),
    renderApproval: () => renderApproval(t),
    recordingsChanged: () => { if (recordingsView.shown) recordingsView.show(); },
    /**
     * The shell started or stopped teaching (its menu, or its dialog).
     * @param {Protocol.TeachingRequest} state
     */
    teachingState(state) {
      if (recorder.decidedByShell) recorder.setState(state);
      if (!state.active && !t.stopping) { t.repairing = null; }
      setRecordingLook(t, Boolean(state.active), state.active ? `${state.repairTool ? 'Stop repairing' : 'Stop teaching'} (${state.steps})` : 'Teach');
    },
    /** @param {number} count */
    teachSteps(count) { if (recorder.decidedByShell) recorder.setSteps(count); stepLabel(count); },
    get openDraftId() { return t.editor.openDraftId; },
  };
}

/**
 * @param {TeachView} t
 * @param {boolean} on
 * @param {string} label
 */
function setRecordingLook(t, on, label) {
  document.body.classList.toggle('recording', on);
  t.teachButton.setAttribute('aria-pressed', on ? 'true' : 'false');
  $('teach-label').textContent = label;
}

/** @param {TeachView} t */
function toggleTeach(t) {
  const { recorder, toast } = t;
  if (recorder.decidedByShell) return toggleShellTeach(t, recorder);
  if (!recorder.active) {
    recorder.start();
    setRecordingLook(t, true, 'Stop teaching');
    toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
    return;
  }
  const recording = /** @type {Recording} */ (recorder.stop()); // it was recording
  setRecordingLook(t, false, 'Teach');
  if (t.repairing) { finishRepair(t, recording); return; }
  if (!recording.steps.length) {
    toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
    return;
  }
  // Where the page records, it keeps the recordings too.
  /** @type {import('../app/recordings_store.js').LocalRecordings} */ (t.recordings).save(recording);
  toast.show(`Recorded ${recording.steps.length} step${recording.steps.length === 1 ? '' : 's'}. Review it to make a tool.`);
  t.editor.start(recording);
}

/**
 * Teach in the desktop app: the shell records, and asks whether to keep the recording.
 * @param {TeachView} t
 * @param {import('../teach/shell_teaching.js').ShellTeaching} recorder t's
 */
async function toggleShellTeach(t, recorder) {
  const { toast } = t;
  if (!recorder.active) {
    const repair = t.repairing ? { tool: t.repairing.tool.name, step: t.repairing.step } : null;
    setRecordingLook(t, true, repair ? 'Stop repairing' : 'Stop teaching');
    if (!repair) toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
    const reply = await recorder.start(repair);
    if (isRefusal(reply)) {
      t.repairing = null;
      setRecordingLook(t, false, 'Teach');
      toast.show(reply.message, { kind: 'error' });
    }
    return;
  }
  setRecordingLook(t, false, 'Teach');
  t.stopping = true;
  const reply = await recorder.stop();
  t.stopping = false;
  const stopped = isRefusal(reply) ? null : reply;
  // A repair's answer and a kept one carry the recording (bridge/to_page.py TeachStopped).
  if (stopped?.repair && t.repairing) { finishRepair(t, /** @type {Protocol.Recording} */ (stopped.recording)); return; }
  t.repairing = null;
  if (isRefusal(reply)) {
    toast.show(reply.message ?? 'Teaching could not stop properly.', { kind: 'error' });
  } else if (!reply) {
    toast.show('Teaching could not stop properly.', { kind: 'error' });
  } else if (reply.kept) {
    const recording = /** @type {Protocol.Recording} */ (reply.recording);
    const count = recording.steps.length;
    toast.show(`Recorded ${count} step${count === 1 ? '' : 's'}. Review it to make a tool.`);
    t.editor.start(recording);
  } else if (reply.recorded === 0) {
    toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
  } else {
    toast.show('The recording was not kept.');
  }
}

/**
 * Say what came of a publish, however it was decided.
 * @param {TeachView} t
 * @param {string} name
 * @param {LibraryReply} reply
 */
function announce(t, name, reply) {
  if (reply?.isError) {
    if (reply.code === 'consent_denied') t.toast.show(`${name} was not published.`);
    else t.toast.show(reply.message ?? '', { kind: 'error' });
    return;
  }
  t.toast.show(reply?.repaired ? `Repaired ${name}. Agents use the new step from now on.` : `Published ${name}. Agents can use it now.`);
  t.panel.hidden = true;
}

/**
 * @param {TeachView} t
 * @param {DraftEntry} entry
 * @param {PublishRequest} request
 */
async function publish(t, entry, request) {
  const { lib, overlay } = t;
  if (lib.decidesInDialog) overlay.show(entry);
  const reply = await lib.publish(request);
  if (lib.decidesInDialog) overlay.hide();
  // Said by the name people know it by; what agents call it stays in the editor.
  announce(t, entry.definition.title || entry.definition.name, reply);
  t.libraryView.render();
}

/**
 * Repair: re-do one step; the shell (or the overlay) approves the result.
 * @param {TeachView} t
 * @param {LibraryTool} tool
 * @param {number} stepIndex
 */
function startRepair(t, tool, stepIndex) {
  t.repairing = { tool, step: stepIndex };
  t.drawer.hidden = true;
  const title = CATALOGUE[tool.steps[stepIndex].command]?.title ?? 'the step';
  const say = () => t.toast.show(`Repairing ${tool.name}: do step ${stepIndex + 1} (${title}) again the way it should be done, then press Stop.`, { ms: 10000 });
  const { recorder } = t;
  if (recorder.decidedByShell === true) {
    toggleShellTeach(t, recorder).then(() => { if (t.repairing) say(); });
    return;
  }
  recorder.start(`Repair of ${tool.name}`);
  setRecordingLook(t, true, 'Stop repairing');
  say();
}

/**
 * @param {TeachView} t
 * @param {{ steps: import('../teach/generalize.js').RecordedStep[] }} recording
 */
function finishRepair(t, recording) {
  const { tool, step } = /** @type {NonNullable<TeachView['repairing']>} */ (t.repairing); // called while repairing
  t.repairing = null;
  try {
    const definition = repairDefinition(definitionOf(tool), step, recording.steps);
    /** @type {DraftEntry} */
    const entry = { id: `repair-${Date.now()}`, draft: { params: [], steps: definition.steps, warnings: [] }, definition, problems: [], replaces: tool.name, by: 'person' };
    t.drafts.set(entry.id, entry);
    // In the desktop app the shell checks the repair against its own recording of the step.
    publish(t, entry, { definition, replaces: tool.name, repairStep: step, draftId: entry.id });
  } catch (err) {
    if (err instanceof RepairError) t.toast.show(err.message, { kind: 'error' });
    else throw err;
  }
}

/**
 * The page's own approvals (only where no desktop app decides).
 * @param {TeachView} t
 */
function renderApproval(t) {
  const { approvals } = t;
  const pending = approvals ? approvals.list() : [];
  if (!approvals || !pending.length) { t.overlay.hide(); return; }
  const record = pending[0];
  t.overlay.show(record.draft, {
    onApprove: () => approvals.approve(record.draft.id, record.draft.by),
    onReject: () => approvals.reject(record.draft.id, 'rejected by the person'),
  });
}
