import { test } from 'node:test';
import assert from 'node:assert/strict';
import { makeBus, demoDocument } from './helpers.js';
import { createRecorder } from '../js/teach/recorder.js';
import { provenanceFor } from '../js/teach/provenance.js';
import { generalize, generalizePair, GeneralizeError } from '../js/teach/generalize.js';
import { compile, lintSchema, plainSummary } from '../js/teach/compile.js';
import { runTool, compact } from '../js/teach/runner.js';
import { repairDefinition, RepairError } from '../js/teach/repair.js';
import { createRegistry, definitionHash } from '../js/teach/registry.js';

// A person's dispatch, as the console's controls make it.
function person(bus, id, payload, control) {
  const out = bus.dispatch(id, payload, { source: 'ui', control, provenance: provenanceFor(id, payload, control) });
  assert.equal(out.ok, true, JSON.stringify(out.error));
  return out;
}

function teachAssignRefund(bus, ticket) {
  const rec = createRecorder({ bus });
  rec.start('assign refund');
  person(bus, 'select_ticket', { ticket_id: ticket }, 'queue-list');
  person(bus, 'set_ticket_assignee', { ticket_id: ticket, assignee: 'priya' }, 'assignee-select');
  person(bus, 'set_ticket_priority', { ticket_id: ticket, priority: 'high' }, 'priority-select');
  person(bus, 'apply_template', { ticket_id: ticket, template_id: 'refund_approved' }, 'template-apply');
  return rec.stop();
}

function publishable(draft, meta = {}) {
  for (const p of draft.params) p.description = p.description || `The ${p.name}.`;
  const { definition, problems } = compile(draft, { name: 'assign_refund', description: 'Assign a refund ticket to Priya, raise it and fill the refund reply.', ...meta });
  assert.deepEqual(problems, []);
  return definition;
}

/** Every recorded value asked each time (all the editor's switches on): many questions. */
function askingAll(draft) {
  for (const p of draft.params) p.bound = true;
  return draft;
}

test('the recorder keeps commands, payloads, results and provenance of UI dispatches only', () => {
  const { bus } = makeBus();
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'filter_tickets', { text: 'refund' }, 'filter-text');
  bus.dispatch('set_ticket_priority', { ticket_id: 'T-1001', priority: 'low' }, { source: 'shell' });
  const recording = rec.stop();
  assert.equal(recording.steps.length, 1);
  assert.deepEqual(recording.steps[0].provenance, { text: 'typed' });
  assert.equal(recording.steps[0].result.matched > 0, true);
});

test('entity ids become one parameter; later steps bind to the first step result', () => {
  const { bus } = makeBus();
  const draft = generalize(teachAssignRefund(bus, 'T-1006'));
  assert.deepEqual(draft.steps[0].args.ticket_id, { from: 'param', name: 'ticket_id' });
  for (const step of draft.steps.slice(1)) assert.equal(step.args.ticket_id.from, 'step');
  assert.deepEqual(draft.params.map((p) => p.name), ['ticket_id', 'assignee', 'priority', 'template_id']);
  assert.deepEqual(draft.warnings, []);
});

test('a mutation on a ticket no step picked is reported as an unexplained selection', () => {
  const { bus } = makeBus();
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'set_ticket_priority', { ticket_id: 'T-1002', priority: 'urgent' }, 'priority-select');
  const draft = generalize(rec.stop());
  assert.equal(draft.warnings.length, 1);
  assert.equal(draft.warnings[0].code, 'unexplained_selection');
  assert.deepEqual(draft.steps[0].args.ticket_id, { from: 'param', name: 'ticket_id' });
});

test('frozen-id regression: the tool acts on its argument, not on the recorded ticket', async () => {
  const { state, bus } = makeBus();
  const draft = generalize(teachAssignRefund(bus, 'T-1006'));
  for (const p of draft.params) if (p.name !== 'ticket_id') p.bound = false;
  const definition = publishable(draft);
  assert.deepEqual(Object.keys(definition.inputSchema.properties), ['ticket_id']);
  const beforeA = JSON.stringify(state.byId.get('T-1006'));
  const out = await runTool({ definition, input: { ticket_id: 'T-1022' }, bus });
  assert.equal(out.ok, true, JSON.stringify(out));
  const b = state.byId.get('T-1022');
  assert.equal(b.assignee, 'priya');
  assert.equal(b.priority, 'high');
  assert.match(b.reply_draft, /^Hi /);
  assert.equal(JSON.stringify(state.byId.get('T-1006')), beforeA, 'the recorded ticket is not touched again');
  assert.deepEqual(out.changed, ['T-1022']);
});

test('a step that is not a command of this console is refused before anything runs', async () => {
  const { state, bus } = makeBus();
  const definition = publishable(askingAll(generalize(teachAssignRefund(bus, 'T-1006'))));
  const before = JSON.stringify(state.tickets);
  const tampered = structuredClone(definition);
  tampered.steps.splice(2, 0, { command: 'delete_every_ticket', args: {} });
  const out = await runTool({ definition: tampered, input: { ticket_id: 'T-1019', assignee: 'priya', priority: 'high', template_id: 'refund_approved' }, bus });
  assert.equal(out.code, 'not_approved');
  assert.equal(out.failedStep, 3);
  assert.equal(JSON.stringify(state.tickets), before);
});

test('without the shell, the registry refuses a stored tool whose steps left its approved recording', async () => {
  const { state, bus } = makeBus();
  const store = { put: async () => {}, delete: async () => {}, all: async () => [] };
  const registry = createRegistry({ bus, store, modelContext: () => null });
  const definition = publishable(askingAll(generalize(teachAssignRefund(bus, 'T-1006'))));
  await registry.publish(definition);
  // Storage edited by hand: a new step, and the hash made to match it.
  const entry = registry.get('assign_refund');
  entry.definition.steps.splice(1, 0, { command: 'set_matching_status', args: { status: { from: 'const', value: 'closed' } } });
  entry.approved.hash = await definitionHash(entry.definition);
  const before = JSON.stringify(state.tickets);
  const out = await registry.runByPerson('assign_refund', { ticket_id: 'T-1019', assignee: 'priya', priority: 'high', template_id: 'refund_approved' });
  assert.equal(out.code, 'not_approved');
  assert.equal(JSON.stringify(state.tickets), before);
});

test('a person or template the queue lacks is refused before anything runs, without repeating the value', async () => {
  const { state, bus } = makeBus();
  const definition = publishable(askingAll(generalize(teachAssignRefund(bus, 'T-1006'))));
  const before = JSON.stringify(state.byId.get('T-1030'));
  const out = await runTool({ definition, input: { ticket_id: 'T-1030', assignee: 'priya', priority: 'high', template_id: 'no_such_template' }, bus });
  assert.equal(out.code, 'not_found');
  assert.equal(out.message, 'The reply template you chose is not on this queue. Choose one that is. Nothing was changed.');
  assert.doesNotMatch(out.message, /no_such_template/);
  assert.equal(JSON.stringify(state.byId.get('T-1030')), before);
});

test('a failing step rolls back the run and names the step', async () => {
  const { state, bus } = makeBus();
  const full = Array.from({ length: 20 }, (_, i) => `t${i}`);
  bus.dispatch('set_ticket_tags', { ticket_id: 'T-1030', tags: full }, { source: 'ui' });
  const before = JSON.stringify(state.byId.get('T-1030'));
  const definition = {
    name: 'raise_and_tag',
    inputSchema: { type: 'object', properties: { ticket_id: { type: 'string' } }, required: ['ticket_id'] },
    steps: [
      { command: 'set_ticket_priority', args: { ticket_id: { from: 'param', name: 'ticket_id' }, priority: { from: 'const', value: 'urgent' } } },
      { command: 'add_ticket_tag', args: { ticket_id: { from: 'param', name: 'ticket_id' }, tag: { from: 'const', value: 'one-more' } } },
    ],
  };
  const out = await runTool({ definition, input: { ticket_id: 'T-1030' }, bus });
  assert.equal(out.code, 'step_failed');
  assert.equal(out.failedStep, 2);
  assert.equal(out.rolledBack, true);
  assert.equal(JSON.stringify(state.byId.get('T-1030')), before);
});

test('a run past its deadline, or already cancelled, changes nothing', async () => {
  const { state, bus } = makeBus();
  const definition = publishable(askingAll(generalize(teachAssignRefund(bus, 'T-1006'))));
  const input = { ticket_id: 'T-1019', assignee: 'priya', priority: 'high', template_id: 'refund_approved' };
  const before = JSON.stringify(state.tickets);
  const late = await runTool({ definition, input, bus, deadline: 1000, now: () => 1001 });
  assert.equal(late.code, 'timeout');
  const controller = new AbortController();
  controller.abort();
  const cancelled = await runTool({ definition, input, bus, signal: controller.signal });
  assert.equal(cancelled.code, 'cancelled');
  assert.equal(JSON.stringify(state.tickets), before);
  const onTime = await runTool({ definition, input, bus, deadline: 1000, now: () => 999 });
  assert.equal(onTime.ok, true);
});

test('a set-based routine generalises to one phrase and runs for another', async () => {
  const { state, bus } = makeBus();
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'filter_tickets', { text: 'bank feed' }, 'filter-text');
  person(bus, 'tag_matching_tickets', { tag: 'bank-issue' }, 'bulk-tag');
  person(bus, 'set_matching_priority', { priority: 'high' }, 'bulk-priority');
  const draft = generalize(rec.stop());
  assert.deepEqual(draft.params.map((p) => p.name), ['phrase', 'tag', 'priority']);
  draft.params.find((p) => p.name === 'tag').bound = false;
  draft.params.find((p) => p.name === 'priority').bound = false;
  const definition = publishable(draft, { name: 'triage_phrase', description: 'Tag tickets matching a phrase as bank issues and raise them.' });
  assert.deepEqual(Object.keys(definition.inputSchema.properties), ['phrase']);
  assert.equal(definition.annotations.readOnlyHint, false);
  const out = await runTool({ definition, input: { phrase: 'invoice' }, bus });
  assert.equal(out.ok, true);
  const invoices = state.tickets.filter((t) => `${t.id}\n${t.subject}\n${t.body}\n${t.requester}`.toLowerCase().includes('invoice'));
  assert.ok(invoices.length > 0);
  for (const t of invoices) {
    assert.ok(t.tags.includes('bank-issue'));
    assert.equal(t.priority, 'high');
  }
});

test('two recordings pair: differing values become parameters, a different sequence is an error', () => {
  const { bus } = makeBus();
  const a = teachAssignRefund(bus, 'T-1006');
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'select_ticket', { ticket_id: 'T-1022' }, 'queue-list');
  person(bus, 'set_ticket_assignee', { ticket_id: 'T-1022', assignee: 'marcus' }, 'assignee-select');
  person(bus, 'set_ticket_priority', { ticket_id: 'T-1022', priority: 'high' }, 'priority-select');
  person(bus, 'apply_template', { ticket_id: 'T-1022', template_id: 'refund_approved' }, 'template-apply');
  const b = rec.stop();
  const draft = generalizePair(a, b);
  assert.deepEqual(draft.params.map((p) => p.name), ['ticket_id', 'assignee']);
  assert.deepEqual(draft.steps[2].args.priority, { from: 'const', value: 'high' });
  const shorter = { ...b, steps: b.steps.slice(0, 2) };
  assert.throws(() => generalizePair(a, shorter), GeneralizeError);
});

test('budgets and lint block publishing with a message that says what to fix', () => {
  const { bus } = makeBus();
  const draft = generalize(teachAssignRefund(bus, 'T-1006'));
  assert.equal(draft.params[0].description, 'A ticket, e.g. T-1001.', 'the catalogue suggests a description');
  draft.params[0].description = '';
  const { problems } = compile(draft, { name: 'This Name Is Far Too Long For A Tool', description: 'x'.repeat(501) });
  assert.ok(problems.some((p) => p.startsWith('What agents call it:')));
  assert.ok(problems.some((p) => p.includes('limit is 500')));
  assert.ok(compile(draft, { name: 'ok_name', title: 't'.repeat(61), description: 'ok' }).problems.some((p) => p.startsWith('Name:') && p.includes('limit is 60')));
  assert.ok(problems.some((p) => p.startsWith('Say in a few words what the ticket you choose is')));
  draft.params[0].description = 'y'.repeat(151);
  assert.ok(compile(draft, { name: 'ok_name', description: 'ok' }).problems.some((p) => p.includes('limit is 150')));
  assert.ok(compile(draft, { name: 'understudy_x', description: 'ok' }).problems.some((p) => p.includes('reserved')));
});

test('the schema lint refuses $ref, unknown keywords, non-object roots and impossible schemas', () => {
  assert.deepEqual(lintSchema({ type: 'object', properties: { a: { type: 'string' } } }), []);
  assert.ok(lintSchema({ type: 'array' }).length);
  assert.ok(lintSchema({ type: 'object', properties: { a: { $ref: '#/x' } } }).some((p) => p.includes('$ref')));
  // An unknown keyword is refused without repeating it, or the property's name, back.
  assert.deepEqual(lintSchema({ type: 'object', properties: { secret_a: { type: 'string', frobnicate: 1 } } }), ['/properties/1: a keyword that is not allowed']);
  assert.ok(lintSchema({ type: 'object', properties: { a: { type: 'string', minLength: 5, maxLength: 2 } } }).length);
  assert.ok(lintSchema({ type: 'object', properties: {}, required: ['a'], additionalProperties: false }).length);
  assert.ok(lintSchema({ type: 'object', properties: { a: { enum: [] } } }).length);
});

test('annotations come from the catalogue and the summary is composed from the steps', () => {
  const { bus } = makeBus();
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'filter_tickets', { text: 'vat' }, 'filter-text');
  const draft = generalize(rec.stop());
  draft.params[0].description = 'Words to look for.';
  const { definition } = compile(draft, { name: 'find_vat', description: 'Find VAT questions.' });
  assert.deepEqual(definition.annotations, { readOnlyHint: true, untrustedContentHint: false });
  assert.match(plainSummary(definition), /only reads/);
});

test('results are kept inside the output budget by trimming lists', () => {
  const big = { ok: true, changed: Array.from({ length: 500 }, (_, i) => `T-${i}`) };
  const out = compact(big);
  assert.ok(JSON.stringify(out).length <= 1500);
  assert.equal(out.changed_more, 500 - out.changed.length);
});

test('repair replaces one step, keeps its ticket parameter and every other step', async () => {
  const { state, bus } = makeBus();
  const draft = generalize(teachAssignRefund(bus, 'T-1006'));
  for (const p of draft.params) if (p.name !== 'ticket_id') p.bound = false;
  const definition = publishable(draft);
  const retaught = { command: 'set_ticket_assignee', payload: { ticket_id: 'T-1011', assignee: 'marcus' }, provenance: { ticket_id: 'context', assignee: 'picked' } };
  const repaired = repairDefinition(definition, 1, [retaught]);
  assert.deepEqual(repaired.steps[1].args.ticket_id, definition.steps[1].args.ticket_id);
  assert.deepEqual(repaired.steps[1].args.assignee, { from: 'const', value: 'marcus' });
  assert.deepEqual(repaired.steps.filter((_, i) => i !== 1), definition.steps.filter((_, i) => i !== 1));
  const out = await runTool({ definition: repaired, input: { ticket_id: 'T-1014' }, bus });
  assert.equal(out.ok, true);
  assert.equal(state.byId.get('T-1014').assignee, 'marcus');
  assert.throws(() => repairDefinition(definition, 1, [retaught, retaught]), RepairError);
});

test('a run has its own view: the person\'s filter, list and open ticket stay as they were', async () => {
  const { state, bus } = makeBus();
  bus.dispatch('filter_tickets', { status: 'open' }, { source: 'ui' });
  bus.dispatch('select_ticket', { ticket_id: 'T-1006' }, { source: 'ui' });
  const mine = { filter: structuredClone(state.filter), matches: [...state.matches], selected: state.selectedId };
  const definition = {
    name: 'tag_phrase',
    inputSchema: { type: 'object', properties: { phrase: { type: 'string' } }, required: ['phrase'] },
    steps: [
      { command: 'filter_tickets', args: { text: { from: 'param', name: 'phrase' } } },
      { command: 'select_ticket', args: { ticket_id: { from: 'const', value: 'T-1001' } } },
      { command: 'tag_matching_tickets', args: { tag: { from: 'const', value: 'seen' } } },
    ],
  };
  const out = await runTool({ definition, input: { phrase: 'bank feed' }, bus });
  assert.equal(out.ok, true);
  assert.deepEqual(state.filter, mine.filter);
  assert.equal(state.selectedId, mine.selected);
  const bank = state.tickets.filter((t) => `${t.id}\n${t.subject}\n${t.body}\n${t.requester}`.toLowerCase().includes('bank feed'));
  assert.ok(bank.length > 0);
  for (const t of bank) assert.ok(t.tags.includes('seen'), t.id);
  // The net changes go to the shell: one per ticket changed, with the value written.
  assert.deepEqual(out.changes.map(([id]) => id).sort(), bank.map((t) => t.id).sort());
  assert.ok(out.changes.every(([, field, tags]) => field === 'tags' && tags.includes('seen')));
});

test('a routine that changes every match without searching first records the filter it had', () => {
  const { bus, state } = makeBus();
  bus.dispatch('filter_tickets', { text: 'invoice' }, { source: 'ui' });
  const rec = createRecorder({ bus, currentFilter: () => state.filter });
  rec.start();
  person(bus, 'set_matching_priority', { priority: 'high' }, 'bulk-priority');
  const recording = rec.stop();
  assert.deepEqual(recording.steps.map((s) => s.command), ['filter_tickets', 'set_matching_priority']);
  assert.deepEqual(recording.steps[0].payload, { text: 'invoice' });
  const draft = generalize(recording);
  assert.deepEqual(draft.steps[0].args.text, { from: 'const', value: 'invoice' });
});

test('by default a tool asks only for what the routine acted on; the rest is as it was done', () => {
  const { bus } = makeBus();
  const single = generalize(teachAssignRefund(bus, 'T-1006'));
  assert.deepEqual(single.params.filter((p) => p.bound).map((p) => p.name), ['ticket_id']);
  const rec = createRecorder({ bus });
  rec.start();
  person(bus, 'filter_tickets', { text: 'bank feed' }, 'filter-text');
  person(bus, 'tag_matching_tickets', { tag: 'bank-issue' }, 'bulk-tag');
  const set = generalize(rec.stop());
  assert.deepEqual(set.params.filter((p) => p.bound).map((p) => p.name), ['phrase']);
});

test('a tool made on one queue runs on another, where the same person has another id', async () => {
  const { bus, state } = makeBus();
  const nameOf = (kind, value) => (kind === 'person' ? state.assignees : state.templates).find((x) => x.id === value)?.name ?? null;
  const rec = createRecorder({ bus, nameOf });
  rec.start();
  person(bus, 'select_ticket', { ticket_id: 'T-1006' }, 'queue-list');
  person(bus, 'set_ticket_assignee', { ticket_id: 'T-1006', assignee: 'priya' }, 'assignee-select');
  person(bus, 'apply_template', { ticket_id: 'T-1006', template_id: 'refund_approved' }, 'template-apply');
  const recording = rec.stop();
  assert.deepEqual(recording.steps[1].refs, { assignee: { kind: 'person', name: 'Priya Raman' } });
  const definition = publishable(generalize(recording));
  assert.deepEqual(definition.steps[1].args.assignee, { from: 'const', value: 'priya', ref: { kind: 'person', name: 'Priya Raman' } });
  // A colleague's queue: Priya is "priya-raman" there, and the template has another id.
  const other = demoDocument();
  other.assignees = other.assignees.map((a) => (a.id === 'priya' ? { ...a, id: 'priya-raman' } : a));
  other.templates = other.templates.map((t) => (t.id === 'refund_approved' ? { ...t, id: 'tpl-7' } : t));
  const there = makeBus(other);
  const out = await runTool({ definition, input: { ticket_id: 'T-1011' }, bus: there.bus });
  assert.equal(out.ok, true, JSON.stringify(out));
  assert.equal(there.state.byId.get('T-1011').assignee, 'priya-raman');
  assert.match(there.state.byId.get('T-1011').reply_draft, /^Hi /);
  // Where nobody has that name, the run says which step's person is missing (not the name:
  // it may come from a colleague's pack) and changes nothing.
  other.assignees = other.assignees.filter((a) => a.id !== 'priya-raman');
  const lacking = makeBus(other);
  const refused = await runTool({ definition, input: { ticket_id: 'T-1011' }, bus: lacking.bus });
  assert.equal(refused.code, 'not_found');
  assert.equal(refused.message, 'The person step 2 assigns to is not on this queue. Choose someone who is, or repair the tool. Nothing was changed.');
  assert.doesNotMatch(refused.message, /Priya/);
});

test('a tool is named in words, and what agents call it is made from those words', async () => {
  const { nameFromTitle, suggestTitle } = await import('../js/ui/draft_editor.js');
  assert.equal(nameFromTitle('Escalate a refund', 'x'), 'escalate_a_refund');
  assert.equal(nameFromTitle('  Réponse à l’équipe! ', 'x'), 'reponse_a_l_equipe');
  assert.equal(nameFromTitle('2nd line hand-off', 'x'), 'tool_2nd_line_hand_off');
  assert.equal(nameFromTitle('Understudy check', 'x'), 'my_understudy_check', 'never a reserved name');
  assert.equal(nameFromTitle('日本語', 'assign_reply'), 'assign_reply', 'no letters to use: the suggested one');
  const long = nameFromTitle('Assign the ticket to the billing team and reply with the refund template', 'x');
  assert.ok(long.length <= 30 && /^[a-z][a-z0-9_]*$/.test(long) && !long.endsWith('_'), long);
  assert.equal(nameFromTitle('Assign, set the priority and reply', 'x'), 'assign_set_the_priority', 'not ending on "and"');
  const { bus } = makeBus();
  assert.equal(suggestTitle(teachAssignRefund(bus, 'T-1006')), 'Assign, set the priority and reply');
});
