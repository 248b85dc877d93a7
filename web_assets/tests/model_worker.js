// The page's own model, driven from Python for the differential tests between the two models
// (tests/test_model_parity.py, tests/test_run_parity.py). One JSON request per line on stdin,
// one answer per line:
//   {queue, commands: [[id, payload], ...]} -> {outcomes: [{ok, code?, result?}], tickets, view}
//     each command a person's, dispatched through the bus on the person's view, as a click is;
//   {queue, runs: [{definition, input, stopAfter}, ...]} -> {answers, tickets, view}
//     each a taught tool's run through the page's runner (js/teach/runner.js), as the page's
//     registry starts it; stopAfter: the caller gives up once that many steps were sent (null:
//     never), which is the last moment a page's run can see it, as its steps do not yield;
//   {queue, tools, asks: [...]} -> {seen: [{decision, changed}]}
//     the page's own library and built-in tools (a plain browser's), each ask a library button,
//     a publish or an agent's built-in tool call, or the person's decision in the overlay:
//     whether the overlay asked, it was done without asking, or refused; and whether the tools
//     (their names, status and approvals) changed;
//   {queue, publish: [definition, ...]} -> {codes, names}
//     each an approved publish into the page's registry: 'ok' or the code it was refused with,
//     and the tools it then holds.
import { createInterface } from 'node:readline';
import { createQueueState } from '../js/queue_state.js';
import { createBus } from '../js/bus.js';
import { runTool } from '../js/teach/runner.js';
import { createRegistry } from '../js/teach/registry.js';
import { createApprovals } from '../js/teach/local_approvals.js';
import { createLocalLibrary } from '../js/teach/local_library.js';
import { createMetaTools } from '../js/teach/meta_tools.js';

const TICKET_FIELDS = ['id', 'subject', 'body', 'requester', 'created', 'status', 'priority', 'assignee', 'tags', 'reply_draft'];

function setUp(queue) {
  const state = createQueueState(queue);
  const bus = createBus({ state, now: () => new Date('2026-12-01T09:00:00Z') });
  return { state, bus };
}

function after(state) {
  const tickets = state.tickets.map((t) => Object.fromEntries(TICKET_FIELDS.map((k) => [k, t[k]])));
  return { tickets, view: { filter: state.filter, selectedId: state.selectedId } };
}

function commands({ queue, commands: sent }) {
  const { state, bus } = setUp(queue);
  const outcomes = sent.map(([id, payload]) => {
    const out = bus.dispatch(id, payload, { source: 'ui' });
    return out.ok ? { ok: true, result: out.result ?? null } : { ok: false, code: out.error.code };
  });
  return { outcomes, ...after(state) };
}

async function runs({ queue, runs: sent }) {
  const { state, bus } = setUp(queue);
  const answers = [];
  for (const { definition, input, stopAfter } of sent) {
    const controller = new AbortController();
    if (stopAfter === 0) controller.abort();
    const onStep = ({ index }) => { if (stopAfter !== null && index === stopAfter - 1) controller.abort(); };
    const answer = await runTool({ definition, input, bus, by: 'agent', signal: controller.signal, onStep });
    delete answer.changes; // the shell's own record of the writes, never an agent's
    answers.push(answer);
  }
  return { answers, ...after(state) };
}

const settle = () => new Promise((resolve) => { setImmediate(resolve); });

function tools(registry) {
  return JSON.stringify(registry.list().map(({ name, status, askEveryTime, approved, definition }) => ({ name, status, askEveryTime, approved, definition })));
}

async function decisions({ queue, tools: published, asks }) {
  const { bus } = setUp(queue);
  const store = { put: async () => {}, delete: async () => {}, all: async () => [] };
  const registered = { registerTool: async () => {} };
  const registry = createRegistry({ bus, store, modelContext: () => registered });
  const approvals = createApprovals({ registry });
  // Every request put to the overlay (a new one, or one that joins a request still open).
  let requested = 0;
  const request = approvals.request;
  approvals.request = (draft) => { requested += 1; return request(draft); };
  const lib = createLocalLibrary({ registry, approvals });
  const drafts = new Map();
  const meta = createMetaTools({ recordings: new Map(), drafts, registry, approvals, modelContext: () => registered });
  const builtins = Object.fromEntries(meta.tools.map((t) => [t.name, t.execute]));
  for (const definition of published) await registry.publish(definition);
  const seen = [];
  let drafted = 0;
  for (const ask of asks) {
    const before = tools(registry);
    const asking = requested;
    let answer;
    if (ask.kind === 'decide') {
      const first = approvals.list()[0];
      if (first && ask.approve) await approvals.approve(first.draft.id, first.draft.by);
      else if (first) approvals.reject(first.draft.id, 'no');
      await settle();
      seen.push({ decision: first ? 'decided' : 'nothing', changed: tools(registry) !== before });
      continue;
    }
    if (ask.kind === 'library') answer = lib.act(ask.action, ask.tool, { ticket_id: 'T-1001' });
    else if (ask.kind === 'publish') {
      drafted += 1;
      const draftId = `d-${drafted}`;
      answer = lib.publish({ definition: ask.definition, draftId, replaces: ask.replaces ? ask.definition.name : undefined });
    } else {
      let args = ask.arguments;
      if (ask.name === 'understudy_publish_tool' && ask.definition) {
        drafted += 1;
        const id = `d-${drafted}`;
        drafts.set(id, { id, draft: /** @type {any} */ ({}), definition: ask.definition, problems: [], by: 'agent' });
        args = { draft_id: id, poll: true };
      }
      answer = Promise.resolve(builtins[ask.name](args, {}));
    }
    // An ask the overlay decides waits for the person; any other is answered without one.
    const reply = await Promise.race([answer, settle().then(() => (requested > asking ? null : answer))]);
    const asked = requested > asking;
    const decision = asked ? 'asked' : reply?.code === 'no_shell' ? 'refused' : reply?.isError ? 'failed' : 'done';
    seen.push({ decision, changed: tools(registry) !== before });
  }
  return { seen };
}

async function publishes({ queue, publish }) {
  const { bus } = setUp(queue);
  const store = { put: async () => {}, delete: async () => {}, all: async () => [] };
  const registry = createRegistry({ bus, store, modelContext: () => ({ registerTool: async () => {} }) });
  const codes = [];
  for (const definition of publish) {
    try {
      await registry.publish(definition);
      codes.push('ok');
    } catch (err) {
      codes.push(err.code);
    }
  }
  return { codes, names: registry.list().map((t) => t.name).sort() };
}

const lines = createInterface({ input: process.stdin });
let turn = Promise.resolve();
lines.on('line', (line) => {
  // One request at a time, answered in order: a run awaits.
  turn = turn.then(async () => {
    let answer;
    try {
      const request = JSON.parse(line);
      if ('runs' in request) answer = await runs(request);
      else if ('asks' in request) answer = await decisions(request);
      else if ('publish' in request) answer = await publishes(request);
      else answer = commands(request);
    } catch (err) {
      answer = { crashed: String(err?.stack ?? err) };
    }
    process.stdout.write(`${JSON.stringify(answer)}\n`);
  });
});
