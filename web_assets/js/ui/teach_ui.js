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
  const teachButton = $('teach-button');
  const panel = $('teach-panel');
  const drawer = $('library-panel');
  const overlay = createApprovalOverlay({ decidesInDialog: lib.decidesInDialog });
  let repairing = null; // { tool, step } while a person re-does one step

  function setRecordingLook(on, label) {
    document.body.classList.toggle('recording', on);
    teachButton.setAttribute('aria-pressed', on ? 'true' : 'false');
    $('teach-label').textContent = label;
  }

  function toggleTeach() {
    if (!recorder.active) {
      recorder.start();
      setRecordingLook(true, 'Stop teaching');
      toast.show('Teaching: do the routine once, as you normally would. Press Stop when done.');
      return;
    }
    const recording = recorder.stop();
    setRecordingLook(false, 'Teach');
    if (repairing) { finishRepair(recording); return; }
    if (!recording.steps.length) {
      toast.show('Nothing was recorded. Press Teach, do the routine once, then Stop.');
      return;
    }
    recordings.save(recording);
    toast.show(`Recorded ${recording.steps.length} step${recording.steps.length === 1 ? '' : 's'}. Review it to make a tool.`);
    editor.start(recording);
  }
  teachButton.addEventListener('click', toggleTeach);
  recorder.onStep = () => {
    if (recorder.active) $('teach-label').textContent = `${repairing ? 'Stop repairing' : 'Stop teaching'} (${recorder.recording.steps.length})`;
  };

  /** Say what came of a publish, however it was decided. */
  function announce(name, reply) {
    if (reply?.isError) {
      if (reply.code === 'consent_denied') toast.show(`${name} was not published.`);
      else toast.show(reply.message, { kind: 'error' });
      return;
    }
    toast.show(reply?.repaired ? `Repaired ${name}. Agents use the new step from now on.` : `Published ${name}. Agents can use it now.`);
    panel.hidden = true;
  }

  async function publish(entry, request) {
    if (lib.decidesInDialog) overlay.show(entry);
    const reply = await lib.publish(request);
    if (lib.decidesInDialog) overlay.hide();
    announce(entry.definition.name, reply);
    libraryView.render();
  }

  const editor = createDraftEditor({
    panel, library: drawer, drafts, toast,
    onPublish: (entry) => publish(entry, { definition: entry.definition, recordingId: entry.recordingId, draftId: entry.id }),
  });
  const recordingsView = createRecordingsView({ panel, library: drawer, recordings, toast, openEditor: (r, d) => editor.open(r, d), startDraft: (r) => editor.start(r) });
  const libraryView = createLibraryView({ drawer, panel, lib, state, toast, onRepair: (t, step) => startRepair(t, step) });
  $('library-button').addEventListener('click', () => libraryView.open());
  $('recordings-button').addEventListener('click', () => recordingsView.show());

  // ---- repair: re-do one step; the shell (or the overlay) approves the result -------------
  function startRepair(tool, stepIndex) {
    repairing = { tool, step: stepIndex };
    drawer.hidden = true;
    const title = CATALOGUE[tool.steps[stepIndex].command]?.title ?? 'the step';
    recorder.start(`Repair of ${tool.name}`);
    setRecordingLook(true, 'Stop repairing');
    toast.show(`Repairing ${tool.name}: do step ${stepIndex + 1} (${title}) again the way it should be done, then press Stop.`, { ms: 10000 });
  }

  function finishRepair(recording) {
    const { tool, step } = repairing;
    repairing = null;
    try {
      const definition = repairDefinition(definitionOf(tool), step, recording.steps);
      const entry = { id: `repair-${Date.now()}`, draft: { params: [], steps: definition.steps, warnings: [] }, definition, problems: [], replaces: tool.name, by: 'person' };
      drafts.set(entry.id, entry);
      publish(entry, { definition, replaces: tool.name, repairStep: step, repairRecording: recording, draftId: entry.id });
    } catch (err) {
      if (err instanceof RepairError) toast.show(err.message, { kind: 'error' });
      else throw err;
    }
  }

  // ---- the page's own approvals (only where no desktop app decides) ----------------------
  function renderApproval() {
    const pending = approvals ? approvals.list() : [];
    if (!pending.length) { overlay.hide(); return; }
    const record = pending[0];
    overlay.show(record.draft, {
      onApprove: () => approvals.approve(record.draft.id, record.draft.by),
      onReject: () => approvals.reject(record.draft.id, 'rejected by the person'),
    });
  }

  return {
    toggleTeach,
    showRecordings: () => recordingsView.show(),
    openLibrary: () => libraryView.open(),
    renderLibrary: () => libraryView.render(),
    renderApproval,
    get openDraftId() { return editor.openDraftId; },
  };
}
