// Teach in the desktop app: the shell records what it applies for the person (the page can
// neither add nor change a step), and keeps a recording only when the person says so in the
// shell's own dialog. This object only asks, and shows where things stand.

export function createShellTeaching({ shell }) {
  const t = { active: false, steps: 0 };
  return {
    decidedByShell: true,
    get active() { return t.active; },
    get steps() { return t.steps; },
    /** repair: { tool, step } to re-do one step of a tool, or null to teach a new routine */
    async start(repair = null) {
      // Active at once: the person's next clicks go to the shell after this ask, in order.
      t.active = true;
      t.steps = 0;
      const reply = await shell.ask({ kind: 'teach', action: 'start', repairTool: repair?.tool ?? null, repairStep: repair?.step ?? null });
      if (reply?.isError) t.active = false;
      return reply;
    },
    /** The reply says what became of it: kept (with the recording), not kept, or a repair. */
    async stop() {
      t.active = false;
      return shell.ask({ kind: 'teach', action: 'stop' });
    },
    /** The shell started or stopped teaching (its menu, or after its dialog). */
    setState(state) {
      t.active = Boolean(state.active);
      t.steps = Number(state.steps) || 0;
    },
    setSteps(steps) { t.steps = steps; },
  };
}

/** The recordings the shell keeps: shown here, renamed and deleted in the shell's dialogs. */
export function createShellRecordings({ shell, onChange = () => {} }) {
  let list = [];
  return {
    decidedByShell: true,
    all: () => [...list],
    values: () => list.values(),
    get: (id) => list.find((r) => r.id === id),
    setAll(next) {
      list = Array.isArray(next) ? next : [];
      onChange();
    },
    rename: (id) => shell.ask({ kind: 'recording', action: 'rename', id }),
    remove: (id) => shell.ask({ kind: 'recording', action: 'delete', id }),
  };
}
