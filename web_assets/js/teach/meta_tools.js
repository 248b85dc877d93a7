// The understudy_* tools where the page runs without the desktop app (a plain browser with
// native WebMCP): the agent proposes names and descriptions; the page builds the schema from
// the recording; a person approves in the page's overlay. Their names, descriptions and
// schemas come from data/builtin_tools.json, the same file the desktop shell lists from.
// Registered for the life of the page, and not counted against the 16-tool cap.
import BUILTINS from '../../data/builtin_tools.json' with { type: 'json' };
import RULES from '../../data/rules.json' with { type: 'json' };
import { plainSummary } from './compile.js';
import { buildDraft } from './draft_builder.js';
import { publicTool } from './local_approvals.js';

/**
 * @typedef {import('./local_approvals.js').Approval} Approval
 * @typedef {import('./local_approvals.js').Approvals} Approvals
 * @typedef {import('./local_approvals.js').DraftEntry} DraftEntry
 * @typedef {import('./recorder.js').Recording} Recording
 */
/** Who called a tool, as WebMCP says: its signal aborts the call. @typedef {{ signal?: AbortSignal }} Client */
/**
 * A built-in tool's work. Each takes the arguments its schema in builtin_tools.json describes
 * and names them in its own @param; one map of every tool cannot say which, hence `any`.
 * @typedef {(args: any, client?: Client) => unknown} Execute
 */

export const APPROVAL_WAIT_MS = RULES.approvalHoldSeconds * 1000;

/**
 * @param {string} code
 * @param {string} message
 * @param {Record<string, unknown>} [extra]
 */
const fail = (code, message, extra = {}) => ({ isError: true, code, message, ...extra });

/** @param {AbortSignal | null | undefined} signal */
function abortPromise(signal) {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve(undefined);
    signal.addEventListener('abort', resolve, { once: true });
  });
}

/**
 * @param {Approval} approval
 * @param {Client | undefined} client
 */
async function waitFor(approval, client) {
  if (approval.state !== 'pending') return;
  // Tests may shorten the hold; the page never reads it from an agent's arguments.
  const wait = /** @type {{ __understudyApprovalWaitMs?: number }} */ (globalThis).__understudyApprovalWaitMs ?? APPROVAL_WAIT_MS;
  await Promise.race([approval.decided, new Promise((r) => setTimeout(r, wait)), abortPromise(client?.signal)]);
}

/**
 * @param {Approval} approval
 * @param {string} draftId
 * @param {Approvals} approvals
 */
function answer(approval, draftId, approvals) {
  if (approval.state === 'pending') {
    return { status: 'awaiting_approval', message: 'A person has to approve this in the Understudy window, and you cannot approve it yourself. Ask the user to return to Understudy, then call again with poll: true.' };
  }
  if (approval.state === 'rejected') {
    approvals.forget(draftId);
    return { status: 'rejected', message: 'The person rejected this.', reason: approval.reason ?? '' };
  }
  return approval.result;
}

/**
 * @param {object} options
 * @param {{ values(): Iterable<Recording>, get(id: string): Recording | undefined }} options.recordings
 * @param {Map<string, DraftEntry>} options.drafts
 * @param {ReturnType<typeof import('./registry.js').createRegistry>} options.registry
 * @param {Approvals} options.approvals
 * @param {() => ModelContext | undefined} [options.modelContext]
 */
export function createMetaTools({ recordings, drafts, registry, approvals, modelContext = () => document.modelContext }) {
  let counter = 0;

  /** @type {Record<string, Execute>} */
  /**
   * Asking the person to revoke a taught tool: understudy_publish_tool's `revoke`, and the
   * unlisted understudy_revoke_tool that agents which learned it still call.
   * @param {{ name: string, poll?: boolean }} args @param {Client} [client]
   */
  async function revoke(args, client) {
    const tool = registry.get(args.name);
    if (!tool) return fail('not_found', 'No taught tool has that name.');
    const id = `revoke-${args.name}`;
    const approval = approvals.request({ id, revoke: args.name, definition: tool.definition, by: 'agent' });
    if (!args.poll) await waitFor(approval, client);
    return answer(approval, id, approvals);
  }

  const execute = {
    understudy_list_recordings: () => ({
      recordings: [...recordings.values()].map((r) => ({ id: r.id, name: r.name, created: r.createdAt, steps: r.steps.map((s) => s.command) })),
      tools: registry.list().map((t) => ({ name: t.name, status: t.status })),
    }),
    /** @param {{ recording_id: string, name: string, description: string, parameters?: Record<string, import('./draft_builder.js').DraftParameter>, pair_with?: string }} args */
    understudy_draft_tool: (args) => {
      const recording = recordings.get(args.recording_id);
      if (!recording) return fail('not_found', 'No recording has that id. Call understudy_list_recordings.');
      const pairWith = args.pair_with ? recordings.get(args.pair_with) : null;
      if (args.pair_with && !pairWith) return fail('not_found', 'The recording to pair with does not exist.');
      const built = buildDraft({ recording, pairWith, meta: args });
      if ('error' in built) return fail('cannot_generalize', built.error);
      counter += 1;
      const id = `draft-${counter}`;
      drafts.set(id, { id, draft: built.draft, definition: built.definition, problems: built.problems, recordingId: recording.id, by: 'agent' });
      return { draft_id: id, tool: publicTool(built.definition), summary: plainSummary(built.definition), problems: built.problems, warnings: built.warnings };
    },
    /** @param {{ draft_id?: string, revoke?: string, poll?: boolean }} args @param {Client} [client] */
    understudy_publish_tool: async (args, client) => {
      if (typeof args.revoke === 'string') return revoke({ name: args.revoke, poll: args.poll }, client);
      const draft = drafts.get(args.draft_id ?? '');
      if (!draft) return fail('not_found', 'No draft has that id. Draft it again with understudy_draft_tool.');
      if (draft.problems.length) return fail('blocked', `Fix these first, then draft again: ${draft.problems.join(' ')}`);
      if (registry.get(draft.definition.name) && draft.publishedAs === draft.definition.name) return { status: 'published', name: draft.definition.name };
      if (registry.get(draft.definition.name)) return fail('name_taken', 'A tool with that name exists already. Choose another name.');
      const approval = approvals.request(draft);
      if (!args.poll) await waitFor(approval, client);
      return answer(approval, draft.id, approvals);
    },
    /** @param {{ name: string, arguments?: Record<string, unknown> }} args @param {Client} [client] */
    understudy_run_tool: (args, client) => registry.runByAgent(args.name, args.arguments ?? {}, client?.signal ?? null),
    understudy_revoke_tool: revoke,
  };

  // argumentRules are the shell's extra checks, not part of what agents read.
  // Only listed tools are registered: a page has no way to answer a name it does not list.
  const tools = BUILTINS.tools.filter((t) => !('listed' in t && t.listed === false))
    .map(({ argumentRules: _rules, listed: _listed, ...t }) => ({ ...t, execute: execute[/** @type {keyof typeof execute} */ (t.name)] }));

  return {
    tools,
    /** @param {AbortSignal} signal */
    async registerAll(signal) {
      const mc = modelContext();
      if (!mc) return;
      for (const tool of tools) await mc.registerTool(tool, { signal });
    },
  };
}
