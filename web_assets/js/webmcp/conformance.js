// A differential conformance suite for document.modelContext.
//
// The same cases run against Chromium 156's native WebMCP and against our shim in the Qt
// shell; tests/test_webmcp_conformance.py compares the two reports case by case. Every case
// records what a page can observe as plain data: what a call returned or threw, how its
// promise settled (and after how many microtask turns), the events it caused in order, and
// what getTools() says afterwards. Error *names* are compared; messages are kept for people
// to read (the test drops every "message" key) because each implementation words its own.
//
// Cases are generated from tables derived from the IDL (members x kinds of JavaScript
// value) rather than listed one by one. Each case is isolated: fresh tool names, its own
// listeners (removed afterwards), its tools unregistered, and a getTools() round trip before
// the next case starts, so that late toolchange events land nowhere.
//
// isTrusted is never recorded: native events are trusted, and no script can dispatch a
// trusted event, so a shim cannot match it (docs/webmcp-differences.md).

// Types. The suite calls the API with every kind of value on purpose, so what it calls takes
// anything (`unknown`); what it records is plain data.

import { declarativeCases } from './conformance_declarative.js';

/**
 * document.modelContext as the suite drives it.
 * @typedef {EventTarget & {
 *   registerTool(...args: unknown[]): Promise<unknown>,
 *   getTools(...args: unknown[]): Promise<ToolEntry[]>,
 *   executeTool(...args: unknown[]): Promise<unknown>,
 *   ontoolchange: unknown, ontoolactivated: unknown, ontoolcancel: unknown,
 *   [handler: `on${string}`]: unknown,
 * }} ProbedContext
 */
/**
 * An entry of getTools(), as the suite reads (and tampers with) it.
 * @typedef {{
 *   name: string, description: string, origin: string, title: string, window: Window,
 *   inputSchema?: Record<string, unknown>, annotations?: Record<string, unknown>,
 *   [member: string]: unknown,
 * }} ToolEntry
 */
/** A value described as plain data (describe()). @typedef {string | boolean | null | Record<string, string>} Described */
/** An exception described (describeError()). @typedef {{ thrown: Described } | { error: string, tag: string, message: string | undefined }} ErrorRecord */
/**
 * How a call ended, with the value itself kept off the report (withRaw()).
 * @typedef {{ threw?: ErrorRecord, returned?: Described, fulfilled?: Described | string,
 *   rejected?: ErrorRecord, turns?: number | 'task', pending?: boolean, raw?: unknown }} CallOutcome
 */
/** @typedef {(id: string, run: (ctx: CaseContext) => unknown) => void} AddCase */

/**
 * A document's modelContext, typed as the suite drives it.
 * @param {Document} doc
 * @returns {ProbedContext}
 */
const probed = (doc) => /** @type {ProbedContext} */ (/** @type {unknown} */ (doc.modelContext));

const TIMEOUT_MS = 1000;
// For what is known to settle and is compared only once it has: long enough for a busy
// machine, inside the case's own timeout.
const SETTLES_MS = 5000;
/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// ---------------------------------------------------------------------------------------
// Plain-data descriptions of values and errors

/**
 * A string as printable ASCII, so lone surrogates and control characters stay visible.
 * @param {string} s
 * @param {number} [limit]
 */
function text(s, limit = 300) {
  const escaped = s.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return escaped.length > limit ? `${escaped.slice(0, limit)}...(${s.length})` : escaped;
}

/** @param {unknown} value */
function safeJson(value) {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? '<undefined>' : text(json);
  } catch (err) {
    return `<throws ${/** @type {{ name?: unknown } | null} */ (err)?.name}>`;
  }
}

/**
 * @param {unknown} value
 * @returns {Described}
 */
export function describe(value) {
  switch (typeof value) {
    case 'undefined': return '<undefined>';
    case 'string': return { string: text(value) };
    case 'number': return { number: Object.is(value, -0) ? '-0' : String(value) };
    case 'boolean': return value;
    case 'bigint': return { bigint: String(value) };
    case 'symbol': return { symbol: text(value.description ?? '') };
    case 'function': return { function: value.name };
    default:
      if (value === null) return null;
      return { object: Object.prototype.toString.call(value), json: safeJson(value) };
  }
}

/**
 * @param {unknown} err
 * @returns {ErrorRecord}
 */
export function describeError(err) {
  if ((typeof err !== 'object' && typeof err !== 'function') || err === null) return { thrown: describe(err) };
  let name;
  let message;
  const members = /** @type {{ name?: unknown, message?: unknown }} */ (err);
  try {
    name = String(members.name);
    message = String(members.message).slice(0, 200);
  } catch {
    name = '<unreadable>';
  }
  return { error: name, tag: Object.prototype.toString.call(err), message };
}

/**
 * Keeps the raw value on a record without putting it in the report.
 * @template {object} T
 * @param {T} record
 * @param {unknown} raw
 * @returns {T & { raw?: unknown }}
 */
function withRaw(record, raw) {
  Object.defineProperty(record, 'raw', { value: raw, enumerable: false });
  return record;
}

/**
 * @param {unknown} v
 * @returns {v is PromiseLike<unknown>}
 */
const isThenable = (v) => v !== null && (typeof v === 'object' || typeof v === 'function') && typeof /** @type {{ then?: unknown }} */ (v).then === 'function';

// ---------------------------------------------------------------------------------------
// Calls and their settlement

/**
 * Calls fn; a returned promise is followed to settlement, counting microtask turns.
 * @param {CaseContext} ctx
 * @param {string} label
 * @param {() => unknown} fn
 * @param {number} [waitMs] how long a promise may take before it counts as pending
 * @returns {Promise<CallOutcome>}
 */
export async function outcomeOf(ctx, label, fn, waitMs = TIMEOUT_MS) {
  let result;
  try {
    result = fn();
  } catch (err) {
    ctx.log.push(`${label}:threw`);
    return withRaw({ threw: describeError(err) }, err);
  }
  if (!isThenable(result)) return { returned: describe(result) };
  return settle(ctx, label, result, waitMs);
}

/**
 * @param {CaseContext} ctx
 * @param {string} label
 * @param {PromiseLike<unknown>} promise
 * @param {number} waitMs
 * @returns {Promise<CallOutcome>}
 */
async function settle(ctx, label, promise, waitMs) {
  let state = /** @type {CallOutcome | null} */ (null);
  promise.then(
    (value) => { state = withRaw({ fulfilled: describe(value) }, value); ctx.log.push(`${label}:fulfilled`); },
    (err) => { state = withRaw({ rejected: describeError(err) }, err); ctx.log.push(`${label}:rejected`); },
  );
  for (let turn = 1; turn <= 8; turn++) {
    await null;
    if (state) return withRaw({ ...state, turns: turn }, state.raw);
  }
  await Promise.race([promise.then(() => {}, () => {}), sleep(waitMs)]);
  if (!state) {
    ctx.log.push(`${label}:pending`);
    return { pending: true };
  }
  return withRaw({ ...state, turns: 'task' }, state.raw);
}

// ---------------------------------------------------------------------------------------
// Kinds of JavaScript value, each made fresh for every case

const KINDS = {
  undefined: () => undefined,
  null: () => null,
  true: () => true,
  false: () => false,
  zero: () => 0,
  negativeZero: () => -0,
  nan: () => NaN,
  number: () => 42,
  emptyString: () => '',
  string: () => 'text',
  loneSurrogate: () => 'a\uD800b',
  bigint: () => 5n,
  symbol: () => Symbol('s'),
  object: () => ({}),
  array: () => [],
  function: () => function named() {},
  stringifiable: () => ({ toString() { return 'from toString'; }, valueOf() { return 7; } }),
  throwingGetter: () => new Proxy({}, { get() { throw new RangeError('getter throws'); } }),
  proxy: () => new Proxy({ a: 1 }, {}),
};

const REASONS = {
  none: () => undefined,
  string: () => 'why',
  number: () => 0,
  null: () => null,
  error: () => new Error('stop'),
  domException: () => new DOMException('stop', 'NotAllowedError'),
  object: () => ({ why: 1 }),
};

// Origins for exposedTo and fromOrigins. ${self} is this page's origin.
const ORIGINS = {
  self: () => [location.origin],
  https: () => ['https://example.com'],
  httpsWithPath: () => ['https://example.com/path?q#f'],
  httpsUpperCase: () => ['HTTPS://EXAMPLE.COM'],
  http: () => ['http://example.com'],
  localhost: () => ['http://localhost:1'],
  loopback: () => ['http://127.0.0.2'],
  file: () => ['file:///tmp/x'],
  wss: () => ['wss://example.com'],
  data: () => ['data:,x'],
  aboutBlank: () => ['about:blank'],
  blob: () => ['blob:https://example.com/uuid'],
  relative: () => ['/relative'],
  notAUrl: () => ['not a url'],
  emptyString: () => [''],
  loneSurrogateHost: () => ['https://a\uD800.example'],
  secondBad: () => ['https://example.com', 'http://example.com'],
  empty: () => [],
  set: () => new Set(['https://example.com']),
  arrayLike: () => ({ length: 1, 0: 'https://example.com' }),
  numbers: () => [1],
};

// ---------------------------------------------------------------------------------------
// The IDL, as tables

const TOOL_MEMBERS = ['annotations', 'description', 'execute', 'inputSchema', 'name', 'title'];
const ANNOTATION_MEMBERS = ['consequentialHint', 'debugging', 'readOnlyHint', 'untrustedContentHint'];
const REGISTER_OPTION_MEMBERS = ['exposedTo', 'signal'];
const REGISTERED_TOOL_MEMBERS = ['annotations', 'description', 'inputSchema', 'name', 'origin', 'title', 'window'];
const EXECUTE_OPTION_MEMBERS = ['signal'];
const GET_OPTION_MEMBERS = ['fromOrigins'];
const EVENT_TYPES = ['toolchange', 'toolactivated', 'toolcancel'];
const INTERFACES = { ModelContext: 'EventTarget', ToolActivatedEvent: 'Event', ToolCancelEvent: 'Event' };
const MC_MEMBERS = [
  ['registerTool', 'method'], ['getTools', 'method'], ['executeTool', 'method'],
  ...EVENT_TYPES.flatMap((t) => [[`on${t}`, 'get'], [`on${t}`, 'set']]),
];

/** @type {Record<string, (unique: string) => string>} */
const NAMES = {
  empty: () => '',
  oneChar: (u) => `${u}`,
  max128: (u) => u + 'x'.repeat(128 - u.length),
  over128: (u) => u + 'x'.repeat(129 - u.length),
  allAllowed: (u) => `${u}.AZaz09_-`,
  leadingDot: (u) => `.${u}`,
  digitsOnly: () => '0123456789',
  space: (u) => `${u} x`,
  tab: (u) => `${u}\tx`,
  slash: (u) => `${u}/x`,
  colon: (u) => `${u}:x`,
  nonAscii: (u) => `${u}\u00f6`,
  fullwidth: (u) => `${u}\uff41`,
  emoji: (u) => `${u}\u{1F600}`,
  loneSurrogate: (u) => `${u}\uD800`,
  nul: (u) => `${u}\u0000`,
};

const DESCRIPTIONS = {
  empty: () => '',
  space: () => ' ',
  long: () => 'd'.repeat(20000),
  loneSurrogate: () => 'a\uD800b',
  nul: () => 'a\u0000b',
  unicode: () => 'caf\u00e9 \u{1F600}',
};

const TITLES = {
  empty: () => '',
  long: () => 't'.repeat(20000),
  loneSurrogate: () => 'a\uD800b',
  loneLowSurrogate: () => 'a\uDC00b',
  pairedSurrogates: () => 'a\uD83D\uDE00b',
};

function circular() {
  /** @type {{ type: string, self?: object }} */
  const o = { type: 'object' };
  o.self = o;
  return o;
}

const SCHEMAS = {
  empty: () => ({}),
  object: () => ({ type: 'object', properties: { x: { type: 'number' } }, required: ['x'] }),
  stringType: () => ({ type: 'string' }),
  invalidType: () => ({ type: 'nonsense' }),
  numericType: () => ({ type: 5 }),
  badProperties: () => ({ type: 'object', properties: 5 }),
  ref: () => ({ $ref: '#/nowhere' }),
  array: () => [],
  arrayOfNumbers: () => [1, 2],
  date: () => new Date(0),
  map: () => new Map([['a', 1]]),
  regexp: () => /x/,
  withUndefinedAndFunction: () => ({ type: 'object', a: undefined, f() {} }),
  withNaN: () => ({ type: 'object', n: NaN, i: Infinity, z: -0 }),
  withBigint: () => ({ type: 'object', b: 1n }),
  withSymbolValue: () => ({ type: 'object', s: Symbol('s') }),
  circular,
  toJSONString: () => ({ toJSON: () => 'schema' }),
  toJSONNumber: () => ({ toJSON: () => 5 }),
  toJSONUndefined: () => ({ toJSON: () => undefined }),
  toJSONThrows: () => ({ toJSON() { throw new RangeError('toJSON throws'); } }),
  getterThrows: () => ({ type: 'object', get bad() { throw new RangeError('getter throws'); } }),
  loneSurrogateKey: () => ({ type: 'object', properties: { 'a\uD800': { type: 'string' } } }),
  proxy: () => new Proxy({ type: 'object' }, {}),
  boxedString: () => Object('str'),
  function: () => function schema() {},
  deep: () => {
    /** @type {Record<string, unknown>} */
    let o = { type: 'object' };
    for (let i = 0; i < 50; i++) o = { type: 'object', properties: { n: o } };
    return o;
  },
};

// Values a tool returns (or resolves to). Symbol is missing on purpose: see SKIPPED.
const RESULTS = {
  undefined: () => undefined,
  null: () => null,
  emptyString: () => '',
  string: () => 'plain text',
  jsonLookingString: () => '{"a":1}',
  loneSurrogate: () => 'a\uD800b',
  zero: () => 0,
  negativeZero: () => -0,
  number: () => 42.5,
  nan: () => NaN,
  infinity: () => Infinity,
  negativeInfinity: () => -Infinity,
  true: () => true,
  false: () => false,
  bigint: () => 5n,
  emptyArray: () => [],
  array: () => [1, 'a', null, undefined, () => 1],
  emptyObject: () => ({}),
  object: () => ({ a: 1, b: 'two', c: [true] }),
  nested: () => ({ a: { b: { c: { d: [1, { e: null }] } } } }),
  undefinedMembers: () => ({ a: undefined, f() {}, s: Symbol('s') }),
  date: () => new Date(0),
  map: () => new Map([['a', 1]]),
  set: () => new Set([1]),
  regexp: () => /x/g,
  error: () => new Error('as a value'),
  typedArray: () => new Uint8Array([1, 2]),
  function: () => function result() {},
  circular,
  bigintInside: () => ({ a: 1n }),
  toJSONValue: () => ({ toJSON: () => ({ replaced: true }) }),
  toJSONUndefined: () => ({ toJSON: () => undefined }),
  toJSONThrows: () => ({ toJSON() { throw new RangeError('toJSON throws'); } }),
  getterThrows: () => ({ get bad() { throw new RangeError('getter throws'); } }),
  proxy: () => new Proxy({ a: 1 }, {}),
  boxedString: () => Object('boxed'),
  boxedNumber: () => Object(3),
  nonPlainPrototype: () => Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }),
};

const THROWN = {
  error: () => new Error('thrown'),
  typeError: () => new TypeError('thrown'),
  abortError: () => new DOMException('thrown', 'AbortError'),
  domException: () => new DOMException('thrown', 'NotAllowedError'),
  string: () => 'thrown',
  number: () => 7,
  undefined: () => undefined,
  null: () => null,
  object: () => ({ name: 'Custom', message: 'thrown' }),
  bigint: () => 5n,
  symbol: () => Symbol('thrown'),
};

// Behaviours a script cannot reproduce: the cases run on both sides, the test expects them to
// differ, and docs/webmcp-differences.md explains each.
const KNOWN_DIFFERENCES = {
  'events.microtaskBetweenListeners': 'A native event runs microtasks after each listener; an event a script dispatches runs them only after the last listener.',
  'frames.aboutBlank.engineErrorRealm': "An about:blank frame's shim is its parent's code: an error the engine itself raises in that code is the parent's realm's.",
  'nesting.input.fromDeepStack': "Natively how deep an input may nest depends on how much of the renderer's stack the caller has used; the shim's limit is native's from a shallow stack.",
  'frames.aboutBlank.inShadowTree': "The parent's shim reaches an about:blank frame at the load event it fires while being inserted, and that event does not leave a shadow tree.",
  'frames.initialDocumentOfNavigatingFrame': "A frame given a src or srcdoc holds an about:blank document until its navigation commits; QtWebEngine injects no script there, and it fires no load event the parent's shim could act on.",
  'abort.register.pageListenerAddedFirst': "Native abort steps run before every 'abort' listener; the shim's are a listener, after those the page added earlier.",
  'abort.execute.pageListenerAddedFirst': "Native abort steps run before every 'abort' listener; the shim's are a listener, after those the page added earlier.",
};

// Known native crashes: recorded here, run on neither side.
const SKIPPED = {
  'result.return.symbol': 'KNOWN NATIVE CRASH: Chromium 156 kills the renderer when a tool returns a Symbol',
  'result.resolve.symbol': 'KNOWN NATIVE CRASH: Chromium 156 kills the renderer when a tool resolves to a Symbol',
  'documents.createHTMLDocument': 'KNOWN NATIVE CRASH: reading modelContext of a document without a browsing context kills the renderer',
  'documents.newDocument': 'KNOWN NATIVE CRASH: reading modelContext of a document without a browsing context kills the renderer',
  'frames.abortAfterFrameRemoved': 'KNOWN NATIVE CRASH: aborting the signal of a tool registered in a frame that was since removed kills the renderer',
  'documents.domParser': 'KNOWN NATIVE CRASH: reading modelContext of a document without a browsing context kills the renderer',
};

// ---------------------------------------------------------------------------------------
// One case's context

/** What a tool's execute() is given besides its input. @typedef {{ signal: AbortSignal }} ToolClient */
/** How a test tool answers. @typedef {(input: unknown, client: ToolClient) => unknown} Behaviour */

export class CaseContext {
  /**
   * @param {{ mc: ProbedContext }} env
   * @param {number} caseNumber the case's place in the whole list, so that a case run again
   *   on its own names its tools as it did in the full run
   */
  constructor(env, caseNumber) {
    this.env = env;
    this.mc = env.mc;
    this.prefix = `k${caseNumber}`;
    this.serial = 0;
    /** @type {string[]} */
    this.log = [];
    /** @type {object[]} */
    this.calls = [];
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    /** @type {Array<() => void>} */
    this.detachers = [];
    /** @type {Array<() => unknown>} */
    this.cleanups = [];
    /** @type {Set<ProbedContext>} */
    this.contexts = new Set([env.mc]);
    // What the fault-pair cases set up before applying their faults.
    this.duplicateName = '';
    /** @type {AbortSignal | undefined} */
    this.abortedSignal = undefined;
  }

  /** A tool name no other case uses. */
  name(tag = 't') {
    this.serial += 1;
    return `${this.prefix}_${tag}${this.serial}`;
  }

  /** @param {string} what */
  mark(what) { this.log.push(what); }

  /** Logs the three events on a ModelContext until the case ends. */
  listen(mc = this.mc, label = 'top') {
    this.contexts.add(mc);
    for (const type of EVENT_TYPES) {
      /** @param {Event & { toolName?: string }} e */
      const listener = (e) => {
        this.log.push(`${label}:${e.type}${'toolName' in e ? `(${e.toolName})` : ''}`);
        // A microtask marker shows where microtask checkpoints fall relative to events.
        Promise.resolve().then(() => this.log.push(`${label}:${e.type}:microtask`));
      };
      mc.addEventListener(type, listener);
      this.detachers.push(() => mc.removeEventListener(type, listener));
    }
  }

  /**
   * An execute callback that logs its call and answers as behave(input, client) says.
   * @param {string} [label]
   * @param {Behaviour} [behave]
   */
  executor(label = 'execute', behave = () => 'done') {
    const ctx = this;
    /**
     * @this {unknown}
     * @param {...unknown} args whatever the implementation passes (the case records it)
     */
    return function execute(...args) {
      ctx.log.push(label);
      ctx.calls.push(describeExecuteCall(this, args));
      Promise.resolve().then(() => ctx.log.push(`${label}:microtask`));
      // The client as the implementation gave it: a case that gets none fails where it reads it.
      return behave(args[0], /** @type {ToolClient} */ (args[1]));
    };
  }

  /**
   * A valid tool with a fresh name, changed or extended by `extra` (with any value at all).
   * @param {Record<string, unknown>} [extra]
   * @returns {{ name: string, description: string, execute: Function, [member: string]: unknown }}
   */
  baseTool(extra = {}) {
    return { name: this.name(), description: 'A tool.', execute: this.executor(), ...extra };
  }

  /**
   * @param {Record<string, unknown>} [extra]
   * @returns {{ signal?: unknown, exposedTo?: unknown, [member: string]: unknown }}
   */
  options(extra = {}) {
    return { signal: this.signal, ...extra };
  }

  /**
   * @param {{ name: string }} tool
   * @param {unknown} [options]
   */
  async register(tool, options = this.options()) {
    await this.mc.registerTool(tool, options);
    return tool.name;
  }

  /**
   * @param {string} name
   * @param {ProbedContext} [mc]
   */
  async entry(name, mc = this.mc) {
    return (await mc.getTools()).find((t) => t.name === name);
  }

  /**
   * The entry of `name` once `mc` lists it, for a case that needs it. Chromium 156 lists a
   * tool registered in a frame a moment after its registration resolves (once over 2 s on a
   * busy machine), so the entry is looked for until SETTLES_MS; undefined only after that.
   * @param {string} name
   * @param {ProbedContext} [mc]
   */
  async listed(name, mc = this.mc) {
    /** @type {ToolEntry | undefined} */
    let found;
    await until(async () => (found = await this.entry(name, mc)) !== undefined, SETTLES_MS);
    return found;
  }

  /** @param {() => unknown} fn */
  onCleanup(fn) { this.cleanups.push(fn); }

  async close() {
    const before = await this.ownTools();
    let changes = 0;
    const counter = () => { changes += 1; };
    this.mc.addEventListener('toolchange', counter);
    // Unregister first: aborting a signal whose tool lived in a removed frame kills Chromium
    // 156's renderer (see SKIPPED), so frames go only after their tools are gone.
    this.controller.abort();
    for (const fn of this.cleanups.splice(0).reverse()) {
      try { await fn(); } catch { /* a case's own cleanup failing must not stop the suite */ }
    }
    for (const mc of this.contexts) {
      try { await mc.getTools(); } catch { /* a detached frame's context */ }
    }
    // Chromium 156 delivers toolchange in a task of its own, not ordered with promises: a
    // getTools() round trip can settle first, and the event would then reach the next case's
    // handlers. So when this case's tools left, wait for the toolchange that says so.
    const after = await this.ownTools();
    if (before.some((name) => !after.includes(name))) {
      const until = performance.now() + TOOLCHANGE_WAIT_MS;
      while (changes === 0 && performance.now() < until) await sleep(1);
      await sleep(0);
    }
    this.mc.removeEventListener('toolchange', counter);
    for (const detach of this.detachers.splice(0)) detach();
  }

  /** The names of the tools this case registered that are listed now. */
  async ownTools() {
    try {
      return (await this.mc.getTools()).map((t) => t.name).filter((n) => n.startsWith(`${this.prefix}_`));
    } catch {
      return []; // a case may leave getTools unusable
    }
  }
}

/**
 * @param {unknown} thisValue
 * @param {unknown[]} args
 */
function describeExecuteCall(thisValue, args) {
  const input = args[0];
  const client = /** @type {{ signal?: unknown } | undefined} */ (args[1]);
  return {
    argCount: args.length,
    thisValue: thisValue === undefined ? 'undefined' : thisValue === window ? 'window' : describe(thisValue),
    input: describe(input),
    client: client === undefined ? '<undefined>' : {
      tag: Object.prototype.toString.call(client),
      plainPrototype: Object.getPrototypeOf(client) === Object.prototype,
      keys: Reflect.ownKeys(client).map(String),
      signal: client.signal instanceof AbortSignal ? { aborted: client.signal.aborted } : describe(client.signal),
    },
  };
}

/**
 * What getTools() says about one tool, as plain data.
 * @param {ToolEntry | undefined | null} entry
 */
function describeEntry(entry) {
  if (!entry) return null;
  /** @type {Record<string, unknown>} */
  const out = { keys: Reflect.ownKeys(entry).map(String), prototype: Object.getPrototypeOf(entry) === Object.prototype };
  for (const key of Object.keys(entry)) {
    const value = entry[key];
    if (key === 'window') out.window = value === window ? '<top>' : describeWindow(value);
    else if (key === 'origin') out.origin = value === location.origin ? '<this origin>' : describe(value);
    else out[key] = describe(value);
  }
  return out;
}

/** @param {unknown} w */
function describeWindow(w) {
  for (const frame of document.querySelectorAll('iframe')) if (frame.contentWindow === w) return `<frame ${frame.id}>`;
  return describe(w);
}

/**
 * Whether check() came true (asked again every `everyMs`) within ms.
 * @param {() => unknown} check
 * @param {number} ms
 * @param {number} [everyMs]
 */
export async function until(check, ms, everyMs = 20) {
  const deadline = performance.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (performance.now() > deadline) return false;
    await sleep(everyMs);
  }
}

/** @param {ProbedContext} mc */
export async function namesOf(mc) {
  return (await mc.getTools()).map((t) => t.name);
}

/**
 * Registers through fn and reports the outcome, the events and any tool it added.
 * @param {CaseContext} ctx
 * @param {() => unknown} fn
 */
async function registration(ctx, fn) {
  ctx.listen();
  const before = new Set(await namesOf(ctx.mc));
  ctx.log.length = 0;
  const call = await outcomeOf(ctx, 'register', fn);
  await ctx.mc.getTools(); // toolchange events queued by the call arrive before this answers
  const added = (await ctx.mc.getTools()).filter((t) => !before.has(t.name));
  return withRaw({ call, events: [...ctx.log], added: added.map(describeEntry) }, call.raw);
}

// ---------------------------------------------------------------------------------------
// Cases: the interface surface

/**
 * @param {object} object
 * @param {PropertyKey} key
 */
function descriptorSummary(object, key) {
  const d = Object.getOwnPropertyDescriptor(object, key);
  if (!d) return null;
  /** @param {Function | undefined} f */
  const fn = (f) => (f === undefined ? null : { name: f.name, length: f.length, constructs: isConstructor(f) });
  if ('value' in d) {
    return { kind: 'data', type: typeof d.value, enumerable: d.enumerable, configurable: d.configurable, writable: d.writable, ...(typeof d.value === 'function' ? { fn: fn(d.value) } : { value: describe(d.value) }) };
  }
  return { kind: 'accessor', enumerable: d.enumerable, configurable: d.configurable, get: fn(d.get), set: fn(d.set) };
}

/** @param {Function} f */
function isConstructor(f) {
  try {
    Reflect.construct(String, [], f);
    return true;
  } catch {
    return false;
  }
}

/**
 * An interface object the suite calls, constructs and inspects, whatever it turns out to be.
 * @typedef {{ (...args: unknown[]): unknown, new (...args: unknown[]): Event & { toolName?: unknown }, prototype: object }} InterfaceObject
 */

/**
 * The global's interface object called `name` (the DOM types know only some).
 * @param {string} name
 * @param {Window} [global]
 * @returns {InterfaceObject}
 */
const interfaceNamed = (name, global = window) => /** @type {Record<string, InterfaceObject>} */ (/** @type {unknown} */ (global))[name];

/** @param {AddCase} add */
function surfaceCases(add) {
  for (const [name, parent] of Object.entries(INTERFACES)) {
    add(`surface.global.${name}`, () => ({ type: typeof interfaceNamed(name), descriptor: descriptorSummary(window, name) }));
    add(`surface.interfaceObject.${name}`, () => {
      const I = interfaceNamed(name);
      return {
        keys: Reflect.ownKeys(I).map(String),
        length: descriptorSummary(I, 'length'),
        name: descriptorSummary(I, 'name'),
        prototype: { ...descriptorSummary(I, 'prototype'), value: undefined },
        inherits: Object.getPrototypeOf(I) === interfaceNamed(parent),
        prototypeInherits: Object.getPrototypeOf(I.prototype) === interfaceNamed(parent).prototype,
      };
    });
    add(`surface.prototype.${name}`, () => {
      const proto = interfaceNamed(name).prototype;
      /** @type {Record<string, unknown>} */
      const out = {};
      for (const key of Reflect.ownKeys(proto)) out[String(key)] = descriptorSummary(proto, key);
      return { order: Reflect.ownKeys(proto).map(String), members: out, tag: Object.prototype.toString.call(proto) };
    });
    add(`surface.callWithoutNew.${name}`, (ctx) => outcomeOf(ctx, 'call', () => interfaceNamed(name)('toolchange')));
  }
  add('surface.construct.ModelContext', (ctx) => outcomeOf(ctx, 'new', () => new ModelContext()));
  add('surface.construct.ModelContextSubclass', (ctx) => outcomeOf(ctx, 'new', () => new (class extends ModelContext {})()));
  surfaceEventConstructorCases(add);
  surfaceInstanceCases(add);
  surfaceIllegalInvocationCases(add);
  surfaceHandlerCases(add);
}

/** @type {Record<string, () => unknown[]>} */
const EVENT_INITS = {
  none: () => [],
  typeOnly: () => ['x'],
  undefinedInit: () => ['x', undefined],
  nullInit: () => ['x', null],
  toolName: () => ['x', { toolName: 'abc' }],
  numberToolName: () => ['x', { toolName: 5 }],
  nullToolName: () => ['x', { toolName: null }],
  loneSurrogateToolName: () => ['x', { toolName: 'a\uD800' }],
  symbolToolName: () => ['x', { toolName: Symbol('s') }],
  numberInit: () => ['x', 5],
  flags: () => ['x', { bubbles: true, cancelable: true, composed: true, toolName: 'n' }],
  readOrder: () => ['x', readRecorder({ toolName: 'n', bubbles: true })],
};

/** @param {AddCase} add */
function surfaceEventConstructorCases(add) {
  for (const name of ['ToolActivatedEvent', 'ToolCancelEvent']) {
    for (const [label, args] of Object.entries(EVENT_INITS)) {
      add(`surface.eventConstructor.${name}.${label}`, () => {
        const made = args();
        const init = /** @type {{ [READS]?: string[] } | undefined} */ (made[1]);
        const reads = typeof init === 'object' && init !== null ? init[READS] : undefined;
        try {
          const e = new (interfaceNamed(name))(...made);
          return {
            type: e.type, toolName: describe(e.toolName), bubbles: e.bubbles, cancelable: e.cancelable, composed: e.composed,
            tag: Object.prototype.toString.call(e), ownKeys: Reflect.ownKeys(e).map(String), reads,
          };
        } catch (err) {
          return { threw: describeError(err), reads };
        }
      });
    }
  }
}

const READS = Symbol('reads');

/**
 * A dictionary that records which members are read, and in what order.
 * @template {object} T
 * @param {T} [values]
 * @param {string[]} [reads]
 * @returns {T}
 */
function readRecorder(values = /** @type {T} */ ({}), reads = []) {
  return new Proxy(values, {
    get(target, key, receiver) {
      if (key === READS) return reads;
      reads.push(String(key));
      return Reflect.get(target, key, receiver);
    },
    has(target, key) { reads.push(`has ${String(key)}`); return Reflect.has(target, key); },
    ownKeys(target) { reads.push('ownKeys'); return Reflect.ownKeys(target); },
    getOwnPropertyDescriptor(target, key) { reads.push(`descriptor ${String(key)}`); return Reflect.getOwnPropertyDescriptor(target, key); },
  });
}

/** @param {AddCase} add */
function surfaceInstanceCases(add) {
  add('surface.instance', () => {
    const mc = probed(document);
    return {
      tag: Object.prototype.toString.call(mc),
      string: String(mc),
      json: JSON.stringify(mc),
      prototype: Object.getPrototypeOf(mc) === ModelContext.prototype,
      eventTarget: mc instanceof EventTarget,
      ownKeys: Reflect.ownKeys(mc).map(String),
      extensible: Object.isExtensible(mc),
      sameObject: mc === document.modelContext,
      forIn: forInKeys(mc).filter((k) => Object.hasOwn(ModelContext.prototype, k)),
    };
  });
  add('surface.document.attribute', () => ({
    descriptor: descriptorSummary(Document.prototype, 'modelContext'),
    inDocument: 'modelContext' in document,
    own: Object.hasOwn(document, 'modelContext'),
    onHTMLDocument: Object.hasOwn(HTMLDocument.prototype, 'modelContext'),
    inNewDocument: 'modelContext' in document.implementation.createHTMLDocument(''),
    secureContext: isSecureContext,
  }));
  add('surface.document.assignSloppy', () => {
    const before = document.modelContext;
    Reflect.set(document, 'modelContext', 5);
    return { same: document.modelContext === before };
  });
  // Writing and deleting a readonly attribute on purpose: typed as a plain optional member so
  // that the checker allows it.
  const writable = /** @type {{ modelContext?: unknown }} */ (/** @type {unknown} */ (document));
  add('surface.document.assignStrict', (ctx) => outcomeOf(ctx, 'assign', () => { 'use strict'; writable.modelContext = 5; }));
  add('surface.document.delete', () => ({ deleted: delete writable.modelContext, still: document.modelContext instanceof ModelContext }));
  const receivers = {
    undefined: () => undefined,
    null: () => null,
    object: () => ({}),
    element: () => document.createElement('div'),
    window: () => window,
    modelContext: () => document.modelContext,
  };
  for (const [label, make] of Object.entries(receivers)) {
    add(`surface.document.getterOn.${label}`, (ctx) => outcomeOf(ctx, 'get', () => {
      const getter = /** @type {(this: unknown) => unknown} */ (Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get);
      const value = getter.call(make());
      return value === document.modelContext ? '<top modelContext>' : value;
    }));
  }
}

/** @param {object} object */
function forInKeys(object) {
  /** @type {string[]} */
  const keys = [];
  for (const key in object) keys.push(key);
  return keys;
}

const RECEIVERS = {
  undefined: () => undefined,
  null: () => null,
  object: () => ({}),
  eventTarget: () => new EventTarget(),
  document: () => document,
  prototype: () => ModelContext.prototype,
  fromPrototype: () => Object.create(ModelContext.prototype),
};

/** @param {AddCase} add */
function surfaceIllegalInvocationCases(add) {
  for (const [member, kind] of MC_MEMBERS) {
    const d = Object.getOwnPropertyDescriptor(ModelContext.prototype, member) ?? {};
    const fn = kind === 'method' ? d.value : kind === 'get' ? d.get : d.set;
    for (const [label, make] of Object.entries(RECEIVERS)) {
      add(`surface.illegalInvocation.${kind}.${member}.${label}`, (ctx) => {
        if (typeof fn !== 'function') return { missing: true };
        return outcomeOf(ctx, 'call', () => fn.call(make(), kind === 'set' ? () => {} : undefined));
      });
    }
  }
}

const HANDLER_VALUES = {
  function: () => function handler() {},
  arrow: () => () => {},
  object: () => ({ handleEvent() {} }),
  string: () => 'alert(1)',
  number: () => 5,
  null: () => null,
  undefined: () => undefined,
  symbol: () => Symbol('s'),
};

/** @param {AddCase} add */
function surfaceHandlerCases(add) {
  for (const type of EVENT_TYPES) {
    add(`handler.${type}.initial`, () => ({ value: describe(probed(document)[`on${type}`]) }));
    for (const [label, make] of Object.entries(HANDLER_VALUES)) {
      add(`handler.${type}.set.${label}`, (ctx) => {
        const mc = ctx.mc;
        const value = make();
        let threw = /** @type {ErrorRecord | null} */ (null);
        try { mc[`on${type}`] = value; } catch (err) { threw = describeError(err); }
        const read = mc[`on${type}`];
        mc[`on${type}`] = null;
        return { threw, same: read === value, read: describe(read) };
      });
    }
  }
  add('handler.toolchange.orderAndThis', async (ctx) => {
    const mc = ctx.mc;
    /** @type {string[]} */
    const seen = [];
    const first = () => seen.push('listener1');
    const last = () => seen.push('listener2');
    mc.addEventListener('toolchange', first);
    mc.ontoolchange = function h1() { seen.push(`h1 this=${this === mc}`); };
    mc.addEventListener('toolchange', last);
    mc.ontoolchange = function h2(/** @type {Event} */ e) { seen.push(`h2 this=${this === mc} arg=${e.type}`); return false; };
    ctx.onCleanup(() => { mc.ontoolchange = null; mc.removeEventListener('toolchange', first); mc.removeEventListener('toolchange', last); });
    await ctx.register(ctx.baseTool());
    const afterFirst = seen.splice(0);
    mc.ontoolchange = null;
    mc.ontoolchange = () => seen.push('h3');
    await ctx.register(ctx.baseTool());
    return { afterFirst, afterReset: seen.splice(0) };
  });
  add('handler.toolchange.throwingHandler', async (ctx) => {
    const mc = ctx.mc;
    mc.ontoolchange = () => {
      ctx.mark('handler');
      Promise.resolve().then(() => ctx.mark('handler:microtask'));
      throw new RangeError('handler throws');
    };
    ctx.onCleanup(() => { mc.ontoolchange = null; });
    const call = await outcomeOf(ctx, 'register', () => mc.registerTool(ctx.baseTool(), ctx.options()));
    return { call, events: [...ctx.log] };
  });
}

// ---------------------------------------------------------------------------------------
// Cases: registerTool

/** @param {AddCase} add */
function registerToolCases(add) {
  registerToolBasicCases(add);
  registerToolKindCases(add);
  registerToolReadCases(add);
  registerToolValueCases(add);
  registerToolSignalCases(add);
  duplicateCases(add);
  faultPairCases(add);
}

/**
 * No arguments, and valid tools of several shapes.
 * @param {AddCase} add
 */
function registerToolBasicCases(add) {
  add('registerTool.noArguments', (ctx) => registration(ctx, () => ctx.mc.registerTool()));
  add('registerTool.valid.minimal', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), ctx.options())));
  add('registerTool.valid.full', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({
    title: 'Full', inputSchema: SCHEMAS.object(), annotations: { readOnlyHint: true, untrustedContentHint: true, consequentialHint: true, debugging: true },
  }), ctx.options({ exposedTo: [location.origin] }))));
  add('registerTool.valid.extraMembers', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ unknown: 1, origin: 'https://x.example', window: 5 }), ctx.options())));
  add('registerTool.valid.functionAsDictionary', (ctx) => registration(ctx, () => {
    // A function is an object, so it can be a dictionary (its own name property is shadowed).
    const fn = function dictionary() {};
    for (const [key, value] of Object.entries(ctx.baseTool())) Object.defineProperty(fn, key, { value, enumerable: true });
    return ctx.mc.registerTool(fn, ctx.options());
  }));
  add('registerTool.valid.inheritedMembers', (ctx) => registration(ctx, () => ctx.mc.registerTool(Object.create(ctx.baseTool()), ctx.options())));
}

/**
 * Every kind of value as each argument and each dictionary member.
 * @param {AddCase} add
 */
function registerToolKindCases(add) {
  for (const [kind, make] of Object.entries(KINDS)) {
    add(`registerTool.tool.is.${kind}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(make(), ctx.options())));
    add(`registerTool.options.is.${kind}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), make())));
    for (const member of TOOL_MEMBERS) {
      add(`registerTool.tool.${member}.${kind}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ [member]: make() }), ctx.options())));
    }
    for (const member of ANNOTATION_MEMBERS) {
      add(`registerTool.annotations.${member}.${kind}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ annotations: { [member]: make() } }), ctx.options())));
    }
    for (const member of REGISTER_OPTION_MEMBERS) {
      // These options replace the case's own, so a tool they let through stays registered
      // for the rest of the run; its fresh name keeps it out of every other case.
      add(`registerTool.options.${member}.${kind}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { [member]: make() })));
    }
  }
}

/**
 * Which members are read, in what order, and what a member whose getter throws does.
 * @param {AddCase} add
 */
function registerToolReadCases(add) {
  for (const member of TOOL_MEMBERS) {
    add(`registerTool.tool.${member}.getterThrows`, (ctx) => {
      /** @type {string[]} */
      const reads = [];
      const tool = readRecorder(throwingMember(ctx.baseTool({ title: 'T', inputSchema: {}, annotations: {} }), member), reads);
      return registration(ctx, () => ctx.mc.registerTool(tool, ctx.options())).then((r) => ({ ...r, reads }));
    });
  }
  for (const member of ANNOTATION_MEMBERS) {
    add(`registerTool.annotations.${member}.getterThrows`, (ctx) => {
      /** @type {string[]} */
      const reads = [];
      const annotations = readRecorder(throwingMember({}, member), reads);
      return registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ annotations }), ctx.options())).then((r) => ({ ...r, reads }));
    });
  }
  for (const member of REGISTER_OPTION_MEMBERS) {
    add(`registerTool.options.${member}.getterThrows`, (ctx) => {
      /** @type {string[]} */
      const reads = [];
      const options = readRecorder(throwingMember({ signal: ctx.signal, exposedTo: [] }, member), reads);
      return registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), options)).then((r) => ({ ...r, reads }));
    });
  }
  add('registerTool.readOrder', (ctx) => {
    /** @type {string[]} */
    const reads = [];
    const schema = readRecorder({ type: 'object' }, reads);
    const annotations = readRecorder({ readOnlyHint: true }, reads);
    const tool = readRecorder(ctx.baseTool({ title: 'T', inputSchema: schema, annotations }), reads);
    const options = readRecorder({ signal: ctx.signal, exposedTo: readRecorder([location.origin], reads) }, reads);
    return registration(ctx, () => ctx.mc.registerTool(tool, options)).then((r) => ({ ...r, reads }));
  });
  add('registerTool.readOrder.failingDescription', (ctx) => {
    /** @type {string[]} */
    const reads = [];
    const tool = readRecorder(ctx.baseTool({ description: '', title: 'T', inputSchema: {} }), reads);
    return registration(ctx, () => ctx.mc.registerTool(tool, readRecorder(ctx.options(), reads))).then((r) => ({ ...r, reads }));
  });
}

/**
 * Names, descriptions, titles, schemas and exposedTo origins from the tables.
 * @param {AddCase} add
 */
function registerToolValueCases(add) {
  for (const [label, make] of Object.entries(NAMES)) {
    add(`registerTool.name.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ name: make(ctx.name('n')) }), ctx.options())));
  }
  for (const [label, make] of Object.entries(DESCRIPTIONS)) {
    add(`registerTool.description.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ description: make() }), ctx.options())));
  }
  for (const [label, make] of Object.entries(TITLES)) {
    add(`registerTool.title.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ title: make() }), ctx.options())));
  }
  for (const [label, make] of Object.entries(SCHEMAS)) {
    add(`registerTool.inputSchema.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ inputSchema: make() }), ctx.options())));
  }
  add('registerTool.inputSchema.readAfterValidation', (ctx) => {
    // The schema is serialised when registerTool runs: a later change is not seen.
    const schema = { type: 'object' };
    return registration(ctx, () => {
      const p = ctx.mc.registerTool(ctx.baseTool({ inputSchema: schema }), ctx.options());
      schema.type = 'changed';
      return p;
    });
  });
  for (const [label, make] of Object.entries(ORIGINS)) {
    add(`registerTool.exposedTo.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), ctx.options({ exposedTo: make() }))));
  }
}

/**
 * Signals other than the case's own.
 * @param {AddCase} add
 */
function registerToolSignalCases(add) {
  add('registerTool.signal.live', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { signal: new AbortController().signal })));
  add('registerTool.signal.subclassObject', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { signal: Object.create(AbortSignal.prototype) })));
  add('registerTool.signal.timeoutSignal', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { signal: AbortSignal.timeout(100000) })));
  add('registerTool.signal.anySignal', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { signal: AbortSignal.any([ctx.signal]) })));
}

/**
 * A copy of dictionary whose `member` getter throws a RangeError.
 * @template {object} T
 * @param {T} dictionary
 * @param {string} member
 */
function throwingMember(dictionary, member) {
  const copy = { ...dictionary };
  Object.defineProperty(copy, member, { enumerable: true, get() { throw new RangeError(`${member} getter throws`); } });
  return copy;
}

/** @param {AddCase} add */
function duplicateCases(add) {
  add('registerTool.duplicate.registered', async (ctx) => {
    const name = await ctx.register(ctx.baseTool());
    return registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ name }), ctx.options()));
  });
  add('registerTool.duplicate.pending', (ctx) => registration(ctx, () => {
    const tool = ctx.baseTool();
    const first = ctx.mc.registerTool(tool, ctx.options());
    const second = ctx.mc.registerTool(ctx.baseTool({ name: tool.name }), ctx.options());
    return Promise.allSettled([first, second]).then((all) => all.map((r) => r.status + (r.status === 'rejected' && r.reason ? `:${r.reason.name}` : '')));
  }));
  add('registerTool.duplicate.afterAbort', async (ctx) => {
    const controller = new AbortController();
    const tool = ctx.baseTool();
    await ctx.mc.registerTool(tool, { signal: controller.signal });
    controller.abort();
    return registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ name: tool.name }), ctx.options()));
  });
  add('registerTool.duplicate.afterAbortBeforeToolchange', async (ctx) => {
    const controller = new AbortController();
    const tool = ctx.baseTool();
    await ctx.mc.registerTool(tool, { signal: controller.signal });
    ctx.listen();
    controller.abort();
    const call = await outcomeOf(ctx, 'register', () => ctx.mc.registerTool(ctx.baseTool({ name: tool.name }), ctx.options()));
    const names = (await namesOf(ctx.mc)).filter((n) => n === tool.name);
    // The order of the two toolchange events and the promise varies natively: not recorded.
    return { call, names };
  });
  add('registerTool.duplicate.abortRejectedSignal', async (ctx) => {
    // The signal of a rejected duplicate: does aborting it touch the tool already there?
    const name = await ctx.register(ctx.baseTool());
    const controller = new AbortController();
    const r = await registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal }));
    controller.abort();
    await ctx.mc.getTools();
    return { ...r, listedAfterAbort: (await namesOf(ctx.mc)).includes(name), events: [...ctx.log] };
  });
  add('registerTool.duplicate.sameObjectTwice', async (ctx) => {
    const tool = ctx.baseTool();
    await ctx.register(tool);
    return registration(ctx, () => ctx.mc.registerTool(tool, ctx.options()));
  });
  add('registerTool.duplicate.caseDiffers', async (ctx) => {
    const tool = ctx.baseTool();
    await ctx.register(tool);
    return registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ name: tool.name.toUpperCase() }), ctx.options()));
  });
}

// Faults that registerTool checks; each pair shows which check comes first.
/** @type {Record<string, (ctx: CaseContext, tool: Record<string, unknown>, options: Record<string, unknown>) => void>} */
const FAULTS = {
  duplicate: (ctx, t) => { t.name = ctx.duplicateName; },
  emptyName: (ctx, t) => { t.name = ''; },
  invalidName: (ctx, t) => { t.name = `${t.name} x`; },
  emptyDescription: (ctx, t) => { t.description = ''; },
  circularSchema: (ctx, t) => { t.inputSchema = circular(); },
  schemaThrows: (ctx, t) => { t.inputSchema = SCHEMAS.toJSONThrows(); },
  abortedSignal: (ctx, t, o) => { o.signal = ctx.abortedSignal; },
  insecureExposedTo: (ctx, t, o) => { o.exposedTo = ['http://example.com']; },
  signalNotASignal: (ctx, t, o) => { o.signal = {}; },
  executeMissing: (ctx, t) => { delete t.execute; },
  schemaNotObject: (ctx, t) => { t.inputSchema = 'schema'; },
  schemaTooDeep: (ctx, t) => { t.inputSchema = nested(NESTING.fails, 'object'); },
};

/** @param {AddCase} add */
function faultPairCases(add) {
  const names = Object.keys(FAULTS);
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      add(`registerTool.faults.${names[i]}+${names[j]}`, async (ctx) => {
        ctx.duplicateName = await ctx.register(ctx.baseTool());
        const aborted = new AbortController();
        aborted.abort('already');
        ctx.abortedSignal = aborted.signal;
        const tool = ctx.baseTool();
        const options = ctx.options();
        FAULTS[names[i]](ctx, tool, options);
        FAULTS[names[j]](ctx, tool, options);
        const r = await registration(ctx, () => ctx.mc.registerTool(tool, options));
        return { ...r, isAbortReason: r.call.raw === 'already' };
      });
    }
  }
}

// ---------------------------------------------------------------------------------------
// Cases: getTools

/** @param {AddCase} add */
function getToolsCases(add) {
  /**
   * @param {CaseContext} ctx
   * @param {() => unknown} fn
   */
  const listing = async (ctx, fn) => {
    const name = await ctx.register(ctx.baseTool());
    const call = await outcomeOf(ctx, 'getTools', fn);
    const list = call.raw;
    return { call: { ...call, fulfilled: undefined }, count: Array.isArray(list) ? list.length : null, includesOwn: Array.isArray(list) ? list.some((t) => t.name === name) : null };
  };
  add('getTools.noArguments', (ctx) => listing(ctx, () => ctx.mc.getTools()));
  for (const [kind, make] of Object.entries(KINDS)) {
    add(`getTools.options.is.${kind}`, (ctx) => listing(ctx, () => ctx.mc.getTools(make())));
    for (const member of GET_OPTION_MEMBERS) {
      add(`getTools.options.${member}.${kind}`, (ctx) => listing(ctx, () => ctx.mc.getTools({ [member]: make() })));
    }
  }
  for (const [label, make] of Object.entries(ORIGINS)) {
    add(`getTools.fromOrigins.${label}`, (ctx) => listing(ctx, () => ctx.mc.getTools({ fromOrigins: make() })));
  }
  add('getTools.options.readOrder', async (ctx) => {
    /** @type {string[]} */
    const reads = [];
    const r = await listing(ctx, () => ctx.mc.getTools(readRecorder({ fromOrigins: readRecorder([location.origin], reads) }, reads)));
    return { ...r, reads };
  });
  add('getTools.shape.minimal', async (ctx) => describeEntry(await ctx.entry(await ctx.register(ctx.baseTool()))));
  add('getTools.shape.full', async (ctx) => describeEntry(await ctx.entry(await ctx.register(ctx.baseTool({
    title: 'Full', inputSchema: SCHEMAS.object(), annotations: { readOnlyHint: true },
  })))));
  add('getTools.shape.emptyAnnotations', async (ctx) => describeEntry(await ctx.entry(await ctx.register(ctx.baseTool({ annotations: {} })))));
  add('getTools.order', async (ctx) => {
    const tags = ['m', 'B', 'z', 'a', '_', '9', 'a.b', 'a-b'];
    /** @type {string[]} */
    const names = [];
    for (const tag of tags) {
      const name = `${ctx.prefix}${tag}`;
      names.push(name);
      await ctx.register(ctx.baseTool({ name }));
    }
    const listed = (await namesOf(ctx.mc)).filter((n) => names.includes(n));
    return { registered: names, listed };
  });
  add('getTools.freshObjects', async (ctx) => {
    const name = await ctx.register(ctx.baseTool({ inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } }));
    // Listed with both members, or the case fails (as it would natively).
    const a = /** @type {Required<ToolEntry>} */ (await ctx.entry(name));
    const b = /** @type {Required<ToolEntry>} */ (await ctx.entry(name));
    a.description = 'changed';
    a.inputSchema.type = 'changed';
    a.annotations.readOnlyHint = false;
    const c = await ctx.entry(name);
    return { sameEntry: a === b, sameSchema: a.inputSchema === b.inputSchema, afterMutation: describeEntry(c) };
  });
  add('getTools.freshArray', async (ctx) => {
    const p1 = ctx.mc.getTools();
    const p2 = ctx.mc.getTools();
    const [l1, l2] = await Promise.all([p1, p2]);
    return { samePromise: p1 === p2, sameArray: l1 === l2, frozen: Object.isFrozen(l1) };
  });
  add('getTools.snapshotTime', async (ctx) => {
    // Is a tool registered right after getTools() was called part of its answer?
    const pending = ctx.mc.getTools();
    const name = ctx.name();
    const registered = ctx.mc.registerTool(ctx.baseTool({ name }), ctx.options());
    const list = await pending;
    await registered;
    return { includesLater: list.some((t) => t.name === name) };
  });
  add('getTools.snapshotAfterAbort', async (ctx) => {
    const controller = new AbortController();
    const name = ctx.name();
    await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    controller.abort();
    return { includesAborted: (await namesOf(ctx.mc)).includes(name) };
  });
}

// ---------------------------------------------------------------------------------------
// Cases: executeTool

/**
 * Registers a tool and runs executeTool through fn(entry, name); reports what happened.
 * @param {CaseContext} ctx
 * @param {(entry: ToolEntry, name: string) => unknown} fn given the tool's listed entry (the
 *   case fails where it reads one that is missing)
 * @param {{ tool?: Record<string, unknown>, listen?: boolean }} [options]
 */
async function execution(ctx, fn, { tool = {}, listen = true } = {}) {
  const name = await ctx.register(ctx.baseTool(tool));
  const entry = await ctx.entry(name);
  if (listen) ctx.listen();
  ctx.log.length = 0;
  const call = await outcomeOf(ctx, 'executeTool', () => fn(/** @type {ToolEntry} */ (entry), name));
  await ctx.mc.getTools();
  return withRaw({ call, events: [...ctx.log], calls: [...ctx.calls] }, call.raw);
}

const INPUTS = {
  nested: () => ({ a: { b: [1, { c: null }] }, s: 'x' }),
  date: () => new Date(0),
  map: () => new Map([['a', 1]]),
  circular,
  toJSONObject: () => ({ toJSON: () => ({ replaced: true }) }),
  toJSONString: () => ({ toJSON: () => 'str' }),
  toJSONThrows: () => ({ toJSON() { throw new RangeError('toJSON throws'); } }),
  toJSONUndefined: () => ({ toJSON: () => undefined }),
  getterThrows: () => ({ get bad() { throw new RangeError('getter throws'); } }),
  bigintInside: () => ({ b: 1n }),
  undefinedMembers: () => ({ a: undefined, f() {}, s: Symbol('s') }),
  special: () => ({ n: NaN, i: Infinity, z: -0 }),
  sparseArray: () => [1, , 3], // eslint-disable-line no-sparse-arrays
  loneSurrogates: () => ({ 'k\uD800': 'v\uDC00' }),
  typedArray: () => new Uint8Array([1]),
  boxedString: () => Object('boxed'),
  nonPlainPrototype: () => Object.create({ inherited: 1 }, { own: { value: 2, enumerable: true } }),
  readOrder: () => readRecorder({ b: 1, a: 2 }),
};

// Values for a RegisteredTool's origin member.
const TOOL_ORIGINS = {
  withPath: () => `${location.origin}/some/path?q`,
  trailingSlash: () => `${location.origin}/`,
  upperCase: () => location.origin.toUpperCase(),
  // Another host, not another port: a scheme without a default port (the shell's
  // understudy:) drops ports, which would make this the same origin there.
  otherHost: () => `${location.protocol}//other-host.example`,
  https: () => 'https://example.com',
  opaque: () => 'data:,x',
  nullString: () => 'null',
  notAUrl: () => 'not a url',
  relative: () => '/relative',
  loneSurrogate: () => `${location.origin}/\uD800`,
};

// Faults executeTool checks; each pair shows which check comes first.
/** @type {Record<string, (ctx: CaseContext, call: { tool: Record<string, unknown>, input: unknown, options: Record<string, unknown> }) => void>} */
const EXECUTE_FAULTS = {
  badOriginSyntax: (ctx, call) => { call.tool.origin = 'not a url'; },
  otherOrigin: (ctx, call) => { call.tool.origin = 'https://example.com'; },
  unknownName: (ctx, call) => { call.tool.name = `${call.tool.name}zz`; },
  abortedSignal: (ctx, call) => { call.options.signal = ctx.abortedSignal; },
  circularInput: (ctx, call) => { call.input = circular(); },
  inputThrows: (ctx, call) => { call.input = INPUTS.toJSONThrows(); },
  inputNotJSONObject: (ctx, call) => { call.input = new Date(0); },
  inputTooDeep: (ctx, call) => { call.input = nested(NESTING.fails, 'object'); },
  windowNotAWindow: (ctx, call) => { call.tool.window = {}; },
  signalNotASignal: (ctx, call) => { call.options.signal = {}; },
};

/** @param {AddCase} add */
function executeFaultPairCases(add) {
  const names = Object.keys(EXECUTE_FAULTS);
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      add(`executeTool.faults.${names[i]}+${names[j]}`, async (ctx) => {
        const aborted = new AbortController();
        aborted.abort('already');
        ctx.abortedSignal = aborted.signal;
        const r = await execution(ctx, (entry) => {
          const call = { tool: { ...entry }, input: {}, options: {} };
          EXECUTE_FAULTS[names[i]](ctx, call);
          EXECUTE_FAULTS[names[j]](ctx, call);
          return ctx.mc.executeTool(call.tool, call.input, call.options);
        });
        return { ...r, isAbortReason: r.raw === 'already' };
      });
    }
  }
}

/**
 * Every kind of value as each argument and each dictionary member.
 * @param {AddCase} add
 */
function executeToolKindCases(add) {
  for (const [kind, make] of Object.entries(KINDS)) {
    add(`executeTool.tool.is.${kind}`, (ctx) => execution(ctx, () => ctx.mc.executeTool(make(), {})));
    add(`executeTool.input.is.${kind}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, make())));
    add(`executeTool.options.is.${kind}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, make())));
    for (const member of REGISTERED_TOOL_MEMBERS) {
      add(`executeTool.tool.${member}.${kind}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool({ ...entry, [member]: make() }, {})));
    }
    for (const member of EXECUTE_OPTION_MEMBERS) {
      add(`executeTool.options.${member}.${kind}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { [member]: make() })));
    }
  }
}

/** @param {AddCase} add */
function executeToolCases(add) {
  executeFaultPairCases(add);
  add('executeTool.valid', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, { x: 1 })));
  add('executeTool.noArguments', (ctx) => execution(ctx, () => ctx.mc.executeTool()));
  add('executeTool.inputOmitted', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry)));
  add('executeTool.byName', (ctx) => execution(ctx, (entry, name) => ctx.mc.executeTool(name, {})));
  add('executeTool.minimalDictionary', (ctx) => execution(ctx, (entry, name) => ctx.mc.executeTool({ name }, {})));
  add('executeTool.handBuiltDictionary', (ctx) => execution(ctx, (entry, name) => ctx.mc.executeTool({ name, description: 'any', origin: location.origin, window }, {})));
  add('executeTool.unknownName', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool({ ...entry, name: `${entry.name}zz` }, {})));
  add('executeTool.otherOrigin', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool({ ...entry, origin: 'https://example.com' }, {})));
  add('executeTool.sameEntryTwice', async (ctx) => {
    const first = await execution(ctx, (entry) => Promise.all([ctx.mc.executeTool(entry, { n: 1 }), ctx.mc.executeTool(entry, { n: 2 })]));
    return first;
  });
  add('executeTool.afterUnregister', async (ctx) => {
    const controller = new AbortController();
    const name = ctx.name();
    await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    const entry = await ctx.entry(name);
    controller.abort();
    ctx.listen();
    return { call: await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {})), events: [...ctx.log] };
  });
  add('executeTool.afterReregister', async (ctx) => {
    const controller = new AbortController();
    const name = ctx.name();
    await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    const entry = await ctx.entry(name);
    controller.abort();
    await ctx.mc.registerTool(ctx.baseTool({ name, execute: ctx.executor('second') }), ctx.options());
    await ctx.mc.getTools(); // both toolchange events (their order varies natively) land first
    ctx.listen();
    return { call: await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {})), events: [...ctx.log] };
  });
  executeToolKindCases(add);
  for (const member of REGISTERED_TOOL_MEMBERS) {
    add(`executeTool.tool.${member}.missing`, (ctx) => execution(ctx, (entry) => {
      const copy = { ...entry };
      delete copy[member];
      return ctx.mc.executeTool(copy, {});
    }));
    add(`executeTool.tool.${member}.getterThrows`, (ctx) => {
      /** @type {string[]} */
      const reads = [];
      return execution(ctx, (entry) => ctx.mc.executeTool(readRecorder(throwingMember(entry, member), reads), {})).then((r) => ({ ...r, reads }));
    });
  }
  add('executeTool.options.signal.getterThrows', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, throwingMember({}, 'signal'))));
  add('executeTool.readOrder', (ctx) => {
    /** @type {string[]} */
    const reads = [];
    return execution(ctx, (entry) => ctx.mc.executeTool(
      readRecorder({ ...entry, annotations: readRecorder({ ...entry.annotations }, reads) }, reads),
      readRecorder({ b: 1, a: 2 }, reads),
      readRecorder({ signal: new AbortController().signal }, reads),
    ), { tool: { annotations: { readOnlyHint: true }, inputSchema: { type: 'object' } } }).then((r) => ({ ...r, reads }));
  });
  for (const [label, make] of Object.entries(TOOL_ORIGINS)) {
    add(`executeTool.origin.${label}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool({ ...entry, origin: make() }, {})));
  }
  for (const [label, make] of Object.entries(INPUTS)) {
    add(`executeTool.input.${label}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, make())));
  }
  add('executeTool.input.schemaNotEnforced', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, { x: 'not a number' }), { tool: { inputSchema: SCHEMAS.object() } }));
  add('executeTool.input.freshObject', async (ctx) => {
    const input = { a: 1 };
    let seen = /** @type {unknown} */ (null);
    const r = await execution(ctx, (entry) => ctx.mc.executeTool(entry, input), { tool: { execute: (/** @type {unknown} */ i) => { seen = i; return 'ok'; } } });
    return { ...r, same: seen === input };
  });
}

// ---------------------------------------------------------------------------------------
// Cases: events and their order

/** @param {AddCase} add */
function eventCases(add) {
  eventRegistrationCases(add);
  eventExecutionCases(add);
  toolEventShapeCases(add);
  toolchangeListenerCases(add);
}

/**
 * toolchange around registering and unregistering.
 * @param {AddCase} add
 */
function eventRegistrationCases(add) {
  add('events.register', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), ctx.options())));
  add('events.register.rejected', (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ description: '' }), ctx.options())));
  add('events.unregister', async (ctx) => {
    const controller = new AbortController();
    await ctx.mc.registerTool(ctx.baseTool(), { signal: controller.signal });
    ctx.listen();
    controller.signal.addEventListener('abort', () => ctx.mark('abort event'));
    controller.abort();
    ctx.mark('abort returned');
    await ctx.mc.getTools();
    return { events: [...ctx.log] };
  });
  add('events.unregister.twoToolsOneController', async (ctx) => {
    // How many toolchange events two unregistrations in one task give varies from run to run
    // in Chromium 156 (they may be coalesced), so only "at least one" is recorded.
    const controller = new AbortController();
    const names = [ctx.name(), ctx.name()];
    for (const name of names) await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    ctx.listen();
    controller.abort();
    await ctx.mc.getTools();
    const listed = (await namesOf(ctx.mc)).filter((n) => names.includes(n));
    return { toolchange: ctx.log.includes('top:toolchange'), listed };
  });
  add('events.unregister.threeToolsOneTask', async (ctx) => {
    // Three tools on one signal, aborted in one task: how many toolchange events arrive once
    // things are quiet again (each tool gets its own natively).
    const controller = new AbortController();
    const names = [ctx.name(), ctx.name(), ctx.name()];
    for (const name of names) await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    let count = 0;
    const counter = () => { count += 1; };
    ctx.mc.addEventListener('toolchange', counter);
    controller.abort();
    const until = performance.now() + TOOLCHANGE_WAIT_MS;
    while (count < names.length && performance.now() < until) await sleep(1);
    await sleep(50);
    ctx.mc.removeEventListener('toolchange', counter);
    return { toolchange: count };
  });
  add('events.unregister.pageListenerFirst', async (ctx) => {
    // A listener the page added before registering sees the registry as it is at abort.
    const controller = new AbortController();
    const name = ctx.name();
    let during = /** @type {Promise<boolean> | null} */ (null);
    controller.signal.addEventListener('abort', () => { during = ctx.mc.getTools().then((l) => l.some((t) => t.name === name)); });
    await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    controller.abort();
    return { listedDuringAbort: await during };
  });
}

// How a tool answers, for the events around executeTool(): make(ctx) gives the behaviour.
/** @type {Record<string, (ctx: CaseContext) => Behaviour>} */
const EXECUTE_BEHAVIOURS = {
  syncValue: () => () => 'value',
  asyncValue: () => async () => { await null; await null; return 'value'; },
  syncThrow: () => () => { throw new Error('sync'); },
  asyncReject: () => async () => { await null; throw new Error('async'); },
  timerValue: () => () => new Promise((resolve) => setTimeout(() => resolve('later'), 5)),
  taskScheduled: (ctx) => () => {
    setTimeout(() => ctx.mark('execute timeout'), 0);
    const channel = new MessageChannel();
    channel.port1.onmessage = () => { ctx.mark('execute message'); channel.port1.close(); };
    channel.port2.postMessage(null);
    return new Promise((resolve) => setTimeout(() => resolve('v'), 20));
  },
};

/**
 * toolactivated, toolchange and the call's settlement around executeTool(), in order.
 * @param {AddCase} add
 */
function eventExecutionCases(add) {
  for (const [label, make] of Object.entries(EXECUTE_BEHAVIOURS)) {
    add(`events.execute.${label}`, (ctx) => execution(ctx, (entry) => {
      const p = ctx.mc.executeTool(entry, {});
      ctx.mark('executeTool returned');
      return p;
    }, { tool: { execute: ctx.executor('execute', make(ctx)) } }));
  }
  add('events.execute.invalidCall', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool({ ...entry, name: 'x y' }, {})));
  add('events.execute.nested', async (ctx) => {
    const inner = await ctx.register(ctx.baseTool({ execute: ctx.executor('inner', () => 'inner done') }));
    const innerEntry = await ctx.entry(inner);
    return execution(ctx, (entry) => ctx.mc.executeTool(entry, {}), {
      tool: { execute: ctx.executor('outer', () => ctx.mc.executeTool(innerEntry, {})) },
    });
  });
  add('events.execute.registersDuringExecute', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}), {
    tool: { execute: ctx.executor('execute', () => ctx.mc.registerTool(ctx.baseTool(), ctx.options()).then(() => 'registered')) },
  }));
  add('events.execute.unregistersItself', (ctx) => {
    const controller = new AbortController();
    ctx.onCleanup(() => controller.abort());
    return (async () => {
      const name = ctx.name();
      await ctx.mc.registerTool(ctx.baseTool({ name, execute: ctx.executor('execute', () => { controller.abort(); return 'bye'; }) }), { signal: controller.signal });
      const entry = await ctx.entry(name);
      ctx.listen();
      const call = await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {}));
      await ctx.mc.getTools();
      // Natively the toolchange lands before or after the caller hears the result, from run
      // to run: only that it came is recorded.
      return { call, toolchange: ctx.log.includes('top:toolchange'), events: ctx.log.filter((e) => !e.includes('toolchange')) };
    })();
  });
  // The tool aborts the signal its caller passed, from inside execute: before it returns,
  // after a microtask, or in a later task while its promise is still pending.
  /** @type {Record<string, (abort: () => void) => Behaviour>} */
  const abortsCaller = {
    sync: (abort) => () => { abort(); return 'value'; },
    microtask: (abort) => async () => { await null; abort(); return 'value'; },
    laterTask: (abort) => () => new Promise((resolve) => setTimeout(() => { abort(); resolve('value'); }, 5)),
    thenHangs: (abort) => () => { abort(); return new Promise(() => {}); },
  };
  for (const [label, make] of Object.entries(abortsCaller)) {
    add(`events.execute.abortsCallerSignal.${label}`, (ctx) => {
      const controller = new AbortController();
      return execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
        tool: { execute: ctx.executor('execute', make(() => { controller.abort(); ctx.mark('aborted'); })) },
      });
    });
  }
}

/**
 * What a toolactivated or toolcancel event looks like to its listener.
 * @param {AddCase} add
 */
function toolEventShapeCases(add) {
  for (const type of ['ToolActivatedEvent', 'ToolCancelEvent']) {
    add(`events.shape.${type}`, async (ctx) => {
      const eventType = type === 'ToolActivatedEvent' ? 'toolactivated' : 'toolcancel';
      let shape = /** @type {{ toolName?: string, [member: string]: unknown } | null} */ (null);
      /** @param {Event & { toolName?: string }} e */
      const listener = (e) => {
        shape = {
          cls: e.constructor.name, tag: Object.prototype.toString.call(e), toolName: e.toolName,
          bubbles: e.bubbles, cancelable: e.cancelable, composed: e.composed, phase: e.eventPhase,
          target: e.target === ctx.mc, currentTarget: e.currentTarget === ctx.mc, ownKeys: Reflect.ownKeys(e).map(String),
          defaultPrevented: e.defaultPrevented, timeStamp: typeof e.timeStamp,
        };
      };
      ctx.mc.addEventListener(eventType, listener);
      ctx.onCleanup(() => ctx.mc.removeEventListener(eventType, listener));
      const controller = new AbortController();
      await execution(ctx, (entry) => {
        const p = ctx.mc.executeTool(entry, {}, { signal: controller.signal });
        return p;
      }, { tool: { execute: () => { setTimeout(() => controller.abort(), 5); return new Promise(() => {}); } }, listen: false });
      return { shape, namePrefix: shape?.toolName?.startsWith(ctx.prefix) };
    });
  }
}

/**
 * toolchange as its listeners see it: microtasks between them, and the event's shape.
 * @param {AddCase} add
 */
function toolchangeListenerCases(add) {
  add('events.microtaskBetweenListeners', async (ctx) => {
    const first = () => { ctx.mark('listener 1'); Promise.resolve().then(() => ctx.mark('listener 1 microtask')); };
    const second = () => ctx.mark('listener 2');
    ctx.mc.addEventListener('toolchange', first);
    ctx.mc.addEventListener('toolchange', second);
    ctx.onCleanup(() => { ctx.mc.removeEventListener('toolchange', first); ctx.mc.removeEventListener('toolchange', second); });
    await ctx.register(ctx.baseTool());
    return { events: [...ctx.log] };
  });
  add('events.shape.toolchange', async (ctx) => {
    let shape = /** @type {Record<string, unknown> | null} */ (null);
    /** @param {Event} e */
    const listener = (e) => {
      shape = { cls: e.constructor.name, bubbles: e.bubbles, cancelable: e.cancelable, composed: e.composed, target: e.target === ctx.mc, hasToolName: 'toolName' in e };
    };
    ctx.mc.addEventListener('toolchange', listener);
    ctx.onCleanup(() => ctx.mc.removeEventListener('toolchange', listener));
    await ctx.register(ctx.baseTool());
    return { shape };
  });
}

// ---------------------------------------------------------------------------------------
// Cases: abort paths

/** @param {AddCase} add */
function abortCases(add) {
  for (const [label, make] of Object.entries(REASONS)) {
    abortRegisterCases(add, label, make);
    abortExecuteCases(add, label, make);
  }
  abortListenerOrderCases(add);
  abortRunningToolCases(add);
  add('abort.register.signalAbortedByTimeout', async (ctx) => {
    const signal = AbortSignal.timeout(5);
    const name = ctx.name();
    ctx.listen();
    const call = await outcomeOf(ctx, 'register', () => ctx.mc.registerTool(ctx.baseTool({ name }), { signal }));
    await sleep(30);
    await ctx.mc.getTools();
    return { call, events: [...ctx.log], listed: (await namesOf(ctx.mc)).includes(name), reason: describeError(signal.reason) };
  });
}

/**
 * A registration's signal aborted (with the reason make() gives) before, during and after.
 * @param {AddCase} add
 * @param {string} label
 * @param {() => unknown} make
 */
function abortRegisterCases(add, label, make) {
  add(`abort.register.before.${label}`, async (ctx) => {
    const controller = new AbortController();
    controller.abort(make());
    const r = await registration(ctx, () => ctx.mc.registerTool(ctx.baseTool(), { signal: controller.signal }));
    return { ...r, isReason: r.raw === controller.signal.reason };
  });
  add(`abort.register.during.${label}`, async (ctx) => {
    const controller = new AbortController();
    const r = await registration(ctx, () => {
      const p = ctx.mc.registerTool(ctx.baseTool(), { signal: controller.signal });
      controller.abort(make());
      ctx.mark('abort returned');
      return p;
    });
    return { ...r, isReason: r.raw === controller.signal.reason };
  });
  add(`abort.register.after.${label}`, async (ctx) => {
    const controller = new AbortController();
    const name = ctx.name();
    await ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal });
    const entry = await ctx.entry(name);
    ctx.listen();
    controller.abort(make());
    ctx.mark('abort returned');
    const stale = await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {}));
    const listed = (await namesOf(ctx.mc)).includes(name);
    return { events: [...ctx.log], listed, stale };
  });
}

/**
 * A call's signal aborted (with the reason make() gives) before, just after and while it runs.
 * @param {AddCase} add
 * @param {string} label
 * @param {() => unknown} make
 */
function abortExecuteCases(add, label, make) {
  add(`abort.execute.before.${label}`, async (ctx) => {
    const controller = new AbortController();
    controller.abort(make());
    const r = await execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }));
    return { ...r, isReason: r.raw === controller.signal.reason };
  });
  add(`abort.execute.beforeExecuteRuns.${label}`, async (ctx) => {
    const controller = new AbortController();
    let toolSignal = /** @type {AbortSignal | null} */ (null);
    const r = await execution(ctx, (entry) => {
      const p = ctx.mc.executeTool(entry, {}, { signal: controller.signal });
      controller.abort(make());
      ctx.mark('abort returned');
      return p;
    }, { tool: { execute: ctx.executor('execute', (input, client) => { toolSignal = client.signal; return 'ran'; }) } });
    await sleep(10);
    return { ...r, isReason: r.raw === controller.signal.reason, toolSignalAborted: toolSignal?.aborted ?? null, eventsAfter: [...ctx.log] };
  });
  add(`abort.execute.during.${label}`, async (ctx) => {
    const controller = new AbortController();
    let toolSignal = /** @type {AbortSignal | null} */ (null);
    const r = await execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
      tool: {
        execute: ctx.executor('execute', (input, client) => {
          toolSignal = client?.signal ?? null;
          toolSignal?.addEventListener('abort', () => ctx.mark('tool signal abort'));
          setTimeout(() => { controller.abort(make()); ctx.mark('abort returned'); }, 5);
          return new Promise(() => {});
        }),
      },
    });
    return {
      ...r,
      isReason: r.raw === controller.signal.reason,
      toolSignal: toolSignal && { aborted: toolSignal.aborted, reason: describeError(toolSignal.reason), sameReason: toolSignal.reason === controller.signal.reason },
    };
  });
}

/**
 * A listener the page added before the call still runs after the API's own abort steps:
 * the promise is rejected first, so its reaction comes before the listener's microtask.
 * @param {AddCase} add
 */
function abortListenerOrderCases(add) {
  add('abort.register.pageListenerAddedFirst', async (ctx) => {
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => {
      ctx.mark('page listener');
      Promise.resolve().then(() => ctx.mark('page listener microtask'));
    });
    // Aborted from a microtask, once the promise is being followed.
    return registration(ctx, () => {
      const p = ctx.mc.registerTool(ctx.baseTool(), { signal: controller.signal });
      queueMicrotask(() => controller.abort('stop'));
      return p;
    });
  });
  add('abort.execute.pageListenerAddedFirst', async (ctx) => {
    const controller = new AbortController();
    controller.signal.addEventListener('abort', () => {
      ctx.mark('page listener');
      Promise.resolve().then(() => ctx.mark('page listener microtask'));
    });
    return execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
      tool: { execute: ctx.executor('execute', () => { setTimeout(() => controller.abort('stop'), 5); return new Promise(() => {}); }) },
    });
  });
}

/**
 * Aborts that meet a running tool: how it is told, and what it does about it.
 * @param {AddCase} add
 */
function abortRunningToolCases(add) {
  add('abort.execute.afterSettled', async (ctx) => {
    const controller = new AbortController();
    let toolSignal = /** @type {AbortSignal | null} */ (null);
    const r = await execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
      tool: { execute: ctx.executor('execute', (input, client) => { toolSignal = client.signal; return 'done'; }) },
    });
    controller.abort();
    await ctx.mc.getTools();
    return { ...r, eventsAfter: [...ctx.log], toolSignalAborted: toolSignal?.aborted };
  });
  add('abort.execute.toolResolvesAfterAbort', async (ctx) => {
    const controller = new AbortController();
    return execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
      tool: {
        execute: ctx.executor('execute', (input, client) => new Promise((resolve) => {
          client.signal.addEventListener('abort', () => { ctx.mark('tool saw abort'); resolve('finished anyway'); });
          setTimeout(() => controller.abort('stop'), 5);
        })),
      },
    });
  });
  add('abort.execute.toolRejectsOnAbort', async (ctx) => {
    const controller = new AbortController();
    const r = await execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), {
      tool: {
        execute: ctx.executor('execute', (input, client) => new Promise((resolve, reject) => {
          client.signal.addEventListener('abort', () => reject(new DOMException('tool stopped', 'AbortError')));
          setTimeout(() => controller.abort('stop'), 5);
        })),
      },
    });
    return { ...r, isReason: r.raw === 'stop' };
  });
  add('abort.execute.unregisteredWhileRunning', async (ctx) => {
    const registration_ = new AbortController();
    ctx.onCleanup(() => registration_.abort());
    const name = ctx.name();
    let toolSignal = /** @type {AbortSignal | null} */ (null);
    await ctx.mc.registerTool(ctx.baseTool({
      name,
      execute: ctx.executor('execute', (input, client) => {
        toolSignal = client.signal;
        return new Promise((resolve) => setTimeout(() => resolve('finished'), 30));
      }),
    }), { signal: registration_.signal });
    const entry = await ctx.entry(name);
    ctx.listen();
    const pending = outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {}));
    setTimeout(() => { registration_.abort(); ctx.mark('unregistered'); }, 5);
    const call = await pending;
    await ctx.mc.getTools();
    return { call, events: [...ctx.log], toolSignalAborted: toolSignal?.aborted };
  });
  add('abort.execute.sameSignalTwoCalls', async (ctx) => {
    const controller = new AbortController();
    return execution(ctx, (entry) => {
      const a = ctx.mc.executeTool(entry, { n: 1 }, { signal: controller.signal });
      const b = ctx.mc.executeTool(entry, { n: 2 }, { signal: controller.signal });
      setTimeout(() => controller.abort('both'), 10);
      return Promise.allSettled([a, b]).then((all) => all.map((x) => x.status + (x.status === 'rejected' && x.reason !== undefined ? `:${String(x.reason)}` : '')));
    }, { tool: { execute: ctx.executor('execute', () => new Promise(() => {})) } });
  });
}

// ---------------------------------------------------------------------------------------
// Cases: what a tool's result becomes

/** @param {AddCase} add */
function resultCases(add) {
  /**
   * @param {CaseContext} ctx
   * @param {Behaviour} behave
   */
  const run = (ctx, behave) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}), { tool: { execute: ctx.executor('execute', behave) } });
  for (const [label, make] of Object.entries(RESULTS)) {
    add(`result.return.${label}`, (ctx) => run(ctx, () => make()));
    add(`result.resolve.${label}`, (ctx) => run(ctx, async () => { await null; return make(); }));
  }
  add('result.return.symbol', (ctx) => run(ctx, () => Symbol('s')));
  add('result.resolve.symbol', (ctx) => run(ctx, async () => Symbol('s')));
  add('result.thenable', (ctx) => run(ctx, () => ({ then(/** @type {(value: unknown) => void} */ resolve) { resolve({ via: 'thenable' }); } })));
  add('result.thenableThrows', (ctx) => run(ctx, () => ({ then() { throw new RangeError('then throws'); } })));
  add('result.promiseOfPromise', (ctx) => run(ctx, () => Promise.resolve(Promise.resolve('deep'))));
  add('result.neverSettles', async (ctx) => {
    const controller = new AbortController();
    setTimeout(() => controller.abort('gave up'), 50);
    return execution(ctx, (entry) => ctx.mc.executeTool(entry, {}, { signal: controller.signal }), { tool: { execute: ctx.executor('execute', () => new Promise(() => {})) } });
  });
  for (const [label, make] of Object.entries(THROWN)) {
    add(`result.throw.${label}`, (ctx) => run(ctx, () => { throw make(); }));
    add(`result.reject.${label}`, (ctx) => run(ctx, () => Promise.reject(make())));
  }
  add('result.executeNotCallableLater', async (ctx) => {
    // The callback is held as registered: replacing the property afterwards changes nothing.
    const tool = ctx.baseTool({ execute: ctx.executor('original', () => 'original') });
    await ctx.register(tool);
    tool.execute = () => 'replaced';
    const entry = await ctx.entry(tool.name);
    return outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {}));
  });
}

// ---------------------------------------------------------------------------------------
// Cases: how deep an input, an input schema and a result may nest

/**
 * `depth` nested containers, innermost empty: objects ({"a": ...}), arrays, or the two in turn.
 * @param {number} depth
 * @param {'object' | 'array' | 'mixed'} shape
 */
function nested(depth, shape) {
  /** @type {object} */
  let value = shape === 'array' ? [] : {};
  for (let i = 1; i < depth; i++) {
    const array = shape === 'array' || (shape === 'mixed' && i % 2 === 1);
    value = array ? [value] : { a: value };
  }
  return value;
}

// Natively the limit is where the renderer's serialiser gives up, and that differs between
// builds of Chromium 156 (docs/webmcp-differences.md): Debian 12's 156.0.8078.114 runs out of
// stack at about 5,182 objects, 4,784 arrays, 4,975 in turn; Debian 13's 156.0.8078.79 stops
// every shape at 4,786 levels. The fixed depths here are ones every build agrees on; where
// the limit lies is measured (`nesting.limit.*`) and compared within a tolerance by the test.
const NESTING = { passes: 3500, fails: 6500 };

/**
 * The deepest nesting of `shape` that `accepted` takes, between NESTING.passes (taken) and
 * NESTING.fails (refused), by halving.
 * @param {(depth: number) => Promise<boolean>} accepted
 */
async function deepestAccepted(accepted) {
  let taken = NESTING.passes;
  let refused = NESTING.fails;
  while (refused - taken > 1) {
    const depth = (taken + refused) >> 1;
    if (await accepted(depth)) taken = depth;
    else refused = depth;
  }
  return taken;
}

/**
 * @param {() => unknown} fn
 * @returns {Promise<boolean>} whether what fn returns (or throws) settles as accepted
 */
async function settlesAccepted(fn) {
  try {
    await fn();
    return true;
  } catch {
    return false;
  }
}

/** @param {AddCase} add */
function nestingCases(add) {
  /**
   * @param {CaseContext} ctx
   * @param {Behaviour} behave
   */
  const run = (ctx, behave) => execution(ctx, (entry) => ctx.mc.executeTool(entry, {}), { tool: { execute: ctx.executor('execute', behave) } });
  for (const shape of /** @type {const} */ (['object', 'array', 'mixed'])) {
    /** @type {Array<[string, number]>} */
    const depthsToTry = [['shallow', 1000], ['passes', NESTING.passes], ['fails', NESTING.fails], ['far', 20000]];
    for (const [label, depth] of depthsToTry) {
      const make = () => nested(depth, shape);
      add(`nesting.input.${shape}.${label}`, (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, make())));
      add(`nesting.inputSchema.${shape}.${label}`, (ctx) => registration(ctx, () => ctx.mc.registerTool(ctx.baseTool({ inputSchema: make() }), ctx.options())));
      add(`nesting.result.${shape}.${label}`, (ctx) => run(ctx, () => make()));
    }
    add(`nesting.limit.input.${shape}`, async (ctx) => {
      const entry = /** @type {ToolEntry} */ (await ctx.entry(await ctx.register(ctx.baseTool())));
      return { depth: await deepestAccepted((d) => settlesAccepted(() => ctx.mc.executeTool(entry, nested(d, shape)))) };
    });
    add(`nesting.limit.inputSchema.${shape}`, async (ctx) => ({
      depth: await deepestAccepted((d) => settlesAccepted(() => ctx.mc.registerTool(ctx.baseTool({ inputSchema: nested(d, shape) }), ctx.options()))),
    }));
    add(`nesting.limit.result.${shape}`, async (ctx) => {
      /** @type {{ depth: number }} */
      const wanted = { depth: 0 };
      const entry = /** @type {ToolEntry} */ (await ctx.entry(await ctx.register(ctx.baseTool({ execute: () => nested(wanted.depth, shape) }))));
      return {
        depth: await deepestAccepted((d) => {
          wanted.depth = d;
          return settlesAccepted(() => ctx.mc.executeTool(entry, {}));
        }),
      };
    });
  }
  add('nesting.input.insideWideObject', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, { wide: [1, 2, 3], deep: nested(NESTING.fails, 'object') })));
  add('nesting.input.toJSONMakesItDeep', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, { toJSON: () => nested(NESTING.fails, 'object') })));
  add('nesting.input.inStringsOnly', (ctx) => execution(ctx, (entry) => ctx.mc.executeTool(entry, { s: '{['.repeat(20000) })));
  add('nesting.input.fromDeepStack', async (ctx) => {
    // The same input from 2,000 calls down: natively the stack runs out sooner.
    const name = await ctx.register(ctx.baseTool());
    const entry = await ctx.entry(name);
    /**
     * @param {number} n
     * @param {() => unknown} fn
     * @returns {unknown}
     */
    const down = (n, fn) => (n === 0 ? fn() : down(n - 1, fn));
    return outcomeOf(ctx, 'executeTool', () => down(2000, () => ctx.mc.executeTool(entry, nested(5000, 'object'))));
  });
}

// ---------------------------------------------------------------------------------------
// Cases: frames and documents

/**
 * A frame loaded from `src`, or from `srcdoc` (its origin is this document's, its URL
 * about:srcdoc), in `where` (this document unless said), with an allow attribute if given.
 * @param {CaseContext} ctx
 * @param {string} id
 * @param {string} [src]
 * @param {'src' | 'srcdoc'} [attribute]
 * @param {{ allow?: string, where?: Document }} [options]
 */
async function addFrame(ctx, id, src = 'probe_frame.html', attribute = 'src', { allow, where = document } = {}) {
  const frame = where.createElement('iframe');
  frame.id = id;
  if (allow !== undefined) frame.allow = allow;
  frame[attribute] = src;
  const loaded = new Promise((resolve) => { frame.onload = resolve; });
  where.body.append(frame);
  ctx.onCleanup(() => frame.remove());
  await Promise.race([loaded, sleep(5000)]);
  return frame;
}

/**
 * A same-origin frame's window: a global with interface objects of its own (to the DOM
 * types, only a Window).
 * @param {HTMLIFrameElement} frame
 */
function globalOf(frame) {
  return /** @type {Window & typeof globalThis} */ (frame.contentWindow);
}

/**
 * A same-origin frame's document (the suite's frames all are: never null).
 * @param {HTMLIFrameElement} frame
 */
const docOf = (frame) => /** @type {Document} */ (frame.contentDocument);

/**
 * A frame document's modelContext, typed as the suite drives it.
 * @param {HTMLIFrameElement} frame
 */
const contextOf = (frame) => probed(docOf(frame));

/**
 * Which realm an object (and its signal) was made in: the top document's or the frame's.
 * @param {{ signal?: unknown } | null} object
 * @param {HTMLIFrameElement} frame
 */
function realmOf(object, frame) {
  if (!object) return null;
  /**
   * @param {unknown} o
   * @param {'Object' | 'AbortSignal'} name
   */
  const realm = (o, name) => (o instanceof window[name] ? 'top' : o instanceof globalOf(frame)[name] ? 'frame' : 'other');
  return { object: realm(object, 'Object'), signal: realm(object.signal, 'AbortSignal') };
}

/** @param {AddCase} add */
function frameCases(add) {
  frameRegistryCases(add);
  frameCrossRealmCases(add);
  frameExecutionCases(add);
  frameRemovalCases(add);
  srcdocFrameCases(add);
  nestedFrameCases(add);
  permissionsPolicyCases(add);
  documentCases(add);
}

/**
 * A same-origin frame whose element says what the "tools" feature may do there (its allow
 * attribute, read when its document is created): registerTool and getTools in it, and
 * whether its tool reaches the top document.
 * @param {AddCase} add
 */
function permissionsPolicyCases(add) {
  const policies = {
    none: "tools 'none'",
    bare: 'tools',
    star: 'tools *',
    self: "tools 'self'",
    src: "tools 'src'",
    otherOrigin: 'tools https://other.example',
    otherFeature: 'camera',
    noneAmongOthers: "camera; tools 'none'; geolocation",
    upperCase: "TOOLS 'none'",
  };
  for (const [label, allow] of Object.entries(policies)) {
    add(`frames.policy.${label}`, async (ctx) => {
      const frame = await addFrame(ctx, `fp-${label}`, undefined, undefined, { allow });
      return policyOutcome(ctx, frame);
    });
  }
  add('frames.policy.nestedUnderNone', async (ctx) => {
    const outer = await addFrame(ctx, 'fp-outer', undefined, undefined, { allow: "tools 'none'" });
    const inner = await addFrame(ctx, 'fp-inner', undefined, undefined, { allow: 'tools *', where: docOf(outer) });
    return policyOutcome(ctx, inner);
  });
  add('frames.policy.changedAfterLoad', async (ctx) => {
    const frame = await addFrame(ctx, 'fp-late', undefined, undefined, { allow: 'tools' });
    frame.allow = "tools 'none'"; // read when a document is created, not later
    return policyOutcome(ctx, frame);
  });
}

/**
 * @param {CaseContext} ctx
 * @param {HTMLIFrameElement} frame
 */
async function policyOutcome(ctx, frame) {
  const fmc = contextOf(frame);
  ctx.contexts.add(fmc);
  const name = ctx.name();
  const register = await outcomeOf(ctx, 'register', () => fmc.registerTool({ name, description: 'd', execute: () => 'frame' }, { signal: ctx.signal }));
  const list = await outcomeOf(ctx, 'getTools', () => fmc.getTools());
  // A registered frame tool reaches the top's list a moment later natively (ctx.listed).
  const atTop = 'fulfilled' in register ? (await ctx.listed(name)) !== undefined : (await namesOf(ctx.mc)).includes(name);
  return { register, list: 'threw' in list || 'rejected' in list ? list : 'listed', atTop };
}

/** A frame's own ModelContext, the registry it shares with the top document, and what
 *  becomes of its tools and its context when it is removed.
 * @param {AddCase} add
 */
function frameRegistryCases(add) {
  add('frames.present', async (ctx) => {
    const frame = await addFrame(ctx, 'f1');
    const w = globalOf(frame);
    const fmc = contextOf(frame);
    return {
      inDocument: 'modelContext' in docOf(frame),
      present: fmc !== undefined && fmc !== null,
      distinct: fmc !== ctx.mc,
      sameObject: fmc === contextOf(frame),
      framePrototype: fmc ? Object.getPrototypeOf(fmc) === w.ModelContext.prototype : null,
      topPrototype: fmc ? Object.getPrototypeOf(fmc) === ModelContext.prototype : null,
      tag: Object.prototype.toString.call(fmc),
      frameInterfaceDistinct: w.ModelContext !== ModelContext,
    };
  });
  add('frames.sharedRegistry', async (ctx) => {
    const frame = await addFrame(ctx, 'f2');
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    ctx.listen(ctx.mc, 'top');
    ctx.listen(fmc, 'frame');
    const fromFrame = ctx.name('f');
    const fromTop = ctx.name('t');
    await fmc.registerTool({ name: fromFrame, description: 'In the frame.', execute: ctx.executor('frame execute', () => 'from frame') }, { signal: ctx.signal });
    ctx.mark('frame registered');
    await ctx.mc.registerTool({ name: fromTop, description: 'In the top.', execute: ctx.executor('top execute', () => 'from top') }, { signal: ctx.signal });
    ctx.mark('top registered');
    const mine = (/** @type {ToolEntry[]} */ list) => list.filter((t) => t.name === fromFrame || t.name === fromTop).map(describeEntry);
    await ctx.listed(fromFrame);
    await ctx.listed(fromTop, fmc);
    const topList = await ctx.mc.getTools();
    const frameList = await fmc.getTools();
    /**
     * @param {ProbedContext} mc
     * @param {string} name
     */
    const run = async (mc, name) => {
      const entry = (await mc.getTools()).find((t) => t.name === name);
      return entry ? describe(await mc.executeTool(entry, {}).catch((e) => `rejected ${e.name}`)) : 'missing';
    };
    const runs = {
      topRunsFrameTool: await run(ctx.mc, fromFrame),
      frameRunsTopTool: await run(fmc, fromTop),
    };
    return { top: mine(topList), frame: mine(frameList), runs, events: [...ctx.log] };
  });
  add('frames.duplicateAcrossFrames', async (ctx) => {
    const frame = await addFrame(ctx, 'f3');
    const fmc = contextOf(frame);
    const name = await ctx.register(ctx.baseTool());
    const call = await outcomeOf(ctx, 'register', () => fmc.registerTool({ name, description: 'Same name.', execute: () => 1 }, { signal: ctx.signal }));
    const count = async () => (await namesOf(ctx.mc)).filter((n) => n === name).length;
    // Both are listed once the frame's reaches the top's list (a moment later natively).
    if ('fulfilled' in call) await until(async () => (await count()) > 1, SETTLES_MS);
    return { call, listed: await count() };
  });
  add('frames.removed', async (ctx) => {
    const frame = await addFrame(ctx, 'f4');
    const fmc = contextOf(frame);
    const name = ctx.name();
    await fmc.registerTool({ name, description: 'Goes with its frame.', execute: () => 1 });
    ctx.listen();
    frame.remove();
    ctx.mark('frame removed');
    // Gone with its frame, on both sides; natively the list may hold it a moment longer.
    const gone = await until(async () => !(await namesOf(ctx.mc)).includes(name), SETTLES_MS);
    return { listed: !gone, events: [...ctx.log] };
  });
  add('frames.detachedContext', async (ctx) => {
    const frame = await addFrame(ctx, 'f5');
    const fmc = contextOf(frame);
    frame.remove();
    const register = await outcomeOf(ctx, 'register', () => fmc.registerTool({ name: ctx.name(), description: 'd', execute: () => 1 }));
    const list = await outcomeOf(ctx, 'getTools', () => fmc.getTools());
    return { register, list: { ...list, fulfilled: list.fulfilled && 'list' } };
  });
}

/** Objects of one realm used with another's (a this value, a signal, a getter), and the
 *  order of tools listed across frames.
 * @param {AddCase} add
 */
function frameCrossRealmCases(add) {
  add('frames.crossRealmThis', async (ctx) => {
    const frame = await addFrame(ctx, 'f6');
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    ctx.listen(ctx.mc, 'top');
    ctx.listen(fmc, 'frame');
    const name = ctx.name();
    const call = await outcomeOf(ctx, 'register', () => ModelContext.prototype.registerTool.call(fmc, { name, description: 'd', execute: () => 1 }, { signal: ctx.signal }));
    const entry = await ctx.listed(name);
    return { call, owner: entry ? describeEntry(entry)?.window : null, events: [...ctx.log] };
  });
  add('frames.frameSignalForTopTool', async (ctx) => {
    const frame = await addFrame(ctx, 'f7');
    const controller = new (globalOf(frame).AbortController)();
    const name = ctx.name();
    const call = await outcomeOf(ctx, 'register', () => ctx.mc.registerTool(ctx.baseTool({ name }), { signal: controller.signal }));
    controller.abort();
    return { call, listedAfterAbort: (await namesOf(ctx.mc)).includes(name) };
  });
  add('frames.abortAfterFrameRemoved', async (ctx) => {
    const frame = await addFrame(ctx, 'f8');
    const controller = new AbortController();
    await contextOf(frame).registerTool({ name: ctx.name(), description: 'd', execute: () => 1 }, { signal: controller.signal });
    frame.remove();
    controller.abort();
    return { survived: true };
  });
  add('frames.order', async (ctx) => {
    const frame = await addFrame(ctx, 'f9');
    const fmc = contextOf(frame);
    const names = [`${ctx.prefix}a`, `${ctx.prefix}b`, `${ctx.prefix}c`, `${ctx.prefix}d`];
    await ctx.mc.registerTool(ctx.baseTool({ name: names[3] }), ctx.options());
    await fmc.registerTool({ name: names[1], description: 'd', execute: () => 1 }, { signal: ctx.signal });
    await ctx.mc.registerTool(ctx.baseTool({ name: names[0] }), ctx.options());
    await fmc.registerTool({ name: names[2], description: 'd', execute: () => 1 }, { signal: ctx.signal });
    const mine = async (/** @type {ProbedContext} */ mc) => (await namesOf(mc)).filter((n) => names.includes(n));
    // Each list once it has all four (the other document's reach it a moment later natively).
    for (const mc of [ctx.mc, fmc]) await until(async () => (await mine(mc)).length === names.length, SETTLES_MS);
    return { fromTop: await mine(ctx.mc), fromFrame: await mine(fmc) };
  });
  add('frames.getterAcrossRealms', async (ctx) => {
    const frame = await addFrame(ctx, 'f10');
    const w = globalOf(frame);
    const topGetter = /** @type {(this: unknown) => unknown} */ (Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get);
    const frameGetter = /** @type {(this: unknown) => unknown} */ (Object.getOwnPropertyDescriptor(w.Document.prototype, 'modelContext')?.get);
    const fmc = contextOf(frame);
    const attempt = (/** @type {() => unknown} */ fn) => { try { const v = fn(); return v === fmc ? 'frame' : v === ctx.mc ? 'top' : describe(v); } catch (err) { return describeError(err); } };
    return {
      topGetterOnFrameDocument: attempt(() => topGetter.call(docOf(frame))),
      frameGetterOnTopDocument: attempt(() => frameGetter.call(document)),
      topMethodOnFrameContext: await outcomeOf(ctx, 'getTools', () => ModelContext.prototype.getTools.call(fmc)).then((r) => ({ ...r, fulfilled: r.fulfilled && 'list' })),
    };
  });
}

/**
 * executeTool() across frames: each way, with a window that is not the owner, after removal.
 * @param {AddCase} add
 */
function frameExecutionCases(add) {
  add('frames.executeAcrossFrames', async (ctx) => {
    const frame = await addFrame(ctx, 'f11');
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    const name = ctx.name();
    let client = /** @type {ToolClient | null} */ (null);
    await fmc.registerTool({ name, description: 'd', execute: ctx.executor('frame execute', (input, c) => { client = c; return new Promise(() => {}); }) }, { signal: ctx.signal });
    const entry = await ctx.listed(name);
    ctx.listen(ctx.mc, 'top');
    ctx.listen(fmc, 'frame');
    const controller = new AbortController();
    setTimeout(() => controller.abort('stop'), 10);
    const call = await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, { a: 1 }, { signal: controller.signal }));
    await sleep(10);
    await fmc.getTools();
    // And the other way round: the frame runs a tool of the top document.
    let topClient = /** @type {ToolClient | null} */ (null);
    const topName = await ctx.register(ctx.baseTool({ execute: (/** @type {unknown} */ input, /** @type {ToolClient} */ c) => { topClient = c; return 'top ran'; } }));
    const topEntry = (await fmc.getTools()).find((t) => t.name === topName);
    const reverse = await outcomeOf(ctx, 'reverse', () => fmc.executeTool(topEntry, {}));
    return { call, reverse, events: [...ctx.log], clientRealm: realmOf(client, frame), topClientRealm: realmOf(topClient, frame) };
  });
  add('frames.windowNotTheOwner', async (ctx) => {
    const frame = await addFrame(ctx, 'f12');
    const name = await ctx.register(ctx.baseTool());
    const entry = await ctx.entry(name);
    ctx.listen();
    const call = await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool({ ...entry, window: frame.contentWindow }, {}));
    return { call, events: [...ctx.log] };
  });
  add('frames.staleAfterRemoval', async (ctx) => {
    const frame = await addFrame(ctx, 'f13');
    const fmc = contextOf(frame);
    const name = ctx.name();
    await fmc.registerTool({ name, description: 'd', execute: () => 'ran' });
    const entry = /** @type {ToolEntry} */ (await ctx.listed(name)); // listed, or the case fails
    frame.remove();
    return { call: await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {})), entryWindow: entry.window === null ? 'null' : typeof entry.window };
  });
}

/**
 * When a frame goes away, relative to a call into its tool.
 * @typedef {{ atStart: boolean, remove: (frame: HTMLIFrameElement, tool: { resolve: (value: unknown) => void }) => void }} FrameRemoval
 */
/** @type {Record<string, FrameRemoval>} */
const FRAME_REMOVALS = {
  // While the tool runs (it never settles).
  duringCall: { atStart: false, remove: (frame) => frame.remove() },
  // In the task that called executeTool(), before the tool has run.
  beforeToolRuns: { atStart: true, remove: (frame) => frame.remove() },
  // Right after the tool resolved, before its result was taken.
  afterToolResolved: { atStart: false, remove: (frame, tool) => { tool.resolve('early'); frame.remove(); } },
  // Then the tool resolves, from the top document's script.
  thenToolResolves: { atStart: false, remove: (frame, tool) => { frame.remove(); tool.resolve('late'); } },
};

/**
 * Calls into frames that go away: loaded from a page, and about:blank.
 * @param {AddCase} add
 */
function frameRemovalCases(add) {
  for (const [label, how] of Object.entries(FRAME_REMOVALS)) {
    add(`frames.removed.${label}`, async (ctx) => callIntoRemovedFrame(ctx, await addFrame(ctx, `fr-${label}`), how));
  }
  add('frames.aboutBlank.removed.duringCall', (ctx) => {
    const frame = BLANK_FRAMES.noSrc();
    ctx.onCleanup(() => frame.remove());
    return callIntoRemovedFrame(ctx, frame, FRAME_REMOVALS.duringCall);
  });
}

/**
 * executeTool() from the top document into a frame's tool, the frame removed as `how` says.
 * @param {CaseContext} ctx
 * @param {HTMLIFrameElement} frame
 * @param {FrameRemoval} how
 */
async function callIntoRemovedFrame(ctx, frame, how) {
  const fmc = contextOf(frame);
  const name = ctx.name();
  /** @type {{ resolve: (value: unknown) => void, signal: AbortSignal | null }} */
  const tool = { resolve: () => {}, signal: null };
  const execute = ctx.executor('execute', (input, client) => {
    tool.signal = client.signal;
    client.signal.addEventListener('abort', () => ctx.mark('tool signal abort'));
    if (!how.atStart) setTimeout(() => { how.remove(frame, tool); ctx.mark('frame removed'); }, 5);
    return new Promise((resolve) => { tool.resolve = resolve; });
  });
  // No case signal: aborting it once the frame is gone kills Chromium 156's renderer (SKIPPED).
  await fmc.registerTool({ name, description: 'd', execute });
  const entry = await ctx.listed(name);
  ctx.listen(ctx.mc, 'top');
  ctx.listen(fmc, 'frame');
  ctx.log.length = 0;
  const call = await outcomeOf(ctx, 'executeTool', () => {
    const p = ctx.mc.executeTool(entry, {});
    if (how.atStart) { how.remove(frame, tool); ctx.mark('frame removed'); }
    return p;
  });
  await sleep(20);
  return { call, events: [...ctx.log], toolSignalAborted: tool.signal?.aborted ?? null, listed: (await namesOf(ctx.mc)).includes(name) };
}

/**
 * A frame whose document has this document's origin but not its URL: srcdoc.
 * @param {AddCase} add
 */
function srcdocFrameCases(add) {
  add('frames.srcdoc.registry', async (ctx) => {
    const frame = await addFrame(ctx, 'fs1', '<p>srcdoc frame</p>', 'srcdoc');
    const w = globalOf(frame);
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    const name = ctx.name();
    await fmc.registerTool({ name, description: 'd', execute: ctx.executor('frame execute', () => 'from srcdoc') }, { signal: ctx.signal });
    const topEntry = await ctx.listed(name);
    const frameEntry = await ctx.listed(name, fmc);
    /**
     * @param {ProbedContext} mc
     * @param {ToolEntry | undefined} entry
     */
    const run = async (mc, entry) => (entry ? outcomeOf(ctx, 'executeTool', () => mc.executeTool(entry, {})) : 'missing');
    return {
      url: docOf(frame).URL,
      locationOrigin: w.location.origin,
      sameOrigin: w.origin === location.origin,
      top: describeEntry(topEntry),
      frame: frameEntry ? { origin: frameEntry.origin === location.origin, window: frameEntry.window === w } : null,
      topRuns: await run(ctx.mc, topEntry),
      frameRuns: await run(fmc, frameEntry),
    };
  });
  add('frames.srcdoc.runsTopTool', async (ctx) => {
    const frame = await addFrame(ctx, 'fs2', '<p>srcdoc frame</p>', 'srcdoc');
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    const name = await ctx.register(ctx.baseTool({ execute: ctx.executor('top execute', () => 'from top') }));
    const entry = await ctx.listed(name, fmc);
    return { entry: describeEntry(entry), run: entry ? await outcomeOf(ctx, 'executeTool', () => fmc.executeTool(entry, {})) : 'missing' };
  });
  add('frames.srcdoc.exposedToOwnOrigin', async (ctx) => {
    // exposedTo and fromOrigins check origins against the document's own scheme.
    const frame = await addFrame(ctx, 'fs3', '<p>srcdoc frame</p>', 'srcdoc');
    const fmc = contextOf(frame);
    ctx.contexts.add(fmc);
    const register = await outcomeOf(ctx, 'register', () => fmc.registerTool({ name: ctx.name(), description: 'd', execute: () => 1 }, { signal: ctx.signal, exposedTo: [location.origin] }));
    // What is compared is that the listing settles, and how: Chromium's listing for a srcdoc
    // frame was once still pending after the usual second, on a quiet machine.
    const list = await outcomeOf(ctx, 'getTools', () => fmc.getTools({ fromOrigins: [location.origin] }), SETTLES_MS);
    return { register, list: { ...list, fulfilled: list.fulfilled && 'list' } };
  });
}

/**
 * A frame within a frame, and a frame's initial about:blank document.
 * @param {AddCase} add
 */
function nestedFrameCases(add) {
  add('frames.nested', async (ctx) => {
    const frame = await addFrame(ctx, 'f14');
    const inner = docOf(frame).createElement('iframe');
    inner.src = 'probe_frame.html';
    const loaded = new Promise((resolve) => { inner.onload = resolve; });
    docOf(frame).body.append(inner);
    await Promise.race([loaded, sleep(5000)]);
    const fmc = contextOf(frame);
    const imc = contextOf(inner);
    ctx.contexts.add(fmc);
    ctx.contexts.add(imc);
    ctx.listen(ctx.mc, 'top');
    ctx.listen(fmc, 'frame');
    ctx.listen(imc, 'inner');
    const name = ctx.name();
    await imc.registerTool({ name, description: 'd', execute: () => 'inner' }, { signal: ctx.signal });
    ctx.mark('registered');
    const entry = await ctx.listed(name);
    return { events: [...ctx.log], owner: entry ? entry.window === inner.contentWindow : null, run: entry ? describe(await ctx.mc.executeTool(entry, {})) : null };
  });
  add('frames.aboutBlank', async (ctx) => {
    const frame = document.createElement('iframe');
    document.body.append(frame);
    ctx.onCleanup(() => frame.remove());
    return { inDocument: 'modelContext' in docOf(frame), type: typeof contextOf(frame) };
  });
  aboutBlankFrameCases(add);
}

/** An about:blank frame, made in the task that reads it, as `how` says. */
const BLANK_FRAMES = {
  noSrc: () => { const f = document.createElement('iframe'); document.body.append(f); return f; },
  src: () => { const f = document.createElement('iframe'); f.src = 'about:blank'; document.body.append(f); return f; },
  innerHTML: () => {
    const holder = document.createElement('div');
    document.body.append(holder);
    holder.innerHTML = '<iframe></iframe>';
    return /** @type {HTMLIFrameElement} */ (holder.firstElementChild);
  },
};

/**
 * What a page can tell of an about:blank frame's modelContext: its realm, and its tools.
 * @param {CaseContext} ctx
 * @param {HTMLIFrameElement} frame
 */
async function blankFrameOutcome(ctx, frame) {
  const w = globalOf(frame);
  if (!('modelContext' in docOf(frame))) return { present: false };
  const fmc = contextOf(frame);
  ctx.contexts.add(fmc);
  const name = ctx.name();
  let client = /** @type {ToolClient | null} */ (null);
  const registered = fmc.registerTool({ name, description: 'd', execute: ctx.executor('frame execute', (input, c) => { client = c; return 'from blank'; }) }, { signal: ctx.signal });
  await registered;
  const fromFrame = await fmc.getTools();
  const topEntry = await ctx.listed(name);
  const frameEntry = fromFrame.find((t) => t.name === name);
  const refused = fmc.registerTool();
  const failure = await refused.catch((e) => e);
  return {
    present: true,
    sameObject: fmc === contextOf(frame),
    ownInterface: Object.getPrototypeOf(fmc) === w.ModelContext.prototype && w.ModelContext !== ModelContext,
    methodRealm: Object.getPrototypeOf(fmc.registerTool) === w.Function.prototype,
    getterRealm: Object.getPrototypeOf(Object.getOwnPropertyDescriptor(w.Document.prototype, 'modelContext')?.get) === w.Function.prototype,
    promiseRealm: registered instanceof w.Promise,
    errorRealm: failure instanceof w.TypeError,
    listRealm: fromFrame instanceof w.Array,
    entryRealm: frameEntry ? Object.getPrototypeOf(frameEntry) === w.Object.prototype : null,
    top: describeEntry(topEntry),
    run: topEntry ? await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(topEntry, {})) : 'missing',
    clientRealm: realmOf(client, frame),
    callWithoutNew: ['ModelContext', 'ToolActivatedEvent', 'ToolCancelEvent'].map((name) => {
      try {
        interfaceNamed(name, w)('x');
        return 'returned';
      } catch (err) {
        return err instanceof w.TypeError ? 'frame TypeError' : describeError(err);
      }
    }),
  };
}

/** A frame's about:blank document (no src, src="about:blank", made by innerHTML), a frame
 *  inside one, and one navigated to a page; and a frame that loads a page, before it has.
 * @param {AddCase} add
 */
function aboutBlankFrameCases(add) {
  for (const [label, make] of Object.entries(BLANK_FRAMES)) {
    add(`frames.aboutBlank.${label}`, (ctx) => {
      const frame = make();
      frame.id = `fb-${label}`;
      ctx.onCleanup(() => frame.remove());
      return blankFrameOutcome(ctx, frame);
    });
  }
  add('frames.aboutBlank.inAboutBlank', async (ctx) => {
    const outer = BLANK_FRAMES.noSrc();
    ctx.onCleanup(() => outer.remove());
    const inner = docOf(outer).createElement('iframe');
    docOf(outer).body.append(inner);
    const imc = contextOf(inner);
    if (!imc) return { present: false };
    ctx.contexts.add(imc);
    const name = ctx.name();
    await imc.registerTool({ name, description: 'd', execute: () => 'from inner' }, { signal: ctx.signal });
    const entry = await ctx.listed(name);
    return { present: true, owner: entry ? entry.window === inner.contentWindow : null, run: entry ? await outcomeOf(ctx, 'executeTool', () => ctx.mc.executeTool(entry, {})) : 'missing' };
  });
  add('frames.aboutBlank.navigated', async (ctx) => {
    const frame = BLANK_FRAMES.noSrc();
    frame.id = 'fb-navigated';
    ctx.onCleanup(() => frame.remove());
    const before = contextOf(frame);
    const name = ctx.name();
    // No case signal: it would outlive the document (see frames.abortAfterFrameRemoved).
    await before.registerTool({ name, description: 'd', execute: () => 'before' });
    const loaded = new Promise((resolve) => { frame.onload = resolve; });
    frame.src = 'probe_frame.html';
    // The page loaded, and the old document's tool let go: both sides drop it, each when
    // it lets the old document go (Chromium listed it for a while on a busy machine). A
    // load that never comes is the case's own timeout.
    await loaded;
    const gone = await until(async () => !(await namesOf(ctx.mc)).includes(name), SETTLES_MS);
    const after = contextOf(frame);
    return { url: docOf(frame).URL.endsWith('/probe_frame.html'), fresh: after !== before, listed: !gone, after: after ? await blankFrameOutcome(ctx, frame) : null };
  });
  add('frames.aboutBlank.engineErrorRealm', async (ctx) => {
    // An error the JavaScript engine raises while converting an argument (an object whose
    // conversion to a primitive gives another object).
    const frame = BLANK_FRAMES.noSrc();
    ctx.onCleanup(() => frame.remove());
    const w = globalOf(frame);
    const name = { [Symbol.toPrimitive]: () => ({}) };
    const err = await contextOf(frame).registerTool({ name, description: 'd', execute: () => 1 }).catch((e) => e);
    return { error: describeError(err), frameRealm: err instanceof w.TypeError };
  });
  add('frames.aboutBlank.inShadowTree', (ctx) => {
    const host = document.createElement('div');
    document.body.append(host);
    ctx.onCleanup(() => host.remove());
    const frame = document.createElement('iframe');
    host.attachShadow({ mode: 'open' }).append(frame);
    return { inDocument: 'modelContext' in docOf(frame) };
  });
  add('frames.initialDocumentOfNavigatingFrame', (ctx) => {
    /** @type {Record<string, { url: string, inDocument: boolean }>} */
    const out = {};
    /** @type {Array<[string, 'src' | 'srcdoc', string]>} */
    const frames = [['src', 'src', 'probe_frame.html'], ['srcdoc', 'srcdoc', '<p>x</p>']];
    for (const [label, attribute, value] of frames) {
      const frame = document.createElement('iframe');
      frame[attribute] = value;
      document.body.append(frame);
      ctx.onCleanup(() => frame.remove());
      out[label] = { url: docOf(frame).URL, inDocument: 'modelContext' in docOf(frame) };
    }
    return out;
  });
}

/**
 * Documents without a browsing context of their own.
 * @param {AddCase} add
 */
function documentCases(add) {
  add('documents.in', () => ({
    createHTMLDocument: 'modelContext' in document.implementation.createHTMLDocument(''),
    newDocument: 'modelContext' in new Document(),
    xml: 'modelContext' in document.implementation.createDocument(null, 'x'),
    xmlHasProperty: 'modelContext' in XMLDocument.prototype,
  }));
  add('documents.createHTMLDocument', () => document.implementation.createHTMLDocument('').modelContext);
  add('documents.newDocument', () => new Document().modelContext);
  add('documents.domParser', () => new DOMParser().parseFromString('<p>', 'text/html').modelContext);
}

// ---------------------------------------------------------------------------------------
// The table of cases, and the runner

/** @returns {Array<{ id: string, run: (ctx: CaseContext) => unknown }>} */
export function conformanceCases() {
  /** @type {Array<{ id: string, run: (ctx: CaseContext) => unknown }>} */
  const cases = [];
  /** @type {AddCase} */
  const add = (id, run) => { cases.push({ id, run }); };
  surfaceCases(add);
  registerToolCases(add);
  getToolsCases(add);
  executeToolCases(add);
  eventCases(add);
  abortCases(add);
  resultCases(add);
  nestingCases(add);
  frameCases(add);
  declarativeCases(add);
  return cases;
}

/**
 * Runs every case (or those whose id starts with one of `only`) and returns the report.
 * @param {{ only?: string[] | null }} [options]
 */
export async function runConformance({ only = null } = {}) {
  /** @type {{ present: boolean, count: number, cases: Record<string, unknown>, skipped: Record<string, string>, knownDifferences: Record<string, string> }} */
  const report = { present: false, count: 0, cases: {}, skipped: {}, knownDifferences: {} };
  if (!document.modelContext) return report;
  report.present = true;
  const env = { mc: probed(document) };
  /** @type {Record<string, string>} */
  const skipped = SKIPPED;
  /** @type {Record<string, string>} */
  const known = KNOWN_DIFFERENCES;
  let caseNumber = 0;
  for (const { id, run } of conformanceCases()) {
    caseNumber += 1;
    if (only && !only.some((prefix) => id.startsWith(prefix))) continue;
    if (skipped[id]) {
      report.skipped[id] = skipped[id];
      continue;
    }
    report.cases[id] = await runCase(env, run, caseNumber);
    report.count += 1;
    if (known[id]) report.knownDifferences[id] = known[id];
  }
  return report;
}

const CASE_TIMEOUT_MS = 8000;
const TOOLCHANGE_WAIT_MS = 1000;

/**
 * Resolves to what promise gives, or to `late` if that takes longer than ms.
 * @param {Promise<unknown>} promise
 * @param {number} ms
 * @param {unknown} late
 */
function within(promise, ms, late) {
  return Promise.race([promise, sleep(ms).then(() => late)]);
}

/**
 * @param {{ mc: ProbedContext }} env
 * @param {(ctx: CaseContext) => unknown} run
 * @param {number} caseNumber
 */
async function runCase(env, run, caseNumber) {
  const ctx = new CaseContext(env, caseNumber);
  let outcome;
  try {
    // A case that hangs (an implementation never settling a promise) is an outcome too.
    outcome = await within(Promise.resolve().then(() => run(ctx)), CASE_TIMEOUT_MS, { caseTimedOut: true });
  } catch (err) {
    outcome = { caseFailed: describeError(err) };
  }
  await within(ctx.close(), CASE_TIMEOUT_MS, null);
  return JSON.parse(JSON.stringify(outcome ?? '<undefined>'));
}
