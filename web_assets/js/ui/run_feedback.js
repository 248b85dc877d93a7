// What a running tool shows a person: a toast naming the step, the control it drives lit up,
// and a badge on each ticket it changed. Runs never move the person's view.
import { $, setText } from './dom.js';

export function createRunFeedback({ state, onBadges = () => {} }) {
  let highlighted = null;
  let hideTimer = null;
  const runToast = $('run-toast');

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

  function onRunEnd(toolName, outcome, by) {
    clearTimeout(hideTimer);
    hideTimer = setTimeout(() => {
      runToast.hidden = true;
      if (highlighted) highlighted.classList.remove('is-highlighted');
      highlighted = null;
    }, 1500);
    if (outcome.ok) {
      for (const id of outcome.changed) state.badges.set(id, { by, tool: toolName });
      onBadges();
    }
  }

  return { onRunStep, onRunEnd };
}
