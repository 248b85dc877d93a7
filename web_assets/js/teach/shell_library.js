// The library in the desktop app: the shell holds the tools and decides every change; the
// page shows the view the shell pushes and asks for changes. Nothing here can make a tool
// callable: publish, enable, review and the rest are requests the shell puts to the person
// in its own dialog.

export function createShellLibrary({ shell, onChange = () => {} }) {
  let view = { tools: [], max: 16, active: 0 };
  return {
    decidesInDialog: true,
    setView(next) {
      view = next;
      onChange();
    },
    list: () => view.tools,
    get: (name) => view.tools.find((t) => t.name === name) ?? null,
    get max() { return view.max; },
    activeCount: () => view.active,
    /** { definition, recordingId } or a repair { definition, replaces, repairStep } */
    publish: (request) => shell.ask({ kind: 'publish', ...request }),
    act: (action, name, input = {}) => shell.ask({ kind: 'library', action, tool: name, input }),
  };
}
