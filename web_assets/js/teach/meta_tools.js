// The understudy_* meta-tools: how an agent helps turn a person's demonstration into a tool.
// The agent proposes names and descriptions; the page builds the schema from the recording;
// a person approves. Registered for the life of the page under one AbortController, and not
// counted against the 16-tool cap.
import { generalize, generalizePair, GeneralizeError } from './generalize.js';
import { compile, plainSummary } from './compile.js';
import { RegistryError } from './registry.js';

export const APPROVAL_WAIT_MS = 45_000;

const fail = (code, message, extra = {}) => ({ isError: true, code, message, ...extra });

const PARAM_SPEC = {
  type: 'object',
  description: 'For each proposed parameter: its description, and whether it stays a parameter (bind: false makes it a fixed value taken from the recording).',
  additionalProperties: {
    type: 'object',
    properties: {
      description: { type: 'string', maxLength: 150 },
      bind: { type: 'boolean' },
      rename: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,39}$' },
    },
    additionalProperties: false,
  },
};

export function createMetaTools({ recordings, drafts, registry, approvals, modelContext = () => document.modelContext }) {
  let counter = 0;

  function draftFromArgs(args) {
    const recording = recordings.get(args.recording_id);
    if (!recording) return fail('not_found', `No recording has the id ${String(args.recording_id).slice(0, 40)}. Call understudy_list_recordings.`);
    let draft;
    try {
      if (args.pair_with) {
        const other = recordings.get(args.pair_with);
        if (!other) return fail('not_found', 'The recording to pair with does not exist.');
        draft = generalizePair(recording, other);
      } else {
        draft = generalize(recording);
      }
    } catch (err) {
      if (err instanceof GeneralizeError) return fail('cannot_generalize', err.message);
      throw err;
    }
    for (const [name, spec] of Object.entries(args.parameters ?? {})) {
      const param = draft.params.find((p) => p.name === name);
      if (!param) return fail('invalid_input', `The recording has no parameter ${name.slice(0, 40)}. Proposed parameters: ${draft.params.map((p) => p.name).join(', ')}.`);
      if (typeof spec.description === 'string') param.description = spec.description;
      if (typeof spec.bind === 'boolean') param.bound = spec.bind;
      if (spec.rename) {
        for (const step of draft.steps) for (const a of Object.values(step.args)) if (a.from === 'param' && a.name === param.name) a.name = spec.rename;
        param.name = spec.rename;
      }
    }
    const meta = { name: args.name, title: args.title ?? '', description: args.description };
    const { definition, problems } = compile(draft, meta);
    counter += 1;
    const id = `draft-${counter}`;
    drafts.set(id, { id, draft, meta, definition, problems, recordingId: recording.id, by: 'agent' });
    return { id, definition, problems, warnings: draft.warnings };
  }

  const tools = [
    {
      name: 'understudy_list_recordings',
      title: 'List recordings',
      description: 'List the routines a person recorded with Teach: id, name and the commands of each step. Use an id with understudy_draft_tool.',
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true },
      execute: () => ({
        recordings: [...recordings.values()].map((r) => ({ id: r.id, name: r.name, created: r.createdAt, steps: r.steps.map((s) => s.command) })),
        tools: registry.list().map((t) => ({ name: t.name, status: t.status })),
      }),
    },
    {
      name: 'understudy_draft_tool',
      title: 'Draft a tool from a recording',
      description: 'Propose a tool from a recording: its name, a description saying what it does and when to use it, and a description for each parameter. Returns the tool exactly as an agent would see it, and anything to fix. Drafts never register; publish with understudy_publish_tool.',
      inputSchema: {
        type: 'object',
        properties: {
          recording_id: { type: 'string', description: 'From understudy_list_recordings.' },
          name: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,29}$', description: 'Tool name: lower case, digits and _, at most 30 characters.' },
          title: { type: 'string', maxLength: 60, description: 'A short human title.' },
          description: { type: 'string', maxLength: 500, description: 'What the tool does and when to use it.' },
          parameters: PARAM_SPEC,
          pair_with: { type: 'string', description: 'Optional: a second recording of the same routine; values that differ become parameters.' },
        },
        required: ['recording_id', 'name', 'description'],
        additionalProperties: false,
      },
      execute: (args) => {
        const out = draftFromArgs(args);
        if (out.isError) return out;
        return { draft_id: out.id, tool: publicTool(out.definition), summary: plainSummary(out.definition), problems: out.problems, warnings: out.warnings.map((w) => w.message) };
      },
    },
    {
      name: 'understudy_publish_tool',
      title: 'Publish a drafted tool',
      description: 'Ask the person to approve a draft. The call waits up to 45 seconds for their decision; then it answers awaiting_approval and you should ask the user to return to the Understudy window. poll: true answers at once. You cannot approve yourself.',
      inputSchema: {
        type: 'object',
        properties: {
          draft_id: { type: 'string' },
          poll: { type: 'boolean', description: 'Answer at once with the current state.' },
        },
        required: ['draft_id'],
        additionalProperties: false,
      },
      execute: async (args, client) => {
        const draft = drafts.get(args.draft_id);
        if (!draft) return fail('not_found', 'No draft has that id. Draft it again with understudy_draft_tool.');
        if (draft.problems.length) return fail('blocked', `Fix these first, then draft again: ${draft.problems.join(' ')}`);
        const published = registry.get(draft.definition.name);
        if (published && published.approved && draft.publishedAs === draft.definition.name) return { status: 'published', name: draft.definition.name };
        const approval = approvals.request(draft);
        if (!args.poll && approval.state === 'pending') {
          // Tests may shorten the hold; the page never reads it from an agent's arguments.
          const wait = globalThis.__understudyApprovalWaitMs ?? APPROVAL_WAIT_MS;
          await Promise.race([approval.decided, new Promise((r) => setTimeout(r, wait)), abortPromise(client?.signal)]);
        }
        if (approval.state === 'pending') {
          return { status: 'awaiting_approval', message: 'A person has to approve this tool in the Understudy window, and you cannot approve it yourself. Ask the user to return to Understudy, then call again with poll: true.' };
        }
        if (approval.state === 'rejected') {
          approvals.forget(draft.id);
          return { status: 'rejected', message: 'The person rejected this draft. Revise it with understudy_draft_tool and propose it again.', reason: approval.reason ?? '' };
        }
        return approval.result;
      },
    },
    {
      name: 'understudy_run_tool',
      title: 'Run a taught tool by name',
      description: 'Run a published taught tool by name. Use this for a tool published after your tool list was captured.',
      inputSchema: {
        type: 'object',
        properties: { name: { type: 'string' }, arguments: { type: 'object' } },
        required: ['name'],
        additionalProperties: false,
      },
      execute: (args, client) => registry.runByAgent(args.name, args.arguments ?? {}, client?.signal ?? null),
    },
  ];

  return {
    tools,
    draftFromArgs,
    async registerAll(signal) {
      const mc = modelContext();
      if (!mc) return;
      for (const tool of tools) await mc.registerTool(tool, { signal });
    },
  };
}

function abortPromise(signal) {
  return new Promise((resolve) => {
    if (!signal) return;
    if (signal.aborted) resolve();
    signal.addEventListener('abort', resolve, { once: true });
  });
}

export function publicTool(definition) {
  return { name: definition.name, title: definition.title, description: definition.description, inputSchema: definition.inputSchema, annotations: definition.annotations };
}

/**
 * Pending approvals, one per draft: asking again for the same draft joins the same request
 * (an agent hammering publish opens one decision, not twenty).
 */
export function createApprovals({ registry, onPending = () => {}, onDecided = () => {}, shellDecides = () => false }) {
  const pending = new Map();
  const askShell = (detail) => document.dispatchEvent(new CustomEvent('understudy:consent-request', { detail: JSON.stringify(detail) }));
  return {
    request(draft, { quiet = false } = {}) {
      let record = pending.get(draft.id);
      if (record) {
        if (record.state === 'pending' && shellDecides()) askShell({ kind: 'publish', id: draft.id });
        return record;
      }
      let resolve;
      record = { draft, state: 'pending', result: null, reason: '', decided: new Promise((r) => { resolve = r; }) };
      record.resolve = resolve;
      pending.set(draft.id, record);
      onPending();
      // In the desktop app the decision is made in the native dialog, never here.
      if (shellDecides() && !quiet) askShell({ kind: 'publish', id: draft.id });
      return record;
    },
    list: () => [...pending.values()].filter((r) => r.state === 'pending'),
    get: (id) => pending.get(id) ?? null,
    forget: (id) => pending.delete(id),
    /**
     * The shell approved a draft that no one asked the page about (an agent's publish call,
     * which the shell intercepts): publish it as a decided approval.
     */
    async approveDecided(draft, author, approvedHash) {
      if (!pending.has(draft.id)) this.request(draft, { quiet: true });
      return this.approve(draft.id, author, approvedHash);
    },

    async approve(id, author = 'agent', approvedHash = null) {
      const record = pending.get(id);
      if (!record || record.state !== 'pending') return null;
      try {
        if (record.draft.replaces) await registry.replace(record.draft.definition, { author, approvedHash });
        else await registry.publish(record.draft.definition, { author, approvedHash });
        record.draft.publishedAs = record.draft.definition.name;
        record.result = { status: 'published', name: record.draft.definition.name, tool: publicTool(record.draft.definition) };
      } catch (err) {
        if (!(err instanceof RegistryError)) throw err;
        record.result = { isError: true, code: err.code, message: err.message };
      }
      record.state = 'approved';
      record.resolve();
      onPending();
      onDecided(record);
      return record.result;
    },
    reject(id, reason = '') {
      const record = pending.get(id);
      if (!record || record.state !== 'pending') return false;
      record.state = 'rejected';
      record.reason = reason;
      record.resolve();
      onPending();
      onDecided(record);
      return true;
    },
  };
}
