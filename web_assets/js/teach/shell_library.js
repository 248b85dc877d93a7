// The library in the desktop app: the shell holds the tools and decides every change; the
// page shows the view the shell pushes and asks for changes. Nothing here can make a tool
// callable: publish, enable, review and the rest are requests the shell puts to the person
// in its own dialog.

/**
 * A tool as the library shows it: the shell's view of it (Protocol.ToolView), or, where the
 * page is the whole app, the page's own registry's (js/teach/registry.js views), which has
 * fewer fields.
 * @typedef {object} LibraryTool
 * @property {string} name what agents call it
 * @property {string} [title]
 * @property {string} [shownAs] what people see it called
 * @property {string} description
 * @property {Protocol.JsonSchema} inputSchema
 * @property {Record<string, unknown>} [annotations]
 * @property {Protocol.Step[]} steps
 * @property {string} status 'active', 'disabled' or 'needs_review'
 * @property {boolean} callable
 * @property {string} reviewReason
 * @property {string} note
 * @property {boolean} askEveryTime
 * @property {{ by: string, client?: string, pack?: string, author?: string }} origin
 * @property {number} createdAt milliseconds since 1970
 * @property {{ runs: number, successes: number, lastUsed?: number | null, lastFailure: { message?: string | null, step?: number | null } | null }} usage
 * @property {number} [daysUnused]
 * @property {number} [freshness]
 * @property {boolean} [stale]
 */
/**
 * What the library's views read of a reply, whichever library gave it: the shell's
 * (Protocol.Outcome or Protocol.Refusal) or the page's own (a run's answer, a status).
 * @typedef {{ isError?: boolean, code?: string, message?: string, ok?: boolean, changed?: string[], changed_more?: number, status?: string, repaired?: boolean, seq?: number | null }} LibraryReply
 */
/**
 * A publish: a new tool from a recording (or a pair), or a repair of one step of a tool. The
 * definition is the page's own compile: the page's own library publishes it, while the shell
 * makes a new tool (from its recordings, with the person's words and choices) and a repair
 * (from the tool and its recording of the re-done step) itself.
 * @typedef {object} PublishRequest
 * @property {import('./compile.js').Definition} definition
 * @property {string} [recordingId]
 * @property {string} [pairWith] the recording it was paired with
 * @property {Protocol.ToolWords} [words] what the person called it and said it does
 * @property {Record<string, Protocol.AskChoice>} [asks] each value that could be asked: asked or kept, and described how
 * @property {string} [replaces]
 * @property {number} [repairStep]
 * @property {string} [draftId]
 */
/**
 * The library the views drive: the shell's (this module) or the page's own
 * (js/teach/local_library.js).
 * @typedef {object} Library
 * @property {boolean} decidesInDialog the shell's own dialog decides (nothing in the page can)
 * @property {ReadonlySet<Protocol.LibraryAsk['action']>} actions the library's buttons it takes
 * @property {() => LibraryTool[]} list
 * @property {(name: string) => LibraryTool | null} get
 * @property {number} max
 * @property {() => number} activeCount
 * @property {(request: PublishRequest) => Promise<LibraryReply>} publish
 * @property {(action: Protocol.LibraryAsk['action'], name: string, input?: Record<string, unknown>, tickets?: string[]) => Promise<LibraryReply>} act
 * @property {(view: Protocol.LibraryRequest) => void} [setView]
 */

/** Every button of the library: the shell takes them all (its dialog asks where it must). @type {ReadonlySet<Protocol.LibraryAsk['action']>} */
const EVERY_ACTION = new Set(['run', 'run_selection', 'disable', 'enable', 'revoke', 'ask', 'relax', 'review']);

/**
 * @param {object} options
 * @param {import('../shell_api.js').ShellLink} options.shell
 * @param {() => void} [options.onChange]
 */
export function createShellLibrary({ shell, onChange = () => {} }) {
  /** @type {{ tools: LibraryTool[], max: number, active: number }} */
  let view = { tools: [], max: 16, active: 0 };
  return /** @satisfies {Library} */ ({
    decidesInDialog: true,
    actions: EVERY_ACTION,
    /** @param {Protocol.LibraryRequest} next */
    setView(next) {
      view = next;
      onChange();
    },
    list: () => view.tools,
    /** @param {string} name */
    get: (name) => view.tools.find((t) => t.name === name) ?? null,
    get max() { return view.max; },
    activeCount: () => view.active,
    /**
     * { recordingId, words, asks } or a repair { replaces, repairStep }: the shell makes the
     * tool (or the repair) itself, from its own recordings; the page's compile stays here.
     * @param {PublishRequest} request
     */
    publish: ({ definition: _shownOnly, ...request }) => shell.ask({ kind: 'publish', ...request }),
    /**
     * @param {Protocol.LibraryAsk['action']} action
     * @param {string} name
     * @param {Record<string, unknown>} [input]
     * @param {string[]} [tickets] a run on the tickets the person selected
     */
    act: (action, name, input = {}, tickets = undefined) => shell.ask({ kind: 'library', action, tool: name, input, ...(tickets ? { tickets } : {}) }),
  });
}
