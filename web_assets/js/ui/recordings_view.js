// The Recordings drawer: each routine a person recorded, to rename, delete (in the desktop
// app), make a tool of, or pair with a second recording of the same routine.
import { el } from './dom.js';
import { describeStep, generalizePair, GeneralizeError } from '../teach/generalize.js';
import { drawerHeader } from './drawer.js';
import { isRefusal } from '../shell_api.js';

/**
 * @typedef {import('../teach/recorder.js').Recording} Recording
 * @typedef {import('../teach/generalize.js').Draft} Draft
 */

/**
 * @param {object} options
 * @param {HTMLElement} options.panel
 * @param {HTMLElement} options.library
 * @param {import('./teach_ui.js').Recordings} options.recordings
 * @param {import('./toast.js').Toast} options.toast
 * @param {(recording: Recording, draft: Draft, second?: Recording) => void} options.openEditor
 * @param {(recording: Recording) => void} options.startDraft
 */
export function createRecordingsView({ panel, library, recordings, toast, openEditor, startDraft }) {
  /** @type {HTMLElement | null} */
  let header = null; // the list's heading while the list is what the panel shows

  /**
   * The name, to change in place, or (in the desktop app) with the shell's own dialog.
   * @param {Recording} r
   */
  function nameControl(r) {
    if (recordings.decidedByShell) {
      const rename = el('button', { type: 'button', class: 'btn', 'aria-label': `Rename recording ${r.name}` }, 'Rename…');
      rename.addEventListener('click', () => recordings.rename(r.id));
      return el('div', { class: 'card-row' }, el('strong', { text: r.name }), rename);
    }
    const nameInput = el('input', { type: 'text', value: r.name, 'aria-label': `Name of recording ${r.name}` });
    nameInput.addEventListener('change', () => { r.name = nameInput.value.trim() || r.name; recordings.save(r); });
    return nameInput;
  }

  /**
   * Deleting is decided in the desktop app's dialog (consent/manifest.py); a plain browser,
   * kept for the comparison with native WebMCP, offers none.
   * @param {Recording} r
   */
  function deleteButton(r) {
    if (!recordings.decidedByShell) return null;
    const remove = el('button', { type: 'button', class: 'btn danger' }, 'Delete…');
    remove.addEventListener('click', async () => {
      const reply = await recordings.remove(r.id);
      if (reply && !isRefusal(reply)) toast.show(`Deleted “${r.name}”.`);
    });
    return remove;
  }

  function show() {
    panel.hidden = false;
    library.hidden = true;
    const list = [...recordings.all()].reverse();
    const cards = list.map((r) => {
      const make = el('button', { type: 'button', class: 'btn primary' }, 'Make a tool');
      make.addEventListener('click', () => startDraft(r));
      const pair = el('button', { type: 'button', class: 'btn', title: 'Combine with another recording of the same routine: values that differ become questions the tool asks' }, 'Pair with…');
      pair.addEventListener('click', () => choosePair(r));
      const remove = deleteButton(r);
      return el('div', { class: 'card' }, nameControl(r),
        el('ol', { class: 'steps' }, ...r.steps.map((s) => el('li', { text: describeStep(s) }))),
        el('div', { class: 'card-row' }, make, pair, remove));
    });
    header = drawerHeader('Recordings', () => { panel.hidden = true; });
    panel.replaceChildren(header,
      el('p', { class: 'hint', text: list.length ? 'Each recording is a routine you did once. Make a tool from it, or pair two recordings of the same routine.' : 'No recordings yet. Press Teach, do a routine once, then Stop.' }),
      ...cards);
  }

  /** @param {Recording} first */
  function choosePair(first) {
    const others = recordings.all().filter((r) => r.id !== first.id);
    if (!others.length) { toast.show('Record the same routine a second time first.'); return; }
    const select = el('select', { 'aria-label': 'Recording to pair with' }, ...others.map((r) => el('option', { value: r.id, text: r.name })));
    const go = el('button', { type: 'button', class: 'btn primary' }, 'Pair');
    go.addEventListener('click', () => {
      // One of `others`: the list was made from the recordings a moment ago.
      const second = /** @type {Recording} */ (recordings.get(select.value));
      try {
        openEditor(first, generalizePair(first, second), second);
      } catch (err) {
        if (err instanceof GeneralizeError) toast.show(err.message, { kind: 'error' });
        else throw err;
      }
    });
    panel.replaceChildren(drawerHeader('Pair recordings', show), el('p', { class: 'hint', text: `Pair “${first.name}” with:` }), select, el('div', { class: 'card-row' }, go));
  }

  // Shown: the panel is open on the list (the editor and the pairing use the same panel).
  return { show, get shown() { return !panel.hidden && header !== null && panel.contains(header); } };
}
