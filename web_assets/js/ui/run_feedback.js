// What a running tool shows a person: a toast naming the step, the control it drives lit up,
// and a badge on each ticket it changed. Runs never move the person's view. In the desktop app
// a run is applied by the shell and arrives here as a change-feed entry (its last step); in a
// plain browser the page's runner reports each step as it goes.
import { $, setText } from './dom.js';

const HIDE_AFTER_MS = 1500;

/** @typedef {ReturnType<typeof createRunFeedback>} RunFeedback */
/** The step a run is at: its number (from 0), its title and the control it drives. @typedef {{ index: number, title: string, control: string | null }} StepShown */

/**
 * @param {object} options
 * @param {import('../app/console_core.js').ConsoleState} options.state
 * @param {() => void} [options.onBadges]
 */
export function createRunFeedback({ state, onBadges = () => {} }) {
  /** @type {Element | null} */
  let highlighted = null;
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let hideTimer;
  const runToast = $('run-toast');

  /**
   * @param {string} toolName
   * @param {StepShown} step
   * @param {string} by
   */
  function onRunStep(toolName, step, by) {
    clearTimeout(hideTimer);
    // Only what differs is written: the steps of one run draw as one frame, and a run like the
    // last one (an agent repeating a tool) then changes nothing on screen but its results.
    if (runToast.hidden) runToast.hidden = false;
    setText(runToast, `${toolName} (${by === 'agent' ? 'an agent' : 'you'}) — step ${step.index + 1}: ${step.title}`);
    const next = step.control ? document.querySelector(`[data-control="${step.control}"]`) : null;
    if (next !== highlighted) {
      if (highlighted) highlighted.classList.remove('is-highlighted');
      highlighted = next;
      if (highlighted) highlighted.classList.add('is-highlighted');
    }
  }

  function hideSoon() {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => {
      runToast.hidden = true;
      if (highlighted) highlighted.classList.remove('is-highlighted');
      highlighted = null;
    }, HIDE_AFTER_MS);
  }

  /**
   * @param {string} toolName
   * @param {import('../teach/runner.js').RunAnswer} outcome
   * @param {string} by
   */
  function onRunEnd(toolName, outcome, by) {
    hideSoon();
    if ('ok' in outcome) {
      for (const id of outcome.changed) state.badges.set(id, { by, tool: toolName });
      onBadges();
    }
  }

  /**
   * A run the shell applied (its badges are set by the queue as it draws the entry).
   * @param {Protocol.FeedEntry} entry
   */
  function onFeed(entry) {
    if (entry.step) onRunStep(entry.toolShown, entry.step, entry.by);
    hideSoon();
  }

  return { onRunStep, onRunEnd, onFeed };
}
