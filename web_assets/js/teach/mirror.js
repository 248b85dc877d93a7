// The page's WebMCP registration, mirroring what the desktop shell approved, for agents in
// the page. Each tool is registered with its own AbortController (aborting is how a tool
// leaves the page: the API has no unregisterTool). A call goes back to the shell, which
// decides it exactly as it decides an agent's call through its endpoint; what this page
// registers never changes what the shell lists or runs.
import BUILTINS from '../../data/builtin_tools.json' with { type: 'json' };
import { listedSchema } from './listing.js';
import { stringify } from '../safe_json.js';

/**
 * A tool as agents in the page see it: a built-in one, or one the shell approved.
 * @typedef {{ name: string, title?: string, description: string, inputSchema: Protocol.JsonSchema, annotations?: Record<string, unknown> }} PublicTool
 */

/** @param {PublicTool} t */
const publicKey = (t) => stringify([t.name, t.title ?? '', t.description, t.inputSchema, t.annotations ?? {}]);

/**
 * @param {object} options
 * @param {() => ModelContext | undefined} [options.modelContext]
 * @param {(name: string, input: Record<string, unknown>) => Promise<unknown>} options.call
 */
export function createMirror({ modelContext = () => document.modelContext, call }) {
  /** @type {Map<string, { key: string, controller: AbortController }>} */
  const registered = new Map(); // name -> { key, controller }

  /** @param {PublicTool} tool */
  async function register(tool) {
    const mc = modelContext();
    if (!mc) return;
    const controller = new AbortController();
    registered.set(tool.name, { key: publicKey(tool), controller });
    try {
      await mc.registerTool({
        name: tool.name,
        title: tool.title || undefined,
        description: tool.description,
        inputSchema: listedSchema(tool.inputSchema),
        annotations: tool.annotations ?? {},
        /** @param {Record<string, unknown> | undefined} input */
        execute: (input) => call(tool.name, input ?? {}),
      }, { signal: controller.signal });
    } catch (err) {
      registered.delete(tool.name);
      console.warn(`could not mirror ${tool.name}: ${/** @type {Error} */ (err).message}`);
    }
  }

  return {
    /** The built-in tools, for the life of the page. */
    async registerBuiltins() {
      // The file's tools as agents read them (tsc infers each one's own literal shape).
      for (const tool of /** @type {PublicTool[]} */ (/** @type {unknown} */ (BUILTINS.tools))) await register(tool);
    },
    /**
     * Register what the shell says is callable now; withdraw what it no longer lists.
     * @param {Array<PublicTool & { callable: boolean }>} tools
     */
    async sync(tools) {
      const wanted = new Map(tools.filter((t) => t.callable).map((t) => [t.name, t]));
      for (const [name, entry] of registered) {
        if (BUILTINS.tools.some((b) => b.name === name)) continue;
        const next = wanted.get(name);
        if (!next || publicKey(next) !== entry.key) {
          entry.controller.abort();
          registered.delete(name);
        }
      }
      for (const [name, tool] of wanted) if (!registered.has(name)) await register(tool);
    },
  };
}
