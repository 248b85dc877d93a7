// A fixed sequence of WebMCP calls whose observable outcome is recorded as plain data.
// The same script runs against Chromium 156's native document.modelContext and against our
// shim in the Qt shell; the tests compare the two reports. Error *names* are compared; error
// messages are kept for people to read but differ between implementations.

function describeError(err) {
  return { error: err?.name ?? typeof err, message: String(err?.message ?? err).slice(0, 160) };
}

async function attempt(fn) {
  try {
    const value = await fn();
    return { ok: true, value: value === undefined ? '<undefined>' : value };
  } catch (err) {
    return describeError(err);
  }
}

function plainTools(list) {
  return list.map((t) => {
    const out = {};
    for (const key of Object.keys(t).sort()) {
      if (key === 'window') out.window = t.window === window ? '<this window>' : String(t.window);
      else if (key === 'origin') out.origin = t.origin === location.origin ? '<this origin>' : t.origin;
      else out[key] = t[key];
    }
    return out;
  });
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

export async function runConformance(mc = document.modelContext) {
  const report = {};
  const events = [];
  if (!mc) return { present: false };
  report.present = true;
  const proto = Object.getPrototypeOf(mc);
  report.methods = Object.getOwnPropertyNames(proto).filter((n) => n !== 'constructor').sort();
  report.absent = ['unregisterTool', 'provideContext', 'clearContext'].filter((n) => !(n in mc));
  report.isEventTarget = mc instanceof EventTarget;
  for (const type of ['toolchange', 'toolactivated', 'toolcancel']) {
    mc.addEventListener(type, (e) => {
      events.push({ type: e.type });
      if (!report.eventShapes?.[type]) {
        report.eventShapes = report.eventShapes ?? {};
        // Only what the event adds to a plain Event (for example toolName) is compared.
        const own = e.constructor === Event ? [] : Object.getOwnPropertyNames(Object.getPrototypeOf(e)).filter((n) => n !== 'constructor').sort();
        report.eventShapes[type] = { constructor: e.constructor.name, fields: Object.fromEntries(own.map((n) => [n, e[n]])), cancelable: e.cancelable, bubbles: e.bubbles };
      }
    });
  }

  const controllers = {};
  const seenArgs = {};
  const reg = (tool, opts) => attempt(() => mc.registerTool(tool, opts));
  const base = (name, extra = {}) => ({
    name,
    description: `The ${name} tool.`,
    async execute(input, client) {
      seenArgs[name] = { inputKeys: Object.keys(input ?? {}).sort(), secondKeys: Object.keys(client ?? {}).sort(), hasSignal: client?.signal instanceof AbortSignal };
      return { echo: input };
    },
    ...extra,
  });

  controllers.b = new AbortController();
  report.registerFull = await reg(base('b_tool', {
    title: 'B tool',
    inputSchema: { type: 'object', properties: { x: { type: 'number' } } },
    annotations: { readOnlyHint: true },
  }), { signal: controllers.b.signal });
  controllers.a = new AbortController();
  report.registerMinimal = await reg(base('a_tool'), { signal: controllers.a.signal });
  await tick();
  report.eventsAfterRegister = events.splice(0).map((e) => e.type);

  report.registerDuplicate = await reg(base('a_tool'));
  report.registerBadNames = {};
  for (const [label, name] of [['empty', ''], ['space', 'has space'], ['long', 'x'.repeat(129)], ['unicode', 'tööl'], ['slash', 'a/b'], ['max', 'y'.repeat(128)]]) {
    report.registerBadNames[label] = await reg(base(name));
  }
  report.registerEmptyDescription = await reg({ ...base('c_tool'), description: '' });
  report.registerNoDescription = await reg({ name: 'd_tool', execute: () => 1 });
  report.registerNoExecute = await reg({ name: 'e_tool', description: 'No execute.' });
  const aborted = new AbortController();
  aborted.abort();
  report.registerAbortedSignal = await reg(base('f_tool'), { signal: aborted.signal });
  report.registerNotObject = await reg('not a tool');
  await tick();
  report.eventsAfterBadRegistrations = events.splice(0).map((e) => e.type);

  report.getTools = await attempt(async () => plainTools(await mc.getTools()));
  // executeTool takes a tool object from getTools(), not a name.
  const tool = async (name) => (await mc.getTools()).find((t) => t.name === name);
  const run = async (name, input, opts) => mc.executeTool(await tool(name), input, opts);
  report.getToolsIsFresh = await attempt(async () => (await mc.getTools())[0] !== (await mc.getTools())[0]);

  report.executeOk = await attempt(() => run('a_tool', { x: 1, y: 'two' }));
  report.executeArgs = seenArgs.a_tool ?? null;
  report.executeByName = await attempt(() => mc.executeTool('a_tool', {}));
  report.executeByPlainObject = await attempt(() => mc.executeTool({ name: 'a_tool' }, {}));
  report.executeByDictionary = await attempt(() => mc.executeTool({ name: 'a_tool', description: 'any', origin: location.origin, window }, { z: 1 }));
  report.executeByDictionaryNoWindow = await attempt(() => mc.executeTool({ name: 'a_tool', description: 'any', origin: location.origin }, { z: 1 }));
  report.executeByDictionaryUnknown = await attempt(() => mc.executeTool({ name: 'nope', description: 'any', origin: location.origin, window }, {}));
  report.executeByDictionaryOtherOrigin = await attempt(() => mc.executeTool({ name: 'a_tool', description: 'any', origin: 'https://example.com', window }, {}));
  report.executeNonObject = {};
  for (const [label, input] of [['number', 5], ['string', 'str'], ['null', null], ['array', [1]], ['undefined', undefined]]) {
    report.executeNonObject[label] = await attempt(() => run('a_tool', input));
  }

  await reg({ name: 'throws', description: 'Always fails.', execute() { throw new TypeError('broken on purpose'); } });
  await reg({ name: 'rejects', description: 'Always rejects.', async execute() { throw new Error('rejected on purpose'); } });
  await reg({ name: 'returns_text', description: 'Returns a string.', execute: () => 'plain text' });
  await reg({ name: 'returns_nothing', description: 'Returns nothing.', execute: () => undefined });
  await reg({ name: 'returns_number', description: 'Returns a number.', execute: () => 42 });
  // The slow tool announces each start, so the test can wait for it however the host schedules.
  const starts = [];
  let onStart = null;
  await reg({
    name: 'slow',
    description: 'Waits until released or aborted.',
    execute(input, client) {
      return new Promise((resolve, reject) => {
        const run = { release: () => resolve({ done: true }) };
        starts.push(run);
        client?.signal?.addEventListener('abort', () => reject(new DOMException('stopped', 'AbortError')));
        if (onStart) onStart();
      });
    },
  });
  const started = (count) => new Promise((resolve) => {
    const check = () => { if (starts.length >= count) resolve(true); };
    onStart = check;
    check();
    setTimeout(() => resolve(false), 1000);
  });
  await tick();
  events.splice(0);
  report.executeThrows = await attempt(() => run('throws', {}));
  report.executeRejects = await attempt(() => run('rejects', {}));
  report.executeReturnsText = await attempt(() => run('returns_text', {}));
  report.executeReturnsNothing = await attempt(() => run('returns_nothing', {}));
  report.executeReturnsNumber = await attempt(() => run('returns_number', {}));

  const callAbort = new AbortController();
  const pending = attempt(() => run('slow', {}, { signal: callAbort.signal }));
  report.slowStarted = await started(1);
  callAbort.abort();
  report.executeAborted = await Promise.race([pending, new Promise((r) => setTimeout(() => r({ timeout: true }), 1000))]);
  for (const run of starts) run.release();
  const finished = attempt(() => run('slow', {}));
  report.slowStartedAgain = await started(2);
  for (const run of starts) run.release();
  report.executeReleased = await Promise.race([finished, new Promise((r) => setTimeout(() => r({ timeout: true }), 1000))]);
  await tick();
  report.eventsDuringExecute = events.splice(0).map((e) => e.type);

  const stale = await tool('a_tool');
  controllers.a.abort();
  await tick();
  report.eventsAfterAbort = events.splice(0).map((e) => e.type);
  report.toolsAfterAbort = await attempt(async () => (await mc.getTools()).map((t) => t.name));
  report.executeAfterAbort = await attempt(() => mc.executeTool(stale, {}));
  report.reRegisterAfterAbort = await reg(base('a_tool'));
  report.handlerProperties = ['ontoolchange', 'ontoolactivated', 'ontoolcancel'].map((p) => [p, p in mc, mc[p] === null ? null : typeof mc[p]]);
  return report;
}
