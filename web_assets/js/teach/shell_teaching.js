// Teach in the desktop app: the shell records what it applies for the person (the page can
// neither add nor change a step), and keeps a recording only when the person says so in the
// shell's own dialog. This object only asks, and shows where things stand.
import { isRefusal } from '../shell_api.js';

/** @typedef {ReturnType<typeof createShellTeaching>} ShellTeaching */
/** @typedef {ReturnType<typeof createShellRecordings>} ShellRecordings */

/** @param {{ shell: import('../shell_api.js').ShellLink }} options */
export function createShellTeaching({ shell }) {
  const t = { active: false, steps: 0 };
  return {
    decidedByShell: /** @type {const} */ (true),
    get active() { return t.active; },
    get steps() { return t.steps; },
    /**
     * repair: { tool, step } to re-do one step of a tool, or null to teach a new routine
     * @param {{ tool: string, step: number } | null} [repair]
     */
    async start(repair = null) {
      // Active at once: the person's next clicks go to the shell after this ask, in order.
      t.active = true;
      t.steps = 0;
      // A start is answered with the teaching state (bridge/to_page.py TeachStarted).
      const reply = /** @type {Protocol.TeachStarted | Protocol.Refusal} */ (await shell.ask({ kind: 'teach', action: 'start', repairTool: repair?.tool ?? null, repairStep: repair?.step ?? null }));
      if (isRefusal(reply)) t.active = false;
      return reply;
    },
    /** The reply says what became of it: kept (with the recording), not kept, or a repair. */
    async stop() {
      t.active = false;
      // A stop is answered with what became of the recording (bridge/to_page.py TeachStopped).
      return /** @type {Promise<Protocol.TeachStopped | Protocol.Refusal>} */ (shell.ask({ kind: 'teach', action: 'stop' }));
    },
    /**
     * The shell started or stopped teaching (its menu, or after its dialog).
     * @param {Protocol.TeachingRequest} state
     */
    setState(state) {
      t.active = Boolean(state.active);
      t.steps = Number(state.steps) || 0;
    },
    /** @param {number} steps */
    setSteps(steps) { t.steps = steps; },
  };
}

/**
 * The recordings the shell keeps: shown here, renamed and deleted in the shell's dialogs.
 * @param {object} options
 * @param {import('../shell_api.js').ShellLink} options.shell
 * @param {() => void} [options.onChange]
 */
export function createShellRecordings({ shell, onChange = () => {} }) {
  /** @type {Protocol.Recording[]} */
  let list = [];
  return {
    decidedByShell: /** @type {const} */ (true),
    all: () => [...list],
    values: () => list.values(),
    /** @param {string} id */
    get: (id) => list.find((r) => r.id === id),
    /** @param {Protocol.Recording[] | undefined} next */
    setAll(next) {
      list = Array.isArray(next) ? next : [];
      onChange();
    },
    /** @param {string} id */
    rename: (id) => shell.ask({ kind: 'recording', action: 'rename', id }),
    /** @param {string} id */
    remove: (id) => shell.ask({ kind: 'recording', action: 'delete', id }),
  };
}
