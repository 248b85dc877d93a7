// The taught tools where the page runs without the desktop app (a plain browser with native
// WebMCP): publishing, the 16-tool cap, revoking (an agent's, approved in the overlay), usage
// counts, and the WebMCP registration of each (one AbortController per tool: aborting it is
// how a tool leaves the page, since the API has no unregisterTool). The stored approval (hash and command ids) is
// what every run is checked against. In the desktop app none of this is used: the shell holds
// the tools (js/teach/shell_library.js).
import canonicalize from '../../node_modules/canonicalize/lib/canonicalize.js';
import { runTool } from './runner.js';
import RULES from '../../data/rules.json' with { type: 'json' };
import { listedSchema } from './listing.js';

/**
 * @typedef {import('./compile.js').Definition} Definition
 * @typedef {import('./runner.js').RunAnswer} RunAnswer
 * @typedef {import('./runner.js').RunFailure} RunFailure
 * @typedef {import('./runner.js').RunStep} RunStep
 */
/**
 * A taught tool as the page keeps it where it is the whole app: the definition and what was
 * approved of it (its hash and commands), its status and its counts.
 * @typedef {object} Entry
 * @property {string} name
 * @property {Definition} definition
 * @property {{ hash: string, commands: string[], at: string }} approved
 * @property {'active' | 'disabled' | 'needs_review'} status
 * @property {string} author 'person', 'agent' or 'pack'
 * @property {string} createdAt ISO 8601
 * @property {{ invocations: number, successes: number, lastFailure: { at: string, code: string, message: string, step: number | null } | null }} stats
 * @property {number} [revision]
 * @property {boolean} [askEveryTime]
 * @property {string} [reviewReason]
 * @property {string} [note]
 * @property {string} [repairedBy]
 * @property {AbortController | null} [controller] aborting it takes the tool out of WebMCP
 */
/**
 * @typedef {object} Registry
 * @property {import('../bus.js').Bus} bus
 * @property {import('../persist.js').RecordStore<Entry>} store
 * @property {() => ModelContext | undefined} modelContext
 * @property {() => Date} now
 * @property {() => void} onChange
 * @property {(tool: string, step: RunStep, by: string) => void} onRunStep
 * @property {(tool: string, outcome: RunAnswer, by: string) => void} onRunEnd
 * @property {Map<string, Entry>} tools
 */

export const MAX_TAUGHT_TOOLS = RULES.maxTaughtTools;

/** @param {Definition} definition */
export async function definitionHash(definition) {
  const { name, title, description, inputSchema, annotations, steps } = definition;
  const bytes = new TextEncoder().encode(canonicalize({ name, title, description, inputSchema, annotations, steps }));
  const digest = await crypto.subtle.digest('SHA-256', bytes);
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export class RegistryError extends Error {
  /** @param {string} code @param {string} message */
  constructor(code, message) { super(message); this.code = code; }
}

/**
 * @param {object} options
 * @param {import('../bus.js').Bus} options.bus
 * @param {import('../persist.js').RecordStore<Entry>} options.store
 * @param {() => ModelContext | undefined} [options.modelContext]
 * @param {() => Date} [options.now]
 * @param {() => void} [options.onChange]
 * @param {(tool: string, step: RunStep, by: string) => void} [options.onRunStep]
 * @param {(tool: string, outcome: RunAnswer, by: string) => void} [options.onRunEnd]
 */
export function createRegistry({ bus, store, modelContext = () => document.modelContext, now = () => new Date(), onChange = () => {}, onRunStep = (_tool, _step, _by) => {}, onRunEnd = (_tool, _outcome, _by) => {} }) {
  /** @type {Registry} */
  const reg = { bus, store, modelContext, now, onChange, onRunStep, onRunEnd, tools: new Map() }; // tools: name -> entry
  return { ...readers(reg), ...publishing(reg), ...decisions(reg), ...runs(reg) };
}

/** @param {Registry} reg */
function activeCount(reg) {
  return [...reg.tools.values()].filter((t) => t.status === 'active').length;
}

// Every save bumps the entry's revision: the shell keeps disk and IndexedDB in step by it
// (the higher revision wins).
/** @param {Registry} reg @param {Entry} entry */
function save(reg, entry) {
  entry.revision = (entry.revision ?? 0) + 1;
  const { controller: _c, ...record } = entry;
  return reg.store.put(record);
}

/**
 * Why the stored approval does not cover the definition any more, or null.
 * @param {Entry} entry
 * @returns {Promise<RunFailure | null>}
 */
async function notApproved(entry) {
  const allowed = new Set(entry.approved.commands);
  if (await definitionHash(entry.definition) !== entry.approved.hash) {
    return { isError: true, code: 'not_approved', message: `${entry.definition.name} changed since it was approved; a person has to review it again.` };
  }
  if (entry.definition.steps.some((s) => !allowed.has(s.command))) {
    // The approval keeps the commands apart from the steps: a step list edited without the
    // hash changing (a bug, or storage edited by hand) still cannot run new commands.
    return { isError: true, code: 'not_approved', message: `${entry.definition.name} has a step that is not in its approved recording. Nothing was changed.` };
  }
  return null;
}

/**
 * @param {Registry} reg
 * @param {Entry} entry
 * @param {Record<string, unknown> | null | undefined} input
 * @param {AbortSignal | null} signal
 * @param {string} by
 * @returns {Promise<RunAnswer>}
 */
async function execute(reg, entry, input, signal, by) {
  const name = entry.definition.name;
  const outcome = await notApproved(entry) ?? await runTool({
    definition: entry.definition,
    input,
    signal,
    bus: reg.bus,
    by,
    onStep: (step) => reg.onRunStep(name, step, by),
  });
  entry.stats.invocations += 1;
  if ('ok' in outcome) entry.stats.successes += 1;
  else entry.stats.lastFailure = { at: reg.now().toISOString(), code: outcome.code, message: outcome.message, step: outcome.failedStep ?? null };
  save(reg, entry);
  if ('ok' in outcome) delete outcome.changes; // only the desktop shell keeps a run's changes
  reg.onRunEnd(name, outcome, by);
  reg.onChange();
  return outcome;
}

/** @param {Registry} reg @param {Entry} entry */
async function register(reg, entry) {
  const mc = reg.modelContext();
  entry.controller = new AbortController();
  if (!mc) return; // degraded: the library still runs tools for a person
  const d = entry.definition;
  await mc.registerTool({
    name: d.name,
    title: d.title || undefined,
    description: d.description,
    inputSchema: listedSchema(d.inputSchema),
    annotations: d.annotations,
    /** @param {Record<string, unknown>} input @param {{ signal?: AbortSignal }} [client] */
    execute: (input, client) => execute(reg, entry, input, client?.signal ?? null, 'agent'),
  }, { signal: entry.controller.signal });
}

/**
 * What the library reads.
 * @param {Registry} reg
 */
function readers(reg) {
  return {
    get size() { return reg.tools.size; },
    activeCount: () => activeCount(reg),
    list: () => [...reg.tools.values()].map(({ controller: _c, ...t }) => structuredClone(t)),
    /**
     * The library's entries in the shape the desktop shell pushes (js/ui/library_view.js).
     * @returns {import('./shell_library.js').LibraryTool[]}
     */
    views: () => [...reg.tools.values()].map((t) => ({
      ...structuredClone({ name: t.definition.name, title: t.definition.title, description: t.definition.description, inputSchema: t.definition.inputSchema, annotations: t.definition.annotations, steps: t.definition.steps }),
      status: t.status,
      callable: t.status === 'active',
      reviewReason: t.reviewReason ?? '',
      note: t.note ?? '',
      askEveryTime: Boolean(t.askEveryTime),
      origin: { by: t.author === 'pack' ? 'pack' : t.author === 'agent' ? 'agent' : 'person' },
      createdAt: Date.parse(t.createdAt),
      usage: { runs: t.stats.invocations, successes: t.stats.successes, lastFailure: t.stats.lastFailure },
    })),
    /** @param {string} name */
    get: (name) => reg.tools.get(name) ?? null,

  };
}

/**
 * Publishing and repairs, each approved first.
 * @param {Registry} reg
 */
function publishing(reg) {
  return {
    /**
     * Publish an approved definition: stored, counted against the cap, registered.
     * @param {Definition} definition
     * @param {{ author?: string, approvedHash?: string | null }} [options]
     */
    async publish(definition, { author = 'person', approvedHash = null } = {}) {
      if (reg.tools.has(definition.name)) throw new RegistryError('name_taken', 'A tool with that name exists already. Choose another name.');
      if (activeCount(reg) >= MAX_TAUGHT_TOOLS) throw new RegistryError('cap_reached', `You already have ${MAX_TAUGHT_TOOLS} active tools, the most agents can choose from well.`);
      const hash = await definitionHash(definition);
      if (approvedHash !== null && approvedHash !== hash) throw new RegistryError('not_approved', 'The tool changed after it was approved. Review it again.');
      /** @type {Entry} */
      const entry = {
        name: definition.name,
        definition: structuredClone(definition),
        approved: { hash, commands: definition.steps.map((s) => s.command), at: reg.now().toISOString() },
        status: 'active',
        author,
        createdAt: reg.now().toISOString(),
        stats: { invocations: 0, successes: 0, lastFailure: null },
      };
      reg.tools.set(entry.name, entry);
      await register(reg, entry);
      await save(reg, entry);
      reg.onChange();
      return entry;
    },

    /**
     * A repaired (re-approved) definition replaces the tool under the same name.
     * @param {Definition} definition
     * @param {{ author?: string, approvedHash?: string | null }} [options]
     */
    async replace(definition, { author = 'person', approvedHash = null } = {}) {
      const entry = reg.tools.get(definition.name);
      if (!entry) throw new RegistryError('not_found', 'There is no tool with that name to repair.');
      if (approvedHash !== null && approvedHash !== await definitionHash(definition)) throw new RegistryError('not_approved', 'The tool changed after it was approved. Review it again.');
      entry.controller?.abort();
      entry.definition = structuredClone(definition);
      entry.approved = { hash: await definitionHash(definition), commands: definition.steps.map((s) => s.command), at: reg.now().toISOString() };
      entry.stats.lastFailure = null;
      entry.repairedBy = author;
      if (entry.status === 'active') await register(reg, entry);
      await save(reg, entry);
      reg.onChange();
      return entry;
    },
  };
}

/**
 * Taking a tool away, once a person approved it in the overlay.
 * @param {Registry} reg
 */
function decisions(reg) {
  return {
    /** @param {string} name */
    async revoke(name) {
      const entry = reg.tools.get(name);
      if (!entry) return false;
      entry.controller?.abort();
      reg.tools.delete(name);
      await reg.store.delete(name);
      reg.onChange();
      return true;
    },

  };
}

/**
 * Runs, and loading the stored tools when the page opens.
 * @param {Registry} reg
 */
function runs(reg) {
  return {
    /**
     * A person runs a tool from the library (same checks and counts as an agent's call).
     * @param {string} name
     * @param {Record<string, unknown>} input
     * @returns {Promise<RunAnswer>}
     */
    runByPerson(name, input) {
      const entry = reg.tools.get(name);
      if (!entry) return Promise.resolve({ isError: true, code: 'not_found', message: 'There is no tool with that name.' });
      if (entry.status !== 'active') return Promise.resolve({ isError: true, code: 'disabled', message: `${name} is turned off here, so it does not run.` });
      return execute(reg, entry, input, null, 'person');
    },

    /**
     * An agent runs a tool by name (understudy_run_tool).
     * @param {string} name
     * @param {Record<string, unknown>} input
     * @param {AbortSignal | null} signal
     * @returns {Promise<RunAnswer>}
     */
    runByAgent(name, input, signal) {
      const entry = reg.tools.get(name);
      if (!entry || entry.status !== 'active') return Promise.resolve({ isError: true, code: 'not_found', message: 'No active tool has that name. Ask the person to publish it.' });
      return execute(reg, entry, input, signal, 'agent');
    },

    /** Load stored tools and register the active ones (restore on page load). */
    async restore() {
      for (const record of await reg.store.all()) {
        const entry = { ...record, controller: null };
        reg.tools.set(entry.name, entry);
        if (entry.status === 'active') {
          try {
            await register(reg, entry);
          } catch (err) {
            entry.status = 'disabled';
            console.warn(`could not register ${entry.name}: ${/** @type {Error} */ (err).message}`);
          }
        }
      }
      reg.onChange();
    },
  };
}
