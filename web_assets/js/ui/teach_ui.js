// Teach: the Teach button and recorder, the editor, the approval card, the library and
// repair, wired together. Each view lives in its own module; this one only composes them.
// Everything is built with el() and textContent: names and descriptions may come from an
// agent and are shown as text, never as markup.
import { $ } from './dom.js';
import { CATALOGUE } from '../catalogue.js';
import { repairDefinition, RepairError } from '../teach/repair.js';
import { createRecordingsView } from './recordings_view.js';
import { createDraftEditor } from './draft_editor.js';
import { createApprovalOverlay } from './approval_overlay.js';
import { createLibraryView } from './library_view.js';

/** The definition fields of a library entry (the view also carries status and counts). */
function definitionOf(tool) {
  const { name, title, description, inputSchema, annotations, steps } = tool;
  return structuredClone({ name, title: title ?? '', description, inputSchema, annotations, steps });
}

export function mountTeachUi({ state, recorder, recordings, drafts, lib, approvals, toast }) {
  const panel = $('teach-panel');
  const drawer = $('library-panel');
  const t = {
    recorder, recordings, drafts, lib, approvals, toast, panel, drawer,
    teachButton: $('teach-button'),
    overlay: createApprovalOverlay({ decidesInDialog: lib.decidesInDialog }),
    repairing: null, // { tool, step } while a person re-does one step
    stopping: false, // the shell is asking whether to keep what was recorded
    editor: null,
    libraryView: null,
  };
  t.editor = createDraftEditor({
    panel, library: drawer, drafts, toast,
    onPublish: (entry) => publish(t, entry, { definition: entry.definition, recordingId: entry.recordingId, draftId: entry.id }),
  });
  const recordingsView = createRecordingsView({ panel, library: drawer, recordings, toast, openEditor: (r, d) => t.editor.open(r, d), startDraft: (r) => t.editor.start(r) });
  t.libraryView = createLibraryView({ drawer, panel, lib, state, toast, onRepair: (tool, step) => startRepair(t, tool, step) });
  $('library-button').addEventListener('click', () => t.libraryView.open());
  $('recordings-button').addEventListener('click', () => recordingsView.show());
  t.teachButton.addEventListener('click', () => toggleTeach(t));
  const stepLabel = (count) => {
    if (recorder.active) $('teach-label').textContent = `${t.repairing ? 'Stop repairing' : 'Stop teaching'} (${count})`;
  };
  recorder.onStep = () => stepLabel(recorder.recording.steps.length);
  return {
    toggleTeach: () => toggleTeach(t),
    showRecordings: () => recordingsView.show(),
    openLibrary: () => t.libraryView.open(),
    renderLibrary: () => t.libraryView.render(),
    renderApproval: () => renderApproval(t),
    recordingsChanged: () => { if (recordingsView.shown) recordingsView.show(); },
    /** The shell started or stopped teaching (its menu, or its dialog). */
    teachingState(state) {
      recorder.setState?.(state);
      if (!state.active && !t.stopping) { t.repairing = null; }
      setRecordingLook(t, Boolean(state.active), state.active ? `${state.repairTool ? 'Stop repairing' : 'Stop teaching'} (${state.steps})` : 'Teach');
    },
    teachSteps(count) { recorder.setSteps?.(count); stepLabel(count); },
    get openDraftId() { return t.editor.openDraftId; },
  };
}

function setRecordingLook(t, on, label) {
  document.body.classList.toggle('recording', on);
  t.teachButton.setAttribute('aria-pressed', on ? 'true' : 'false');
  $('teach-label').textContent = label;
}

function toggleTeach(t) {
  const { recorder, toast } = t;
  if (recorder.decidedByShell) return toggleShellTeach(t);
  if (!recorder.active) {
    recorder.start();
    setRecordingLook(t, true, 'Stop teaching');
    toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
    return;
  }
  const recording = recorder.stop();
  setRecordingLook(t, false, 'Teach');
  if (t.repairing) { finishRepair(t, recording); return; }
  if (!recording.steps.length) {
    toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
    return;
  }
  t.recordings.save(recording);
  toast.show(`Recorded ${recording.steps.length} step${recording.steps.length === 1 ? '' : 's'}. Review it to make a tool.`);
  t.editor.start(recording);
}

/** Teach in the desktop app: the shell records, and asks whether to keep the recording. */
async function toggleShellTeach(t) {
  const { recorder, toast } = t;
  if (!recorder.active) {
    const repair = t.repairing ? { tool: t.repairing.tool.name, step: t.repairing.step } : null;
    setRecordingLook(t, true, repair ? 'Stop repairing' : 'Stop teaching');
    if (!repair) toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
    const reply = await recorder.start(repair);
    if (reply?.isError) {
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
  if (reply?.repair && t.repairing) { finishRepair(t, reply.recording); return; }
  t.repairing = null;
  if (!reply || reply.isError) {
    toast.show(reply?.message ?? 'Teaching could not stop properly.', { kind: 'error' });
  } else if (reply.kept) {
    const count = reply.recording.steps.length;
    toast.show(`Recorded ${count} step${count === 1 ? '' : 's'}. Review it to make a tool.`);
    t.editor.start(reply.recording);
  } else if (reply.recorded === 0) {
    toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
  } else {
    toast.show('The recording was not kept.');
  }
}

/** Say what came of a publish, however it was decided. */
function announce(t, name, reply) {
  if (reply?.isError) {
    if (reply.code === 'consent_denied') t.toast.show(`${name} was not published.`);
    else t.toast.show(reply.message, { kind: 'error' });
    return;
  }
  t.toast.show(reply?.repaired ? `Repaired ${name}. Agents use the new step from now on.` : `Published ${name}. Agents can use it now.`);
  t.panel.hidden = true;
}

async function publish(t, entry, request) {
  const { lib, overlay } = t;
  if (lib.decidesInDialog) overlay.show(entry);
  const reply = await lib.publish(request);
  if (lib.decidesInDialog) overlay.hide();
  // Said by the name people know it by; what agents call it stays in the editor.
  announce(t, entry.definition.title || entry.definition.name, reply);
  t.libraryView.render();
}

/** Repair: re-do one step; the shell (or the overlay) approves the result. */
function startRepair(t, tool, stepIndex) {
  t.repairing = { tool, step: stepIndex };
  t.drawer.hidden = true;
  const title = CATALOGUE[tool.steps[stepIndex].command]?.title ?? 'the step';
  const say = () => t.toast.show(`Repairing ${tool.name}: do step ${stepIndex + 1} (${title}) again the way it should be done, then press Stop.`, { ms: 10000 });
  if (t.recorder.decidedByShell) {
    toggleShellTeach(t).then(() => { if (t.repairing) say(); });
    return;
  }
  t.recorder.start(`Repair of ${tool.name}`);
  setRecordingLook(t, true, 'Stop repairing');
  say();
}

function finishRepair(t, recording) {
  const { tool, step } = t.repairing;
  t.repairing = null;
  try {
    const definition = repairDefinition(definitionOf(tool), step, recording.steps);
    const entry = { id: `repair-${Date.now()}`, draft: { params: [], steps: definition.steps, warnings: [] }, definition, problems: [], replaces: tool.name, by: 'person' };
    t.drafts.set(entry.id, entry);
    // In the desktop app the shell checks the repair against its own recording of the step.
    publish(t, entry, { definition, replaces: tool.name, repairStep: step, draftId: entry.id });
  } catch (err) {
    if (err instanceof RepairError) t.toast.show(err.message, { kind: 'error' });
    else throw err;
  }
}

/** The page's own approvals (only where no desktop app decides). */
function renderApproval(t) {
  const pending = t.approvals ? t.approvals.list() : [];
  if (!pending.length) { t.overlay.hide(); return; }
  const record = pending[0];
  t.overlay.show(record.draft, {
    onApprove: () => t.approvals.approve(record.draft.id, record.draft.by),
    onReject: () => t.approvals.reject(record.draft.id, 'rejected by the person'),
  });
}
