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
  recorder.onStep = () => {
    if (recorder.active) $('teach-label').textContent = `${t.repairing ? 'Stop repairing' : 'Stop teaching'} (${recorder.recording.steps.length})`;
  };
  return {
    toggleTeach: () => toggleTeach(t),
    showRecordings: () => recordingsView.show(),
    openLibrary: () => t.libraryView.open(),
    renderLibrary: () => t.libraryView.render(),
    renderApproval: () => renderApproval(t),
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
  announce(t, entry.definition.name, reply);
  t.libraryView.render();
}

/** Repair: re-do one step; the shell (or the overlay) approves the result. */
function startRepair(t, tool, stepIndex) {
  t.repairing = { tool, step: stepIndex };
  t.drawer.hidden = true;
  const title = CATALOGUE[tool.steps[stepIndex].command]?.title ?? 'the step';
  t.recorder.start(`Repair of ${tool.name}`);
  setRecordingLook(t, true, 'Stop repairing');
  t.toast.show(`Repairing ${tool.name}: do step ${stepIndex + 1} (${title}) again the way it should be done, then press Stop.`, { ms: 10000 });
}

function finishRepair(t, recording) {
  const { tool, step } = t.repairing;
  t.repairing = null;
  try {
    const definition = repairDefinition(definitionOf(tool), step, recording.steps);
    const entry = { id: `repair-${Date.now()}`, draft: { params: [], steps: definition.steps, warnings: [] }, definition, problems: [], replaces: tool.name, by: 'person' };
    t.drafts.set(entry.id, entry);
    publish(t, entry, { definition, replaces: tool.name, repairStep: step, repairRecording: recording, draftId: entry.id });
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
