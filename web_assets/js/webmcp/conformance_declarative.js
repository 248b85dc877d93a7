// Conformance cases for declarative WebMCP: a <form toolname tooldescription> as a tool.
// Run with the rest of js/webmcp/conformance.js, natively and under the shim, and compared.
// What is recorded is what a page can rely on: which forms are listed and with what input
// schema, what a call fills in and submits, what it answers, and the events around it.
// When a form is listed and filled is a matter of tasks that differ between the two, so
// the cases wait for the state they need (up to a deadline) instead of counting tasks.

import { describe, describeError, namesOf, outcomeOf, sleep, until as untilWithin } from './conformance.js';

/** @typedef {import('./conformance.js').CaseContext} CaseContext */
/** @typedef {(id: string, run: (ctx: CaseContext) => unknown) => void} AddCase */

const DEADLINE_MS = 2000;

/**
 * Wait until `test` holds, up to the deadline (asked every 2 ms); says whether it did.
 * @param {() => unknown} test
 */
const until = (test) => untilWithin(test, DEADLINE_MS, 2);

/**
 * A form tool in this document, listed by the time this returns (or not: `entry` is then
 * undefined).
 * @param {CaseContext} ctx
 * @param {string} html the form's controls
 * @param {Record<string, string>} [attributes] more attributes of the form
 * @param {{ name?: string, description?: string | null }} [tool]
 */
async function addToolForm(ctx, html, attributes = {}, tool = {}) {
  const form = document.createElement('form');
  const name = tool.name ?? ctx.name();
  form.setAttribute('toolname', name);
  if (tool.description !== null) form.setAttribute('tooldescription', tool.description ?? 'A form tool.');
  for (const [key, value] of Object.entries(attributes)) form.setAttribute(key, value);
  form.innerHTML = html;
  document.body.append(form);
  ctx.onCleanup(() => form.remove());
  await until(async () => (await namesOf(ctx.mc)).includes(name));
  return { form, name, entry: await ctx.entry(name) };
}

/** @param {{ inputSchema?: unknown } | undefined} entry */
const schemaOf = (entry) => (entry ? entry.inputSchema : 'not listed');

/**
 * The submit listener a page puts on a form tool: it logs what it sees and answers as told.
 * @param {CaseContext} ctx
 * @param {HTMLFormElement} form
 * @param {(event: SubmitEvent & { agentInvoked?: boolean, respondWith?: (p: unknown) => void }) => void} [answer]
 */
function onSubmit(ctx, form, answer = () => {}) {
  form.addEventListener('submit', (event) => {
    const e = /** @type {SubmitEvent & { agentInvoked?: boolean, respondWith?: (p: unknown) => void }} */ (event);
    ctx.mark(`submit agentInvoked=${e.agentInvoked} ${JSON.stringify(Object.fromEntries(new FormData(form).entries()))}`);
    e.preventDefault();
    answer(e);
  });
}

/**
 * Calls a form tool and waits for the outcome (or the deadline).
 * @param {CaseContext} ctx
 * @param {{ name: string } | undefined} entry
 * @param {unknown} input
 * @param {(form: HTMLFormElement) => unknown} [meanwhile] what the person does while it waits
 * @param {HTMLFormElement} [form]
 */
async function callForm(ctx, entry, input, meanwhile, form) {
  if (!entry) return { call: 'not listed' };
  ctx.listen();
  ctx.log.length = 0;
  const call = watched(ctx.mc.executeTool(/** @type {any} */ (entry), /** @type {any} */ (input)));
  if (meanwhile && form) await meanwhile(form);
  await until(() => call.outcome !== 'pending');
  await sleep(5);
  return { call: call.outcome, events: ctx.log.filter((e) => !e.includes('toolchange')) };
}

/**
 * A call's promise, with how it settled (or 'pending') readable at any moment.
 * @param {Promise<unknown>} promise
 */
function watched(promise) {
  const state = { outcome: /** @type {unknown} */ ('pending') };
  promise.then((value) => { state.outcome = { fulfilled: describe(value) }; }, (err) => { state.outcome = { rejected: describeError(err) }; });
  return state;
}

/**
 * An outcome whose message quotes the engine's own validation message ("Please fill out
 * this field." in Chromium 156, "fill in" in QtWebEngine's): that part is left out.
 * @param {unknown} outcome
 */
function withoutEngineWords(outcome) {
  const said = /** @type {{ rejected?: { message?: string } }} */ (outcome).rejected?.message;
  if (typeof said !== 'string' || !said.startsWith('Form validation failed: ')) return outcome;
  const shape = said.replace(/: [^:]*\.\. /g, ': <the engine\'s message>. ');
  return { rejected: { .../** @type {{ rejected: object }} */ (outcome).rejected, message: shape } };
}

/** @param {AddCase} add */
export function declarativeCases(add) {
  listingCases(add);
  changeCases(add);
  schemaCases(add);
  callCases(add);
  waitingCases(add);
  submitEventCases(add);
}

/** Which forms are tools, and when. @param {AddCase} add */
function listingCases(add) {
  add('declarative.listed', async (ctx) => {
    const { entry } = await addToolForm(ctx, '<input name="q">');
    if (!entry) return 'not listed';
    return { description: entry.description, title: entry.title, origin: entry.origin === location.origin, window: entry.window === window, keys: Object.keys(entry).sort(), schemaType: typeof entry.inputSchema };
  });
  add('declarative.notInTheTaskThatAddedIt', async (ctx) => {
    const form = document.createElement('form');
    const name = ctx.name();
    form.setAttribute('toolname', name);
    form.setAttribute('tooldescription', 'Later.');
    let changes = 0;
    const count = () => { changes += 1; };
    ctx.mc.addEventListener('toolchange', count);
    document.body.append(form);
    ctx.onCleanup(() => form.remove());
    const sameTask = (await namesOf(ctx.mc)).includes(name);
    const later = await until(async () => (await namesOf(ctx.mc)).includes(name));
    await until(() => changes > 0);
    ctx.mc.removeEventListener('toolchange', count);
    return { sameTask, later, toolchange: changes > 0 };
  });
  /** @type {Record<string, Record<string, string | null>>} */
  const notTools = {
    invalidName: { toolname: 'two words', tooldescription: 'D.' },
    emptyName: { toolname: '', tooldescription: 'D.' },
    noDescription: { toolname: 'FORM_NAME', tooldescription: null },
    emptyDescription: { toolname: 'FORM_NAME', tooldescription: '' },
  };
  for (const [label, attributes] of Object.entries(notTools)) {
    add(`declarative.notATool.${label}`, async (ctx) => {
      const form = document.createElement('form');
      const name = ctx.name();
      for (const [key, value] of Object.entries(attributes)) if (value !== null) form.setAttribute(key, value === 'FORM_NAME' ? name : value);
      form.innerHTML = '<input name="a">';
      document.body.append(form);
      ctx.onCleanup(() => form.remove());
      // A valid form added after it is listed once things settle: by then this one would be too.
      const { name: witness } = await addToolForm(ctx, '<input name="b">');
      const names = await namesOf(ctx.mc);
      return { listed: names.includes(name) || names.includes('two words') || names.includes(''), witness: names.includes(witness) };
    });
  }
  add('declarative.notAForm', async (ctx) => {
    const div = document.createElement('div');
    const name = ctx.name();
    div.setAttribute('toolname', name);
    div.setAttribute('tooldescription', 'D.');
    document.body.append(div);
    ctx.onCleanup(() => div.remove());
    const { name: witness } = await addToolForm(ctx, '');
    const names = await namesOf(ctx.mc);
    return { listed: names.includes(name), witness: names.includes(witness) };
  });
  add('declarative.nameTakenByAScript', async (ctx) => {
    const name = await ctx.register(ctx.baseTool({ description: 'The script tool.' }));
    const { name: witness } = await addToolForm(ctx, '', {}, { name: `${name}_w` });
    const form = document.createElement('form');
    form.setAttribute('toolname', name);
    form.setAttribute('tooldescription', 'The form tool.');
    document.body.append(form);
    ctx.onCleanup(() => form.remove());
    await addToolForm(ctx, '');
    const tools = (await ctx.mc.getTools()).filter((t) => t.name === name).map((t) => t.description);
    return { tools, witness: (await namesOf(ctx.mc)).includes(witness) };
  });
  add('declarative.scriptAfterForm', async (ctx) => {
    const { name } = await addToolForm(ctx, '');
    const register = await outcomeOf(ctx, 'register', () => ctx.mc.registerTool(ctx.baseTool({ name }), ctx.options()));
    return { register, tools: (await ctx.mc.getTools()).filter((t) => t.name === name).map((t) => t.description) };
  });
  add('declarative.twoFormsOneName', async (ctx) => {
    const { name } = await addToolForm(ctx, '', {}, { description: 'first' });
    await addToolForm(ctx, '', {}, { name, description: 'second' });
    await addToolForm(ctx, '');
    return (await ctx.mc.getTools()).filter((t) => t.name === name).map((t) => t.description);
  });
}

/** A listed form that changes. @param {AddCase} add */
function changeCases(add) {
  add('declarative.removed', async (ctx) => {
    const { form, name } = await addToolForm(ctx, '<input name="a">');
    form.remove();
    const gone = await until(async () => !(await namesOf(ctx.mc)).includes(name));
    return { gone };
  });
  add('declarative.renamed', async (ctx) => {
    const { form, name } = await addToolForm(ctx, '<input name="a">');
    const renamed = `${name}_r`;
    form.setAttribute('toolname', renamed);
    const now = await until(async () => (await namesOf(ctx.mc)).includes(renamed));
    return { now, old: (await namesOf(ctx.mc)).includes(name) };
  });
  add('declarative.describedAnew', async (ctx) => {
    const { form, name } = await addToolForm(ctx, '<input name="a">');
    form.setAttribute('tooldescription', 'Said again.');
    await until(async () => (await ctx.entry(name))?.description === 'Said again.');
    return (await ctx.entry(name))?.description;
  });
  add('declarative.controlAdded', async (ctx) => {
    const { form, name } = await addToolForm(ctx, '<input name="a">');
    const input = document.createElement('input');
    input.name = 'b';
    form.append(input);
    await until(async () => 'b' in (/** @type {any} */ (await ctx.entry(name))?.inputSchema?.properties ?? {}));
    return schemaOf(await ctx.entry(name));
  });
  add('declarative.controlOutsideTheForm', async (ctx) => {
    const id = `${ctx.name()}_form`;
    const outside = document.createElement('input');
    outside.name = 'outside';
    outside.setAttribute('form', id);
    document.body.append(outside);
    ctx.onCleanup(() => outside.remove());
    const { entry } = await addToolForm(ctx, '<input name="inside">', { id });
    return schemaOf(entry);
  });
}

/** The input schema made from the form's controls. @param {AddCase} add */
function schemaCases(add) {
  /** @type {Record<string, string>} */
  const forms = {
    empty: '',
    text: '<label>Words <input name="q" required toolparamdescription="Words to look for"></label><input name="plain"><input type="text"><input name="pw" type="password"><input name="mail" type="email" aria-description="Mail address"><input name="u" type="url"><input name="tel" type="tel"><input name="se" type="search">',
    numbers: '<label>Count <input name="n" type="number" min="1" max="9"></label><input name="num" type="number"><input name="numstep" type="number" step="0.5" min="-2"><input name="numany" type="number" step="any"><input name="range" type="range">',
    dates: '<input name="d" type="date"><input name="d2" type="date" toolparamdescription="Start day"><input name="t" type="time"><input name="dt" type="datetime-local"><input name="mo" type="month"><input name="wk" type="week"><input name="col" type="color">',
    choices: '<select name="color" required><option value="r">Red</option><option value="g" selected>Green</option><option>Blue</option></select><select name="many" multiple><option value="a">A</option><option value="b">B</option></select><label>Wrap <select name="wsel"><option value="">Choose</option><optgroup label="G"><option value="x">X</option></optgroup></select></label><select toolparamdescription="SelDesc" name="sd"><option>only</option></select>',
    radios: '<fieldset><legend>Size</legend><input type="radio" name="size" value="s" required toolparamdescription="Size"><input type="radio" name="size" value="l"></fieldset>',
    checkboxes: '<input name="flag" type="checkbox" value="yes"><input name="must" type="checkbox" required>',
    left: '<input name="secret" type="hidden" value="h"><input name="dis" disabled><input name="ro" readonly><input name="file" type="file"><button type="submit" name="go" value="1">Go</button><input type="submit" name="sub"><input type="reset" name="res"><output name="out">o</output><fieldset disabled><input name="inDisabled"></fieldset>',
    textareas: '<textarea name="note" toolparamdescription="A note" maxlength="10"></textarea><textarea name="ta" required></textarea><textarea name="tro" readonly></textarea>',
    patterns: '<input name="pat" pattern="[a-z]+" minlength="2" maxlength="5" placeholder="ph" title="tt"><label for="lf-PREFIX">For label</label><input id="lf-PREFIX" name="lfor">',
    sharedNames: '<input name="dup"><input name="dup"><input name="solo">',
  };
  for (const [label, html] of Object.entries(forms)) {
    add(`declarative.schema.${label}`, async (ctx) => {
      const { entry } = await addToolForm(ctx, html.replaceAll('PREFIX', ctx.name()));
      return schemaOf(entry);
    });
  }
}

/** Calling a form tool. @param {AddCase} add */
function callCases(add) {
  const auto = { toolautosubmit: '' };
  /** @type {Record<string, (e: any) => void>} */
  const answers = {
    respondsWithObject: (e) => e.respondWith(Promise.resolve({ ok: 1 })),
    respondsWithString: (e) => e.respondWith('plain'),
    respondsWithRejection: (e) => e.respondWith(Promise.reject(new Error('nope'))),
    respondsTwice: (e) => { e.respondWith(Promise.resolve(1)); e.respondWith(Promise.resolve(2)); },
    preventsWithoutResponding: () => {},
  };
  for (const [label, answer] of Object.entries(answers)) {
    add(`declarative.call.${label}`, async (ctx) => {
      const { form, entry } = await addToolForm(ctx, '<input name="a">', auto);
      onSubmit(ctx, form, answer);
      return callForm(ctx, entry, { a: 'x' });
    });
  }
  add('declarative.call.respondsTooLate', async (ctx) => {
    const { form, entry } = await addToolForm(ctx, '<input name="a">', auto);
    let late = /** @type {unknown} */ ('not tried');
    onSubmit(ctx, form, (e) => setTimeout(() => { try { /** @type {any} */ (e).respondWith(1); late = 'accepted'; } catch (err) { late = describeError(err); } }, 0));
    const result = await callForm(ctx, entry, { a: 'x' });
    await until(() => late !== 'not tried');
    return { ...result, late };
  });
  /** @type {Record<string, [string, unknown]>} */
  const refused = {
    unknownParameter: ['<input name="a">', { zz: 1 }],
    numberAsText: ['<input name="n" type="number">', { n: 'abc' }],
    notAnOption: ['<select name="s"><option>a</option><option>b</option></select>', { s: 'c' }],
    requiredLeftOut: ['<input name="a" required>', {}],
  };
  for (const [label, [html, input]] of Object.entries(refused)) {
    add(`declarative.call.refused.${label}`, async (ctx) => {
      const { form, entry } = await addToolForm(ctx, html, auto);
      onSubmit(ctx, form);
      const result = await callForm(ctx, entry, input);
      return { ...result, call: withoutEngineWords(result.call) };
    });
  }
  add('declarative.call.fillsEveryKind', async (ctx) => {
    const html = '<input name="t"><input name="c" type="checkbox" value="on1" checked><input name="n" type="number"><select name="m" multiple><option>a</option><option>b</option><option>c</option></select><select name="s"><option>x</option><option>y</option></select><input type="radio" name="r" value="1"><input type="radio" name="r" value="2"><textarea name="ta"></textarea><input name="kept" value="as it was">';
    const { form, entry } = await addToolForm(ctx, html, auto);
    /** @type {string[]} */
    const heard = [];
    form.addEventListener('input', (e) => heard.push(`input ${/** @type {HTMLInputElement} */ (e.target).name}`));
    form.addEventListener('change', (e) => heard.push(`change ${/** @type {HTMLInputElement} */ (e.target).name}`));
    let values = /** @type {unknown} */ (null);
    form.addEventListener('submit', (e) => {
      values = [...new FormData(form).entries()];
      e.preventDefault();
      /** @type {any} */ (e).respondWith('ok');
    });
    const result = await callForm(ctx, entry, { t: 'words', c: false, n: 5, m: ['a', 'c'], s: 'y', r: '2', ta: 'long text' });
    return { ...result, values, heard };
  });
}

/** A form tool without toolautosubmit, and one that really submits. @param {AddCase} add */
function waitingCases(add) {
  add('declarative.call.submitted', async (ctx) => {
    const sink = document.createElement('iframe');
    sink.name = `${ctx.name()}_sink`;
    document.body.append(sink);
    ctx.onCleanup(() => sink.remove());
    const { entry } = await addToolForm(ctx, '<input name="a">', { toolautosubmit: '', action: 'probe_frame.html', target: sink.name });
    return callForm(ctx, entry, { a: 'x' });
  });
  add('declarative.call.waitsForThePerson', async (ctx) => {
    const { form, entry } = await addToolForm(ctx, '<input name="a" value="before"><button>Send</button>');
    onSubmit(ctx, form, (e) => /** @type {any} */ (e).respondWith(Promise.resolve({ done: true })));
    return callForm(ctx, entry, { a: 'filled' }, async (f) => {
      const field = /** @type {HTMLInputElement} */ (f.elements.namedItem('a'));
      const filled = await until(() => field.value === 'filled');
      ctx.mark(`filled ${filled}`);
      await sleep(20);
      ctx.mark('the person submits');
      /** @type {HTMLButtonElement} */ (f.querySelector('button')).click();
    }, form);
  });
  add('declarative.call.noSubmitButton', async (ctx) => {
    const { form, entry } = await addToolForm(ctx, '<input name="a" value="before">');
    const result = await callForm(ctx, entry, { a: 'filled' });
    return { ...result, value: /** @type {HTMLInputElement} */ (form.elements.namedItem('a')).value };
  });
  add('declarative.call.cancelledWhileWaiting', async (ctx) => {
    const { form, entry } = await addToolForm(ctx, '<input name="a"><button>Send</button>');
    const controller = new AbortController();
    ctx.listen();
    ctx.log.length = 0;
    const call = watched(ctx.mc.executeTool(/** @type {any} */ (entry), { a: 'q' }, { signal: controller.signal }));
    const field = /** @type {HTMLInputElement} */ (form.elements.namedItem('a'));
    await until(() => field.value === 'q');
    controller.abort();
    await until(() => call.outcome !== 'pending' && ctx.log.some((e) => e.includes('toolcancel')));
    return { call: call.outcome, events: ctx.log.filter((e) => !e.includes('toolchange')), value: field.value };
  });
}

/** SubmitEvent's two new members. @param {AddCase} add */
function submitEventCases(add) {
  add('declarative.submitEvent.members', () => {
    const agentInvoked = Object.getOwnPropertyDescriptor(SubmitEvent.prototype, 'agentInvoked');
    const respondWith = Object.getOwnPropertyDescriptor(SubmitEvent.prototype, 'respondWith');
    return {
      agentInvoked: agentInvoked ? { get: typeof agentInvoked.get, set: typeof agentInvoked.set, enumerable: agentInvoked.enumerable, configurable: agentInvoked.configurable } : null,
      respondWith: respondWith ? { type: typeof respondWith.value, length: respondWith.value.length, writable: respondWith.writable, enumerable: respondWith.enumerable } : null,
    };
  });
  add('declarative.submitEvent.madeByScript', async (ctx) => {
    const event = /** @type {SubmitEvent & { agentInvoked?: boolean, respondWith?: (p: unknown) => void }} */ (new SubmitEvent('submit'));
    const respond = await outcomeOf(ctx, 'respondWith', () => /** @type {any} */ (event).respondWith(Promise.resolve(1)));
    return { agentInvoked: event.agentInvoked, respond };
  });
  add('declarative.submitEvent.aPersonsSubmit', async (ctx) => {
    const { form } = await addToolForm(ctx, '<input name="a"><button>Send</button>');
    /** @type {unknown} */
    let seen = null;
    form.addEventListener('submit', (event) => {
      const e = /** @type {any} */ (event);
      event.preventDefault();
      seen = { agentInvoked: e.agentInvoked, respond: (() => { try { e.respondWith(1); return 'accepted'; } catch (err) { return describeError(err); } })() };
    });
    form.requestSubmit();
    return seen;
  });
}
