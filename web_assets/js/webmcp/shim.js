// understudy-webmcp-shim: document.modelContext for engines that lack it (QtWebEngine's
// Chromium 140). The desktop shell injects it into the main world of every frame at document
// creation, before any page script. It behaves as Chromium 156's native WebMCP does, as
// measured by js/webmcp/conformance.js (tests/test_webmcp_conformance.py compares the two);
// docs/webmcp-differences.md lists what a script cannot imitate. Where the API is native (or
// the context is not secure, as [SecureContext] requires), it does nothing.
//
// How it is built:
// - The IDL surface: ModelContext, ToolActivatedEvent and ToolCancelEvent as interface
//   objects on the global, with WebIDL argument conversion (dictionaries read in
//   lexicographic order, DOMString/USVString, AbortSignal and Window brand checks).
// - Each document has its own ModelContext and tool map (a "local"). Same-origin frames join
//   the top document's "hub", so getTools() lists the tools of every frame, as native does.
// - Work the browser would do later runs from the hub's queue, one task per step, through a
//   MessageChannel: the port has two listeners, so a step's second half (toolactivated right
//   after execute, toolcancel right after the tool's signal aborts) runs in the same task
//   after a microtask checkpoint, as native events do.
// - Built-ins are captured before any page script runs, so a page that replaces them later
//   does not change how the shim behaves (native code does not see such changes either).
//
// - An iframe's about:blank document gets no user script from QtWebEngine before the page
//   can reach it (Qt injects a task after a navigation commits, and the initial about:blank
//   document commits none), so the parent's shim installs this same function there, at the
//   load event such a frame fires while it is being inserted. Everything the shim hands a
//   page is made from the built-ins of the window it is installed in, so a frame's objects
//   are the frame's, as natively.
//
// Classic script on purpose: QWebEngineScript injects source text, not modules.
(/**
  * @param {Window & typeof globalThis} win
  * @param {Readonly<ReturnType<typeof ownBuiltIns>>} [captured] the built-ins of the realm this
  *   code comes from, taken when it first ran (install() passes them on to a frame)
  */
  function install(win, captured) {
  'use strict';

  if (typeof win.Document !== 'function' || !win.isSecureContext || 'modelContext' in win.Document.prototype) return;

  // ---------------------------------------------------------------------------------------
  // Built-ins, captured now

  // Those of this code's own realm that make nothing a page sees, taken before any page
  // script ran: an install() into a frame runs later, when the page may have replaced them.
  const own = captured ?? ownBuiltIns();
  const { apply, construct, ownKeys, getPrototypeOf, setPrototypeOf, defineProperty, getOwnPropertyDescriptor, objectCreate, freeze } = own;
  /**
   * A built-in method as a function of its receiver: a page replacing the method later
   * changes nothing.
   * @template {unknown[]} A
   * @template R
   * @param {(...args: A) => R} fn
   * @returns {(self: unknown, ...args: A) => R}
   */
  const uncurry = (fn) => (self, ...args) => apply(fn, self, args);
  /**
   * A built-in accessor's getter, the same way (these objects always have it).
   * @template T
   * @template {keyof T} K
   * @param {T} object
   * @param {K} key
   * @returns {(self: unknown) => T[K]}
   */
  const getterOf = (object, key) => uncurry(/** @type {() => T[K]} */ (getOwnPropertyDescriptor(object, key)?.get));
  /**
   * A built-in accessor's setter, the same way.
   * @param {object} proto
   * @param {string} key
   * @returns {(self: unknown, value: unknown) => void}
   */
  const setterOf = (proto, key) => uncurry(/** @type {(value: unknown) => void} */ (getOwnPropertyDescriptor(proto, key)?.set));

  const {
    Promise: NativePromise, TypeError: NativeTypeError, RangeError: NativeRangeError, DOMException: NativeDOMException,
    Event: NativeEvent, CustomEvent: NativeCustomEvent, EventTarget: NativeEventTarget,
    AbortController: NativeAbortController, MessageChannel: NativeMessageChannel, URL: NativeURL,
    WeakMap: NativeWeakMap, Array: NativeArray, JSON: NativeJSON,
  } = win;
  const ObjectPrototype = win.Object.prototype;
  const FunctionPrototype = win.Function.prototype;
  const stringify = NativeJSON.stringify;
  const parseJSON = NativeJSON.parse;
  const promiseThen = uncurry(NativePromise.prototype.then);
  const addListener = uncurry(NativeEventTarget.prototype.addEventListener);
  const removeListener = uncurry(NativeEventTarget.prototype.removeEventListener);
  const dispatch = uncurry(NativeEventTarget.prototype.dispatchEvent);
  const preventDefault = uncurry(NativeEvent.prototype.preventDefault);
  const stopImmediatePropagation = uncurry(NativeEvent.prototype.stopImmediatePropagation);
  const eventTarget = getterOf(NativeEvent.prototype, 'target');
  const customEventDetail = getterOf(NativeCustomEvent.prototype, 'detail');
  const signalAborted = getterOf(win.AbortSignal.prototype, 'aborted');
  const signalReason = getterOf(win.AbortSignal.prototype, 'reason');
  const controllerSignal = getterOf(NativeAbortController.prototype, 'signal');
  const controllerAbort = uncurry(NativeAbortController.prototype.abort);
  const channelPort1 = getterOf(NativeMessageChannel.prototype, 'port1');
  const channelPort2 = getterOf(NativeMessageChannel.prototype, 'port2');
  const portPost = uncurry(win.MessagePort.prototype.postMessage);
  const portStart = uncurry(win.MessagePort.prototype.start);
  const documentView = getterOf(win.Document.prototype, 'defaultView');
  const frameContentWindow = getterOf(win.HTMLIFrameElement.prototype, 'contentWindow');
  const windowSelf = getterOf(win, 'self');
  const windowDocument = getterOf(win, 'document');
  const windowTop = getterOf(win, 'top');
  const windowParent = getterOf(win, 'parent');
  const windowClosed = getterOf(win, 'closed');
  const windowLength = getterOf(win, 'length');
  const urlProtocol = getterOf(NativeURL.prototype, 'protocol');
  const urlHostname = getterOf(NativeURL.prototype, 'hostname');
  const urlOrigin = getterOf(NativeURL.prototype, 'origin');
  // A document's origin is its window's, not its URL's: an about:blank or srcdoc document
  // has the origin of the document that made it, where location.origin says "null".
  const windowOrigin = getterOf(win, 'origin');
  const windowFrameElement = getterOf(win, 'frameElement');
  const getAttribute = uncurry(win.Element.prototype.getAttribute);
  const toWellFormed = uncurry(own.toWellFormed);
  const isWellFormed = uncurry(own.isWellFormed);
  const charCodeAt = uncurry(own.charCodeAt);
  const stringSlice = uncurry(own.stringSlice);
  const weakGet = /** @type {<V>(map: WeakMap<object, V>, key: unknown) => V | undefined} */ (uncurry(NativeWeakMap.prototype.get));
  const weakSet = /** @type {<V>(map: WeakMap<object, V>, key: object, value: V) => void} */ (uncurry(NativeWeakMap.prototype.set));
  const weakDelete = /** @type {(map: WeakMap<object, unknown>, key: unknown) => boolean} */ (uncurry(NativeWeakMap.prototype.delete));
  const { ITERATOR, TO_STRING_TAG, AGENT_HOOK } = own;
  const JOIN_EVENT = 'understudy-webmcp-join';

  function ownBuiltIns() {
    return Object.freeze({
      apply: Reflect.apply,
      construct: Reflect.construct,
      ownKeys: Reflect.ownKeys,
      getPrototypeOf: Reflect.getPrototypeOf,
      setPrototypeOf: Reflect.setPrototypeOf,
      defineProperty: Object.defineProperty,
      getOwnPropertyDescriptor: Object.getOwnPropertyDescriptor,
      objectCreate: Object.create,
      freeze: Object.freeze,
      toWellFormed: String.prototype.toWellFormed,
      isWellFormed: String.prototype.isWellFormed,
      charCodeAt: String.prototype.charCodeAt,
      stringSlice: String.prototype.slice,
      ITERATOR: Symbol.iterator,
      TO_STRING_TAG: Symbol.toStringTag,
      AGENT_HOOK: Symbol.for('understudy.webmcp.agent'),
    });
  }

  // ---------------------------------------------------------------------------------------
  // Small helpers

  /**
   * An object in JavaScript's sense (a function too): its members can be read.
   * @param {unknown} v
   * @returns {v is Record<PropertyKey, unknown>}
   */
  const isObject = (v) => (typeof v === 'object' && v !== null) || typeof v === 'function';
  /** @param {string} message */
  const typeError = (message) => new NativeTypeError(message);
  /**
   * @param {string} name
   * @param {string} message
   */
  const domError = (name, message) => new NativeDOMException(message, name);
  /**
   * @param {unknown} reason
   * @returns {Promise<never>}
   */
  const rejected = (reason) => new NativePromise((resolve, reject) => reject(reason));

  /**
   * A promise and the means to settle it, once.
   * @template T
   * @typedef {{ settled: boolean, promise: Promise<T>, fulfil(value: T): void, fail(reason: unknown): void }} Deferred
   */

  /**
   * What one realm's shim makes for its callers (shared through the hub: a call may run a
   * tool whose function comes from another realm, and get its client from there).
   * @typedef {object} Realm
   * @property {object} functionPrototype
   * @property {typeof Event} Event
   * @property {EventInterface} ToolActivatedEvent
   * @property {EventInterface} ToolCancelEvent
   * @property {(text: string) => unknown} parse
   * @property {(controller: AbortController) => Record<string, unknown>} makeClient
   * @property {() => AbortController} makeController
   * @property {(record: ToolRecord) => Record<string, unknown>} makeEntry
   * @property {string} origin
   */
  /** @typedef {new (type: string, init: { toolName: string }) => Event} EventInterface */

  /**
   * A document and its ModelContext (a "local"): its tools and event handlers.
   * @typedef {object} Local
   * @property {Document} document
   * @property {Window | null} window
   * @property {string} origin
   * @property {EventTarget} mc
   * @property {Realm} realm
   * @property {boolean} allowed
   * @property {Record<string, ToolRecord>} tools
   * @property {Record<string, HandlerSlot | undefined>} handlers
   */
  /** @typedef {{ value: object, listener: (this: EventTarget, event: Event) => void }} HandlerSlot */

  /**
   * A registered tool.
   * @typedef {object} ToolRecord
   * @property {Local} local
   * @property {string} name
   * @property {string} title
   * @property {string} description
   * @property {Annotations | undefined} annotations
   * @property {string | undefined} schemaJSON
   * @property {boolean} listed
   * @property {Function} execute
   * @property {AbortSignal | undefined} signal
   * @property {string[]} exposedTo
   * @property {Element} [form] a declarative tool's form
   */

  /**
   * One executeTool() call, from its start to the caller hearing the outcome.
   * @typedef {object} Call
   * @property {Deferred<string | null>} done
   * @property {AbortSignal | undefined} signal
   * @property {Local | undefined} target
   * @property {string} name
   * @property {string} origin
   * @property {string} inputJSON
   * @property {boolean} started
   * @property {boolean} toolSettled
   * @property {AbortController | null} controller
   * @property {() => void} [onAbort]
   * @property {ToolRecord} [record]
   * @property {number} [key]
   */

  /**
   * The top document's registry of documents and its task queue, shared with its same-origin
   * frames (whose shims may be other realms').
   * @typedef {object} Hub
   * @property {(local: Local) => void} attach
   * @property {Enqueue} enqueue
   * @property {(then: (() => void) | null) => void} notifyChange
   * @property {() => Local[]} treeOrder
   * @property {(call: Call) => void} track
   * @property {(call: Call) => void} untrack
   * @property {(local: Local) => Call[]} callsInto
   * @property {(fn: unknown) => Realm | null} realmOfFunction
   * @property {(mc: unknown) => Local | undefined} localOfContext
   * @property {(doc: Document) => Local | undefined} localOfDocument
   * @property {(view: Window) => Local | undefined} localOfWindow
   */
  /** @typedef {(first: () => void, second?: () => void) => void} Enqueue */

  /**
   * @template T
   * @returns {Deferred<T>}
   */
  function deferred() {
    /** @type {(value: T) => void} */
    let resolve = () => {};
    /** @type {(reason: unknown) => void} */
    let reject = () => {};
    /** @type {Promise<T>} */
    const promise = new NativePromise((ok, fail) => { resolve = ok; reject = fail; });
    /** @type {Deferred<T>} */
    const d = {
      settled: false,
      promise,
      fulfil: (value) => { if (!d.settled) { d.settled = true; resolve(value); } },
      fail: (reason) => { if (!d.settled) { d.settled = true; reject(reason); } },
    };
    return d;
  }

  /**
   * A dictionary for a native call: no prototype, so nothing a page adds to Object.prototype
   * is read as one of its members.
   * @template {object} T
   * @param {T} members
   * @returns {T}
   */
  function plain(members) {
    const out = objectCreate(null);
    const keys = ownKeys(members);
    for (let i = 0; i < keys.length; i++) out[keys[i]] = members[/** @type {keyof T} */ (keys[i])];
    return out;
  }

  const CAPTURE = freeze(plain({ capture: true }));
  // Native abort steps run before any 'abort' listener; the shim's are a listener, so they run
  // after those the page added earlier (docs/webmcp-differences.md). Lookups treat a tool
  // whose signal has aborted as gone, so what those listeners see is right all the same.
  const ABORT_STEPS = freeze(plain({ once: true }));

  /**
   * An array appended without Array.prototype (which a page may have replaced).
   * @template T
   * @param {T[]} list
   * @param {T} value
   */
  function append(list, value) { list[list.length] = value; }

  /**
   * @template T
   * @param {readonly T[]} list
   * @param {T} value
   */
  function includes(list, value) {
    for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
    return false;
  }

  // What a page is handed is made from this window's built-ins (this code may be another
  // realm's: see install() at the end).
  /** @returns {Record<string, unknown>} */
  const newObject = () => objectCreate(ObjectPrototype);
  /**
   * @template T
   * @returns {T[]}
   */
  const newArray = () => new NativeArray();

  // ---------------------------------------------------------------------------------------
  // WebIDL conversions

  /**
   * The page's values reach the shim as `unknown`; the conversions below make them what the
   * IDL says, as WebIDL does.
   * @param {unknown} value
   * @returns {string}
   */
  function toDOMString(value) {
    if (typeof value === 'symbol') throw typeError('Cannot convert a Symbol value to a string');
    return `${value}`; // ToString, as WebIDL does (the template literal uses hint "string")
  }

  /** @param {unknown} value */
  const toUSVString = (value) => toWellFormed(toDOMString(value));

  /**
   * A dictionary argument: undefined and null are an empty dictionary, other primitives fail.
   * @param {unknown} value
   * @param {string} context
   * @param {string} name
   * @returns {Record<PropertyKey, unknown> | null}
   */
  function dictionary(value, context, name) {
    if (value === undefined || value === null) return null;
    if (!isObject(value)) throw typeError(`${context}: The provided value is not of type '${name}'.`);
    return value;
  }

  /**
   * @param {Record<PropertyKey, unknown> | null} dict
   * @param {string} key
   */
  const member = (dict, key) => (dict === null ? undefined : dict[key]);

  /**
   * @param {unknown} value
   * @param {string} context
   * @param {string} name
   * @param {string} key
   */
  function required(value, context, name, key) {
    if (value === undefined) throw typeError(`${context}: Failed to read the '${key}' property from '${name}': Required member is undefined.`);
    return value;
  }

  /**
   * @param {unknown} value
   * @param {string} context
   */
  function toObject(value, context) {
    if (!isObject(value)) throw typeError(`${context}: The provided value is not of type 'object'.`);
    return value;
  }

  /**
   * @param {unknown} value
   * @param {string} context
   */
  function toAbortSignal(value, context) {
    try {
      signalAborted(value);
    } catch {
      throw typeError(`${context}: Failed to read the 'signal' property: Failed to convert value to 'AbortSignal'.`);
    }
    return /** @type {AbortSignal} */ (value); // its getter accepted it
  }

  /**
   * @param {unknown} value
   * @param {string} context
   */
  function toWindow(value, context) {
    try {
      // The global's own getters treat undefined and null as the global: rule them out first.
      if (!isObject(value)) throw typeError('not an object');
      windowSelf(value);
    } catch {
      throw typeError(`${context}: Failed to read the 'window' property from 'RegisteredTool': Failed to convert value to 'Window'.`);
    }
    return /** @type {Window} */ (/** @type {unknown} */ (value)); // a window's own getter accepted it
  }

  /**
   * sequence<USVString>: any iterable, walked through its own iterator.
   * @param {unknown} value
   * @param {string} context
   */
  function toUSVStringSequence(value, context) {
    if (!isObject(value)) throw typeError(`${context}: The provided value cannot be converted to a sequence.`);
    const method = value[ITERATOR];
    if (typeof method !== 'function') throw typeError(`${context}: The object must have a callable @@iterator property.`);
    const iterator = apply(method, value, []);
    if (!isObject(iterator)) throw typeError(`${context}: The iterator is not an object.`);
    // Not checked here: calling one that is not callable throws, as WebIDL's Call does.
    const next = /** @type {Function} */ (iterator.next);
    /** @type {string[]} */
    const out = [];
    for (;;) {
      const step = apply(next, iterator, []);
      if (!isObject(step)) throw typeError(`${context}: The iterator result is not an object.`);
      if (step.done) return out;
      append(out, toUSVString(step.value));
    }
  }

  /** @typedef {'consequentialHint' | 'debugging' | 'readOnlyHint' | 'untrustedContentHint'} AnnotationName */
  /** @typedef {Record<AnnotationName, boolean>} Annotations */
  /** @type {AnnotationName[]} */
  const ANNOTATION_MEMBERS = ['consequentialHint', 'debugging', 'readOnlyHint', 'untrustedContentHint'];

  /**
   * @param {unknown} value
   * @param {string} context
   * @returns {Annotations}
   */
  function toAnnotations(value, context) {
    const dict = dictionary(value, context, 'ToolAnnotations');
    const out = /** @type {Annotations} */ ({});
    for (let i = 0; i < ANNOTATION_MEMBERS.length; i++) out[ANNOTATION_MEMBERS[i]] = Boolean(member(dict, ANNOTATION_MEMBERS[i]));
    return out;
  }

  /**
   * A tool as registerTool() takes it.
   * @typedef {{ annotations: Annotations | undefined, description: string, execute: Function, inputSchema: object | undefined, name: string, title: string | undefined }} ToolInit
   */

  /**
   * dictionary ModelContextTool, members read in lexicographic order.
   * @param {unknown} value
   * @param {string} context
   * @returns {ToolInit}
   */
  function toModelContextTool(value, context) {
    const dict = dictionary(value, context, 'ModelContextTool');
    const name = 'ModelContextTool';
    const annotationsValue = member(dict, 'annotations');
    const annotations = annotationsValue === undefined ? undefined : toAnnotations(annotationsValue, context);
    const description = toDOMString(required(member(dict, 'description'), context, name, 'description'));
    const execute = required(member(dict, 'execute'), context, name, 'execute');
    if (typeof execute !== 'function') throw typeError(`${context}: Failed to read the 'execute' property from '${name}': The provided value is not a function.`);
    const schema = member(dict, 'inputSchema');
    const inputSchema = schema === undefined ? undefined : toObject(schema, context);
    const toolName = toDOMString(required(member(dict, 'name'), context, name, 'name'));
    const titleValue = member(dict, 'title');
    const title = titleValue === undefined ? undefined : toUSVString(titleValue);
    return { annotations, description, execute, inputSchema, name: toolName, title };
  }

  /**
   * @param {unknown} value
   * @param {string} context
   * @returns {{ exposedTo: string[] | undefined, signal: AbortSignal | undefined }}
   */
  function toRegisterOptions(value, context) {
    const dict = dictionary(value, context, 'ModelContextRegisterToolOptions');
    const exposedToValue = member(dict, 'exposedTo');
    const exposedTo = exposedToValue === undefined ? undefined : toUSVStringSequence(exposedToValue, context);
    const signal = member(dict, 'signal');
    return { exposedTo, signal: signal === undefined ? undefined : toAbortSignal(signal, context) };
  }

  /**
   * dictionary RegisteredTool: what getTools() gives, handed back to executeTool(). Only
   * what finds the tool is kept; the other members are converted (and may throw) all the same.
   * @param {unknown} value
   * @param {string} context
   * @returns {{ name: string, origin: string, window: Window }}
   */
  function toRegisteredTool(value, context) {
    const dict = dictionary(value, context, 'RegisteredTool');
    const name = 'RegisteredTool';
    const annotations = member(dict, 'annotations');
    if (annotations !== undefined) toAnnotations(annotations, context);
    toDOMString(required(member(dict, 'description'), context, name, 'description'));
    const schema = member(dict, 'inputSchema');
    if (schema !== undefined) toObject(schema, context);
    const toolName = toDOMString(required(member(dict, 'name'), context, name, 'name'));
    const origin = toUSVString(required(member(dict, 'origin'), context, name, 'origin'));
    const title = member(dict, 'title');
    if (title !== undefined) toDOMString(title);
    return { name: toolName, origin, window: toWindow(required(member(dict, 'window'), context, name, 'window'), context) };
  }

  /**
   * @param {unknown} value
   * @param {string} context
   * @param {string} name
   */
  function toSignalOptions(value, context, name) {
    const dict = dictionary(value, context, name);
    const signal = member(dict, 'signal');
    return { signal: signal === undefined ? undefined : toAbortSignal(signal, context) };
  }

  /**
   * @param {unknown} value
   * @param {string} context
   */
  function toGetToolsOptions(value, context) {
    const dict = dictionary(value, context, 'ModelContextGetToolOptions');
    const fromOrigins = member(dict, 'fromOrigins');
    return { fromOrigins: fromOrigins === undefined ? undefined : toUSVStringSequence(fromOrigins, context) };
  }

  // ---------------------------------------------------------------------------------------
  // Names, origins and values, as Chromium 156 checks and converts them

  /**
   * 1 to 128 ASCII letters, digits, "_", "-" or ".".
   * @param {string} name
   */
  function validToolName(name) {
    if (name.length < 1 || name.length > 128) return false;
    for (let i = 0; i < name.length; i++) {
      const c = charCodeAt(name, i);
      const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45 || c === 46;
      if (!ok) return false;
    }
    return true;
  }

  /** @param {string} text */
  function parseURL(text) {
    try {
      return new NativeURL(text);
    } catch {
      return null;
    }
  }

  /** @param {string} host */
  function isLoopbackHost(host) {
    if (host === 'localhost' || host === '[::1]') return true;
    if (host.length > 10 && stringSlice(host, -10) === '.localhost') return true;
    return stringSlice(host, 0, 4) === '127.' && parseURL(`http://${host}/`) !== null && isIPv4(host);
  }

  /** @param {string} host */
  function isIPv4(host) {
    for (let i = 0; i < host.length; i++) {
      const c = charCodeAt(host, i);
      if (!((c >= 48 && c <= 57) || c === 46)) return false;
    }
    return true;
  }

  // This document is a secure context (or the shim would not run): a scheme of its own that is
  // not one of the web's is one the embedder registered as secure (the shell's understudy:).
  // The scheme of this document's origin (an about:srcdoc frame's is its parent's).
  const OWN_PROTOCOL = (() => {
    const url = parseURL(windowOrigin(win));
    return url === null ? '' : urlProtocol(url);
  })();
  const WEB_PROTOCOLS = ['http:', 'ws:', 'https:', 'wss:', 'file:', 'blob:', 'filesystem:', 'data:', 'about:', 'javascript:'];
  const OWN_SCHEME_IS_SECURE = OWN_PROTOCOL !== '' && !includes(WEB_PROTOCOLS, OWN_PROTOCOL);

  /**
   * "Is origin potentially trustworthy?", for the URLs exposedTo and fromOrigins list.
   * @param {URL} url
   * @param {number} [depth] 1 for the origin inside a blob: or filesystem: URL
   * @returns {boolean}
   */
  function potentiallyTrustworthy(url, depth = 0) {
    const protocol = urlProtocol(url);
    if (protocol === 'https:' || protocol === 'wss:' || protocol === 'file:') return true;
    if (protocol === 'http:' || protocol === 'ws:') return isLoopbackHost(urlHostname(url));
    if (OWN_SCHEME_IS_SECURE && protocol === OWN_PROTOCOL) return true;
    if ((protocol === 'blob:' || protocol === 'filesystem:') && depth === 0) {
      const inner = parseURL(urlOrigin(url));
      return inner !== null && potentiallyTrustworthy(inner, 1);
    }
    return false;
  }

  /**
   * @param {string[] | undefined} list
   * @param {string} what
   */
  function checkOrigins(list, what) {
    if (list === undefined) return;
    for (let i = 0; i < list.length; i++) {
      const url = parseURL(list[i]);
      if (url === null || !potentiallyTrustworthy(url)) throw domError('SecurityError', `Only secure origins are allowed in the ${what} list.`);
    }
  }

  /** Chromium hands strings to the browser as UTF-8: one with a lone surrogate does not survive. */
  const survivesUTF8 = (/** @type {string} */ s) => isWellFormed(s);

  // How deep a value may nest. Native WebMCP serialises inputs, input schemas and results
  // with a recursive serialiser that runs out of stack: a RangeError for an argument, an
  // UnknownError for a result. Measured in Chromium 156 from a shallow call stack, an input
  // of 5,182 nested objects or 4,783 nested arrays fails and one level less passes; a schema
  // gets one level more, a result (serialised from a shallower stack) five. An array level
  // costs 5182/4783 of an object level, and mixed nesting costs the sum. The engine's own
  // JSON.stringify here goes far deeper, so the shim charges each level its share of a
  // fixed budget. (Natively the limit also shrinks as the caller's stack grows: that the
  // shim cannot see; docs/webmcp-differences.md.)
  const OBJECT_LEVEL = 4783;
  const ARRAY_LEVEL = 5182;
  const INPUT_BUDGET = 5182 * OBJECT_LEVEL;
  const SCHEMA_BUDGET = 5183 * OBJECT_LEVEL;
  const RESULT_BUDGET = 5187 * OBJECT_LEVEL;
  // Text shorter than this cannot nest deep enough to fail (each level takes two characters).
  const SHORTEST_TOO_DEEP = 2 * 4783;

  /**
   * Whether JSON text nests deeper than `budget` allows.
   * @param {string} json
   * @param {number} budget
   */
  function nestsTooDeep(json, budget) {
    if (json.length < SHORTEST_TOO_DEEP) return false;
    let cost = 0;
    for (let i = 0; i < json.length; i++) {
      const c = charCodeAt(json, i);
      if (c === 34) { // a string: on to its closing quote, past escaped characters
        for (i++; charCodeAt(json, i) !== 34; i++) if (charCodeAt(json, i) === 92) i++;
      } else if (c === 123 || c === 91) { // { or [
        cost += c === 123 ? OBJECT_LEVEL : ARRAY_LEVEL;
        if (cost >= budget) return true;
      } else if (c === 125) {
        cost -= OBJECT_LEVEL;
      } else if (c === 93) {
        cost -= ARRAY_LEVEL;
      }
    }
    return false;
  }

  /**
   * The JSON of an argument, or the RangeError native gives one that nests too deep.
   * @param {object} value
   * @param {number} budget
   * @param {string} method
   * @returns {string | undefined}
   */
  function argumentJSON(value, budget, method) {
    const json = stringify(value);
    if (json !== undefined && nestsTooDeep(json, budget)) {
      throw new NativeRangeError(`Failed to execute '${method}' on 'ModelContext': Maximum call stack size exceeded`);
    }
    return json;
  }

  /**
   * What executeTool() resolves with, for a value a tool returned (or resolved to).
   * @param {unknown} value
   * @returns {string | null}
   */
  function serialiseResult(value) {
    if (typeof value === 'string') {
      if (value === '') return 'Operation succeeded';
      return survivesUTF8(value) ? value : null;
    }
    if (typeof value === 'symbol') throw typeError('A Symbol cannot be serialised.');
    if (!isObject(value)) return `${value}`;
    const json = stringify(value);
    if (json === undefined) return 'undefined';
    if (nestsTooDeep(json, RESULT_BUDGET)) throw domError('UnknownError', 'The result nests too deep.');
    return json;
  }

  // ---------------------------------------------------------------------------------------
  // The hub: shared by the top document and its same-origin frames

  /**
   * The hub's queue of work the browser would do later, one job per task, in order.
   * @returns {Enqueue}
   */
  function createTaskQueue() {
    /** @type {Array<{ first: () => void, second?: () => void } | undefined>} */
    const queue = [];
    let head = 0;

    // Two listeners on one port: a job's first step, a microtask checkpoint, its second step.
    const channel = new NativeMessageChannel();
    const port = channelPort1(channel);
    const sender = channelPort2(channel);
    addListener(port, 'message', () => { const job = queue[head]; if (job) job.first(); });
    addListener(port, 'message', () => {
      const job = queue[head];
      queue[head] = undefined;
      head += 1;
      if (head === queue.length) { queue.length = 0; head = 0; } // drained: start over
      if (job && job.second) job.second();
    });
    portStart(port);

    return function enqueue(first, second = undefined) {
      append(queue, { first, second });
      portPost(sender, null);
    };
  }

  /**
   * The active documents of the tree under `top` that byWindow knows, top first, each
   * before its frames (tree order).
   * @param {WeakMap<object, Local>} byWindow
   * @param {Window} top
   */
  function documentsInTreeOrder(byWindow, top) {
    /** @type {Local[]} */
    const out = [];
    /** @param {Window} view */
    const visit = (view) => {
      const local = weakGet(byWindow, view);
      if (local && isActive(local)) append(out, local);
      let count;
      try { count = windowLength(view); } catch { return; }
      for (let i = 0; i < count; i++) {
        let child;
        try { child = view[i]; windowDocument(child); } catch { continue; } // cross-origin frames have no part here
        visit(child);
      }
    };
    visit(top);
    return out;
  }

  /**
   * The realm helpers of the realm a function was made in (found by its prototype chain).
   * @param {WeakMap<object, Realm>} realms
   * @param {unknown} fn
   */
  function findRealm(realms, fn) {
    try {
      if (!isObject(fn)) return null;
      for (let p = getPrototypeOf(fn), depth = 0; p !== null && depth < 4; p = getPrototypeOf(p), depth++) {
        const realm = weakGet(realms, p);
        if (realm) return realm;
      }
    } catch { /* a revoked proxy, for one */ }
    return null;
  }

  /** @returns {Hub} */
  function createHub() {
    /** @type {WeakMap<object, Local>} */
    const byContext = new NativeWeakMap();
    /** @type {WeakMap<object, Local>} */
    const byDocument = new NativeWeakMap();
    /** @type {WeakMap<object, Local>} */
    const byWindow = new NativeWeakMap();
    /** @type {WeakMap<object, Realm>} */
    const realms = new NativeWeakMap(); // a realm's Function.prototype -> its realm helpers
    const hubWindow = win;
    const enqueue = createTaskQueue();

    /** @param {Local} local */
    function attach(local) {
      weakSet(byContext, local.mc, local);
      weakSet(byDocument, local.document, local);
      if (local.window !== null) weakSet(byWindow, local.window, local);
      if (!weakGet(realms, local.realm.functionPrototype)) weakSet(realms, local.realm.functionPrototype, local.realm);
    }

    /** The documents of the tree, top first, each before its frames (tree order). */
    const treeOrder = () => documentsInTreeOrder(byWindow, hubWindow);

    /** toolchange at every document of the tree, each in its own task, then `then`. */
    // One toolchange per registration and per unregistration, even several in one task:
    // Chromium 156 gives each tool its own (events.unregister.threeToolsOneTask).
    /** @param {(() => void) | null} then */
    function notifyChange(then) {
      const targets = treeOrder();
      for (let i = 0; i < targets.length; i++) {
        const local = targets[i];
        enqueue(() => {
          if (isActive(local)) dispatch(local.mc, new local.realm.Event('toolchange'));
        });
      }
      if (then) enqueue(then);
    }

    // Calls whose tool lives in a frame that may go away before the tool settles, by a
    // serial of the hub's own (the callers are shims of several realms).
    /** @type {Record<string, Call>} */
    const calls = objectCreate(null);
    let serial = 0;

    /** @param {Call} call */
    function track(call) {
      serial += 1;
      call.key = serial;
      calls[serial] = call;
    }

    /**
     * The calls into `local` whose tool has not settled yet.
     * @param {Local} local
     */
    function callsInto(local) {
      /** @type {Call[]} */
      const out = [];
      const keys = ownKeys(calls);
      for (let i = 0; i < keys.length; i++) {
        const call = calls[/** @type {string} */ (keys[i])];
        if (call.target === local && !call.toolSettled) append(out, call);
      }
      return out;
    }

    return freeze({
      attach,
      enqueue,
      notifyChange,
      treeOrder,
      track,
      untrack: (call) => { if (call.key !== undefined) delete calls[call.key]; },
      callsInto,
      realmOfFunction: (fn) => findRealm(realms, fn),
      localOfContext: (mc) => (isObject(mc) ? weakGet(byContext, mc) : undefined),
      localOfDocument: (doc) => weakGet(byDocument, doc),
      localOfWindow: (view) => weakGet(byWindow, view),
    });
  }

  /**
   * A frame joins the top document's hub, asking it with an event only the top's shim sees.
   * @returns {Hub | null}
   */
  function joinTopHub() {
    /** @type {Hub | null} */
    let found = null;
    try {
      const top = /** @type {Window} */ (windowTop(win)); // a window in a document has a top
      for (let w = /** @type {Window} */ (win); w !== top; w = /** @type {Window} */ (windowParent(w))) windowDocument(windowParent(w)); // throws if cross-origin
      const request = new NativeCustomEvent(JOIN_EVENT, plain({ detail: (/** @type {Hub} */ api) => { found = api; } }));
      dispatch(top, request);
    } catch {
      return null;
    }
    return found;
  }

  /** @param {Hub} hub */
  function answerJoins(hub) {
    addListener(win, JOIN_EVENT, (/** @type {Event} */ event) => {
      stopImmediatePropagation(event);
      const accept = customEventDetail(event);
      if (typeof accept === 'function') accept(hub);
    }, CAPTURE);
  }

  /**
   * Whether a frame element's allow attribute lets the "tools" feature into the frame, as
   * Chromium 156 reads it: the first "tools" directive (the name is case-sensitive) decides;
   * with none, the default ('self') lets it into a same-origin frame. An allowlist lets it
   * in when one of its items matches: *, 'src' or no item at all (the frame's own src),
   * 'self' (the parent's origin), or the frame's origin written out; 'none' matches nothing.
   * @param {string} allow
   * @param {string} frameOrigin
   * @param {string} parentOrigin
   */
  function allowsTools(allow, frameOrigin, parentOrigin) {
    /** @type {string[][]} */
    const directives = [[]];
    let start = -1;
    const end = (/** @type {number} */ at) => {
      if (start >= 0) append(directives[directives.length - 1], stringSlice(allow, start, at));
      start = -1;
    };
    for (let i = 0; i < allow.length; i++) {
      const code = charCodeAt(allow, i);
      if (code === 0x3b) { end(i); append(directives, []); } // ;
      else if (code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) end(i);
      else if (start < 0) start = i;
    }
    end(allow.length);
    for (let d = 0; d < directives.length; d++) {
      const tokens = directives[d];
      if (tokens.length === 0 || tokens[0] !== 'tools') continue;
      if (tokens.length === 1) return true;
      for (let t = 1; t < tokens.length; t++) {
        const item = tokens[t];
        if (item === '*' || item === "'src'") return true;
        if (item === "'self'") { if (frameOrigin === parentOrigin) return true; continue; }
        if (item === "'none'") continue;
        const url = parseURL(item);
        if (url !== null && urlOrigin(url) === frameOrigin) return true;
      }
      return false;
    }
    return true;
  }

  /** The "tools" feature reaches this frame: every frame element from here to the top,
   *  read now (when the document is created, as Chromium reads the container policy). */
  function policyAllowsTools() {
    try {
      const top = windowTop(win);
      for (let w = /** @type {Window} */ (win); w !== top; w = /** @type {Window} */ (windowParent(w))) {
        const element = windowFrameElement(w);
        if (element === null) return false;
        const allow = getAttribute(element, 'allow');
        if (allow !== null && !allowsTools(allow, windowOrigin(w), windowOrigin(windowParent(w)))) return false;
      }
      return true;
    } catch {
      return false; // an ancestor of another origin: it never joined a hub either
    }
  }

  const isTop = windowTop(win) === win;
  const joined = isTop ? null : joinTopHub();
  // The top document or, failing that, a tree of its own (a frame inside another origin:
  // Chromium's "tools" permissions policy refuses it the API, so calls fail as there), and
  // a frame whose element's allow attribute keeps the feature out.
  const allowed = isTop || (joined !== null && policyAllowsTools());
  const hub = joined ?? createHub();
  if (isTop) answerJoins(hub);

  // ---------------------------------------------------------------------------------------
  // This realm's part: its interface objects, and the objects it makes for its callers

  let constructing = false;

  // Interface objects are plain functions, not classes: a class called without `new` throws
  // the engine's own TypeError, made in the realm this code comes from, which for an
  // about:blank frame is its parent's (frames.aboutBlank.*).
  function ModelContext() {
    if (new.target === undefined || !constructing) throw typeError("Failed to construct 'ModelContext': Illegal constructor");
    return construct(NativeEventTarget, [], new.target);
  }
  asInterface(ModelContext, NativeEventTarget);

  /**
   * ToolActivatedEvent or ToolCancelEvent: an Event with a toolName.
   * @param {string} name
   * @returns {EventInterface}
   */
  function eventInterface(name) {
    /** @type {WeakMap<object, string>} */
    const toolNames = new NativeWeakMap(); // event -> its toolName
    /**
     * @param {unknown} type
     * @param {unknown} [eventInitDict]
     */
    const EventInterface = function (type, eventInitDict) {
      if (new.target === undefined) throw typeError(`Failed to construct '${name}': Please use the 'new' operator, this DOM object constructor cannot be called as a function.`);
      if (arguments.length < 1) throw typeError(`Failed to construct '${name}': 1 argument required, but only 0 present.`);
      const event = /** @type {Event} */ (construct(NativeEvent, [type, eventInitDict], new.target));
      const toolName = isObject(eventInitDict) ? eventInitDict.toolName : undefined;
      weakSet(toolNames, event, toolName === undefined ? '' : toDOMString(toolName));
      return event;
    };
    defineProperty(EventInterface, 'name', { value: name });
    defineProperty(EventInterface, 'length', { value: 1 });
    asInterface(EventInterface, NativeEvent);
    const accessors = {
      get toolName() {
        const value = weakGet(toolNames, this);
        if (value === undefined) throw typeError('Illegal invocation');
        return value;
      },
    };
    finishPrototype(EventInterface, [['toolName', getOwnPropertyDescriptor(accessors, 'toolName')]], name);
    // A function that constructs as the Event it returns: how TypeScript cannot tell.
    return /** @type {EventInterface} */ (/** @type {unknown} */ (EventInterface));
  }

  /**
   * A function made an interface object: it and its prototype inherit from `Parent`'s, and
   * its prototype property is fixed, as for a class.
   * @param {Function} Interface
   * @param {Function} Parent
   */
  function asInterface(Interface, Parent) {
    setPrototypeOf(Interface, Parent);
    setPrototypeOf(Interface.prototype, Parent.prototype);
    defineProperty(Interface, 'prototype', { writable: false });
  }

  /**
   * A function the page reaches inherits from this window's Function.prototype (the code
   * may be another realm's).
   * @template T
   * @param {T} fn
   * @returns {T}
   */
  function ownFunction(fn) {
    if (typeof fn === 'function') setPrototypeOf(fn, FunctionPrototype);
    return fn;
  }

  /**
   * Members in the order Chromium lists them, then constructor, then @@toStringTag.
   * @param {Function} Interface
   * @param {Array<[string, PropertyDescriptor | undefined]>} members
   * @param {string} tag
   */
  function finishPrototype(Interface, members, tag) {
    const proto = Interface.prototype;
    delete proto.constructor;
    for (let i = 0; i < members.length; i++) {
      // Indexed, not destructured: array iteration is the page's to replace.
      const key = members[i][0];
      const descriptor = { ...members[i][1], enumerable: true, configurable: true };
      ownFunction(descriptor.value);
      ownFunction(descriptor.get);
      ownFunction(descriptor.set);
      defineProperty(proto, key, descriptor);
    }
    defineProperty(proto, 'constructor', { value: Interface, writable: true, enumerable: false, configurable: true });
    defineProperty(proto, TO_STRING_TAG, { value: tag, writable: false, enumerable: false, configurable: true });
  }

  const ToolActivatedEvent = eventInterface('ToolActivatedEvent');
  const ToolCancelEvent = eventInterface('ToolCancelEvent');

  /** @type {Realm} */
  const realm = freeze({
    functionPrototype: FunctionPrototype,
    Event: NativeEvent,
    ToolActivatedEvent,
    ToolCancelEvent,
    parse: parseJSON,
    makeClient(controller) {
      const client = newObject();
      client.signal = controllerSignal(controller);
      return client;
    },
    makeController: () => new NativeAbortController(),
    makeEntry,
    origin: windowOrigin(win),
  });

  /**
   * A getTools() entry, made in this realm, members in dictionary order.
   * @param {ToolRecord} record
   */
  function makeEntry(record) {
    const entry = newObject();
    if (record.annotations !== undefined) {
      const annotations = newObject();
      const given = record.annotations;
      for (let i = 0; i < ANNOTATION_MEMBERS.length; i++) annotations[ANNOTATION_MEMBERS[i]] = given[ANNOTATION_MEMBERS[i]];
      entry.annotations = annotations;
    }
    entry.description = record.description;
    if (record.schemaJSON !== undefined) entry.inputSchema = parseJSON(record.schemaJSON);
    entry.name = record.name;
    entry.origin = record.local.origin;
    entry.title = record.title;
    entry.window = record.local.window;
    return entry;
  }

  // ---------------------------------------------------------------------------------------
  // Documents and their ModelContext

  /** @param {Local} local */
  function isActive(local) {
    if (local.window === null) return false;
    try {
      return documentView(local.document) === local.window;
    } catch {
      return false;
    }
  }

  /**
   * @param {Document} doc
   * @param {Window | null} view
   * @param {string} origin
   * @returns {Local}
   */
  function createLocal(doc, view, origin) {
    constructing = true;
    let mc;
    try {
      mc = /** @type {EventTarget} */ (construct(ModelContext, []));
    } finally {
      constructing = false;
    }
    /** @type {Local} */
    const local = { document: doc, window: view, origin, mc, realm, allowed, tools: objectCreate(null), handlers: objectCreate(null) };
    hub.attach(local);
    return local;
  }

  /**
   * A document with no shim of its own (one made by script, say) gets one lazily.
   * @param {Document} doc
   */
  function localForDocument(doc) {
    const known = hub.localOfDocument(doc);
    if (known) return known;
    const view = documentView(doc);
    let origin = 'null';
    try { if (view !== null) origin = windowOrigin(view); } catch { /* cross-origin */ }
    return createLocal(doc, view, origin);
  }

  const here = createLocal(windowDocument(win), win, realm.origin);
  // Before any page script, so no listener of the page's can stop it.
  addListener(win, 'pagehide', onPageHide, CAPTURE);

  /**
   * The live registration of `name` in a document: a tool whose signal aborted is gone.
   * @param {Local} local
   * @param {string} name
   */
  function liveRecord(local, name) {
    const record = local.tools[name];
    if (record === undefined) return undefined;
    if (record.signal !== undefined && signalAborted(record.signal)) return undefined;
    return record;
  }

  /** @param {Local} local */
  function liveRecords(local) {
    /** @type {ToolRecord[]} */
    const out = [];
    const names = ownKeys(local.tools);
    for (let i = 0; i < names.length; i++) {
      const record = liveRecord(local, /** @type {string} */ (names[i]));
      if (record !== undefined) append(out, record);
    }
    return out;
  }

  // ---------------------------------------------------------------------------------------
  // Declarative tools: a <form toolname="…" tooldescription="…"> is a tool, as Chromium 156
  // lists it (events.declarative.* and declarative.* in js/webmcp/conformance.js). Its input
  // schema is made from the form's controls; calling it fills them in, then submits the form
  // (toolautosubmit) or waits for the person to; the submit event says agentInvoked and
  // takes the tool's result through respondWith(). The draft spec leaves all of this a TODO,
  // so what native Chromium does is the reference.

  const documentForms = getterOf(win.Document.prototype, 'forms');
  const formElements = getterOf(win.HTMLFormElement.prototype, 'elements');
  const requestSubmit = uncurry(win.HTMLFormElement.prototype.requestSubmit);
  const collectionLength = getterOf(win.HTMLCollection.prototype, 'length');
  const collectionItem = uncurry(win.HTMLCollection.prototype.item);
  const nodeListLength = getterOf(win.NodeList.prototype, 'length');
  const nodeListItem = uncurry(win.NodeList.prototype.item);
  const childNodesOf = getterOf(win.Node.prototype, 'childNodes');
  const nodeTypeOf = getterOf(win.Node.prototype, 'nodeType');
  const nodeValueOf = getterOf(win.Node.prototype, 'nodeValue');
  const localNameOf = getterOf(win.Element.prototype, 'localName');
  const matches = uncurry(win.Element.prototype.matches);
  const eventPhase = getterOf(NativeEvent.prototype, 'eventPhase');
  const defaultPrevented = getterOf(NativeEvent.prototype, 'defaultPrevented');
  const InputProto = win.HTMLInputElement.prototype;
  const SelectProto = win.HTMLSelectElement.prototype;
  const TextAreaProto = win.HTMLTextAreaElement.prototype;
  const inputType = getterOf(InputProto, 'type');
  const setInputValue = setterOf(InputProto, 'value');
  const setChecked = setterOf(InputProto, 'checked');
  const inputValue = getterOf(InputProto, 'value');
  const setTextAreaValue = setterOf(TextAreaProto, 'value');
  const selectOptions = getterOf(SelectProto, 'options');
  const optionValue = getterOf(win.HTMLOptionElement.prototype, 'value');
  const optionText = getterOf(win.HTMLOptionElement.prototype, 'text');
  const setSelected = setterOf(win.HTMLOptionElement.prototype, 'selected');
  /** @type {Record<string, (element: Element) => NodeList | null>} */
  const labelsOf = plain({
    input: getterOf(InputProto, 'labels'),
    select: getterOf(SelectProto, 'labels'),
    textarea: getterOf(TextAreaProto, 'labels'),
  });
  /** @type {Record<string, (element: Element) => string>} */
  const validationMessageOf = plain({
    input: getterOf(InputProto, 'validationMessage'),
    select: getterOf(SelectProto, 'validationMessage'),
    textarea: getterOf(TextAreaProto, 'validationMessage'),
  });
  const NativeMutationObserver = win.MutationObserver;
  const observe = uncurry(NativeMutationObserver.prototype.observe);

  const DATE_NOTE = "Dates MUST be provided in 'YYYY-MM-DD' format.";
  /** The patterns Chromium 156 writes as a "format" for these input types. */
  /** @type {Readonly<Record<string, string>>} */
  const FORMATS = freeze(plain({
    time: '^([01][0-9]|2[0-3]):[0-5][0-9]$',
    'datetime-local': '^[0-9]{4}-(0[1-9]|1[0-2])-[0-9]{2}T([01][0-9]|2[0-3]):[0-5][0-9]$',
    month: '^[0-9]{4}-(0[1-9]|1[0-2])$',
    week: '^[0-9]{4}-W(0[1-9]|[1-4][0-9]|5[0-3])$',
    color: '^#[0-9a-zA-Z]{6}$',
  }));
  const NOT_INPUTS = ['hidden', 'submit', 'reset', 'button', 'image', 'file'];
  const WATCHED = ['toolname', 'tooldescription', 'toolparamdescription', 'name', 'type', 'required', 'min', 'max', 'step', 'pattern', 'disabled', 'readonly', 'multiple', 'value', 'label', 'form', 'id', 'for', 'aria-description'];

  /**
   * One parameter of a form tool: the controls it fills and its schema.
   * @typedef {{ kind: 'text' | 'number' | 'boolean' | 'choice' | 'choices' | 'radio', controls: Element[], schema: Record<string, unknown>, choices: string[] }} FormParam
   */

  /** @param {string} text */
  function collapseSpace(text) {
    let out = '';
    let space = false;
    for (let i = 0; i < text.length; i++) {
      const c = charCodeAt(text, i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d) { space = out !== ''; continue; }
      if (space) out += ' ';
      space = false;
      out += stringSlice(text, i, i + 1);
    }
    return out;
  }

  /** A label's own text, without what the controls inside it say (a select's options).
   *  @param {Node} node */
  function labelText(node) {
    let out = '';
    const children = childNodesOf(node);
    for (let i = 0; i < nodeListLength(children); i++) {
      const child = /** @type {Node} */ (nodeListItem(children, i));
      const type = nodeTypeOf(child);
      if (type === 3) out += nodeValueOf(child) ?? '';
      else if (type === 1 && !includes(['input', 'select', 'textarea', 'button'], localNameOf(child))) out += labelText(child);
    }
    return out;
  }

  /** toolparamdescription, else the first label's text, else aria-description.
   *  @param {Element} element @param {string} tag */
  function describeControl(element, tag) {
    const declared = getAttribute(element, 'toolparamdescription');
    if (declared !== null && declared !== '') return declared;
    const labels = labelsOf[tag](element);
    if (labels !== null && nodeListLength(labels) > 0) {
      const text = collapseSpace(labelText(/** @type {Node} */ (nodeListItem(labels, 0))));
      if (text !== '') return text;
    }
    const aria = getAttribute(element, 'aria-description');
    return aria !== null && aria !== '' ? aria : '';
  }

  /** @param {string | null} text */
  function numberOf(text) {
    if (text === null || text === '') return null;
    const value = +text;
    return value === value && value !== Infinity && value !== -Infinity ? value : null;
  }

  /** The options of a select as the schema's anyOf and enum.
   *  @param {Element} select */
  function optionsOf(select) {
    const options = selectOptions(select);
    /** @type {unknown[]} */
    const anyOf = newArray();
    /** @type {string[]} */
    const values = newArray();
    for (let i = 0; i < collectionLength(options); i++) {
      const option = /** @type {Element} */ (collectionItem(options, i));
      const entry = newObject();
      entry.type = 'string';
      entry.const = optionValue(option);
      entry.title = optionText(option);
      append(anyOf, entry);
      append(values, optionValue(option));
    }
    return { anyOf, values };
  }

  /**
   * One control's parameter, or null for a control that is none (a button, a hidden or
   * disabled or read-only control, a file).
   * @param {Element} element
   * @returns {FormParam | null}
   */
  function paramOf(element) {
    const tag = localNameOf(element);
    if (tag !== 'input' && tag !== 'select' && tag !== 'textarea') return null;
    if (matches(element, ':disabled')) return null;
    if (tag !== 'select' && getAttribute(element, 'readonly') !== null) return null;
    const schema = newObject();
    if (tag === 'select') {
      const { anyOf, values } = optionsOf(element);
      if (getAttribute(element, 'multiple') !== null) {
        const items = newObject();
        items.type = 'string';
        items.anyOf = anyOf;
        items.enum = values;
        schema.type = 'array';
        schema.items = items;
        schema.uniqueItems = true;
        return { kind: 'choices', controls: [element], schema, choices: values };
      }
      schema.type = 'string';
      schema.anyOf = anyOf;
      schema.enum = values;
      return { kind: 'choice', controls: [element], schema, choices: values };
    }
    const type = tag === 'textarea' ? 'textarea' : inputType(element);
    if (includes(NOT_INPUTS, type)) return null;
    if (type === 'checkbox') {
      schema.type = 'boolean';
      return { kind: 'boolean', controls: [element], schema, choices: [] };
    }
    if (type === 'number' || type === 'range') {
      schema.type = 'number';
      const min = numberOf(getAttribute(element, 'min')) ?? (type === 'range' ? 0 : null);
      const max = numberOf(getAttribute(element, 'max')) ?? (type === 'range' ? 100 : null);
      if (min !== null) schema.minimum = min;
      if (max !== null) schema.maximum = max;
      const step = getAttribute(element, 'step');
      if (step === null || collapseSpace(step) !== 'any') {
        const size = numberOf(step);
        schema.multipleOf = size !== null && size > 0 ? size : 1;
      }
      return { kind: 'number', controls: [element], schema, choices: [] };
    }
    schema.type = 'string';
    if (type === 'date') schema.format = 'date';
    else if (FORMATS[type] !== undefined) schema.format = FORMATS[type];
    const pattern = getAttribute(element, 'pattern');
    if (pattern !== null && type !== 'textarea') schema.pattern = pattern;
    return { kind: 'text', controls: [element], schema, choices: [] };
  }

  /**
   * A form's parameters, in the order of its controls: a name two controls share (radios
   * apart) is no parameter at all, as natively.
   * @param {Element} form
   */
  function formParams(form) {
    /** @type {Record<string, FormParam | null>} */
    const params = objectCreate(null);
    /** @type {string[]} */
    const order = [];
    /** @type {string[]} */
    const required = [];
    const elements = formElements(form);
    for (let i = 0; i < collectionLength(elements); i++) {
      const element = /** @type {Element} */ (collectionItem(elements, i));
      const name = getAttribute(element, 'name') ?? '';
      const radio = localNameOf(element) === 'input' && inputType(element) === 'radio';
      if (radio) {
        if (matches(element, ':disabled')) continue;
        let param = params[name];
        if (param === undefined) {
          const schema = newObject();
          schema.type = 'string';
          schema.anyOf = newArray();
          schema.enum = newArray();
          param = { kind: 'radio', controls: [], schema, choices: [] };
          params[name] = param;
          append(order, name);
        }
        if (param === null || param.kind !== 'radio') { params[name] = null; continue; }
        const entry = newObject();
        entry.type = 'string';
        entry.const = inputValue(element);
        append(/** @type {unknown[]} */ (param.schema.anyOf), entry);
        append(/** @type {string[]} */ (param.schema.enum), inputValue(element));
        append(param.choices, inputValue(element));
        append(param.controls, element);
        if (getAttribute(element, 'required') !== null && !includes(required, name)) append(required, name);
        continue;
      }
      const param = paramOf(element);
      if (param === null) continue;
      if (params[name] !== undefined) { params[name] = null; continue; }
      const description = describeControl(element, localNameOf(element));
      if (param.schema.format === 'date') param.schema.description = description === '' ? DATE_NOTE : `${description} (${DATE_NOTE})`;
      else if (description !== '') param.schema.description = description;
      params[name] = param;
      append(order, name);
      if (getAttribute(element, 'required') !== null) append(required, name);
    }
    return { params, order, required };
  }

  /** @param {Element} form */
  function synthesiseSchema(form) {
    const { params, order, required } = formParams(form);
    const properties = newObject();
    for (let i = 0; i < order.length; i++) {
      const param = params[order[i]];
      if (param) properties[order[i]] = param.schema;
    }
    /** @type {string[]} */
    const needed = newArray();
    for (let i = 0; i < required.length; i++) if (params[required[i]]) append(needed, required[i]);
    const schema = newObject();
    schema.type = 'object';
    schema.properties = properties;
    schema.required = needed;
    return stringify(schema);
  }

  /** Forms registered as tools in this document, by form. */
  /** @type {WeakMap<object, ToolRecord>} */
  const formRecords = new NativeWeakMap();
  /** @type {ToolRecord[]} */
  let formTools = [];
  const noExecute = () => undefined;

  /** Brings this document's form tools up to date with its forms: a form whose tool changed
   *  (name, description or schema) is unregistered and registered again, as natively.
   *  @param {Local} local */
  function syncForms(local) {
    if (!isActive(local)) return;
    const forms = documentForms(local.document);
    /** @type {Array<{ form: Element, name: string, description: string, schemaJSON: string }>} */
    const wanted = [];
    for (let i = 0; i < collectionLength(forms); i++) {
      const form = /** @type {Element} */ (collectionItem(forms, i));
      const name = getAttribute(form, 'toolname');
      const description = getAttribute(form, 'tooldescription');
      if (name === null || description === null || !validToolName(name)) continue; // an empty description is one
      append(wanted, { form, name, description, schemaJSON: synthesiseSchema(form) });
    }
    /** @type {ToolRecord[]} */
    const kept = [];
    for (let i = 0; i < formTools.length; i++) {
      const record = formTools[i];
      let still = false;
      for (let j = 0; j < wanted.length; j++) {
        const w = wanted[j];
        if (w.form === record.form && w.name === record.name && w.description === record.description && w.schemaJSON === record.schemaJSON) still = true;
      }
      if (still) { append(kept, record); continue; }
      if (local.tools[record.name] === record) delete local.tools[record.name];
      hub.notifyChange(null);
    }
    formTools = kept;
    for (let j = 0; j < wanted.length; j++) {
      const w = wanted[j];
      const current = weakGet(formRecords, w.form);
      if (current !== undefined && includes(formTools, current)) continue;
      if (liveRecord(local, w.name) !== undefined) continue; // the name is taken: first come
      /** @type {ToolRecord} */
      const record = {
        local, name: w.name, title: '', description: w.description, annotations: undefined,
        schemaJSON: w.schemaJSON, listed: true, execute: noExecute, signal: undefined, exposedTo: [], form: w.form,
      };
      local.tools[w.name] = record;
      weakSet(formRecords, w.form, record);
      append(formTools, record);
      hub.notifyChange(null);
    }
  }

  /** Forms are looked at a task after the document changed (natively a form appended is
   *  not listed in the task that appended it), once however many changes there were. The
   *  document is watched only for what can make or unmake a form tool (nodes coming and
   *  going, the two attributes); a form that is a tool is watched whole (its controls, their
   *  attributes and labels' text), so the console's own rendering costs next to nothing.
   *  @param {Local} local */
  function watchForms(local) {
    let asked = false;
    /** @type {WeakMap<object, boolean>} */
    const watched = new NativeWeakMap();
    const look = () => {
      if (asked) return;
      if (formTools.length === 0 && !anyToolForm(local)) return;
      asked = true;
      hub.enqueue(() => {
        asked = false;
        syncForms(local);
        for (let i = 0; i < formTools.length; i++) {
          const form = /** @type {Element} */ (formTools[i].form);
          if (weakGet(watched, form) === undefined) {
            weakSet(watched, form, true);
            observe(onForms, form, plain({ childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: WATCHED }));
          }
        }
      });
    };
    const onForms = new NativeMutationObserver(look);
    observe(new NativeMutationObserver(look), local.document, plain({ childList: true, subtree: true, attributes: true, attributeFilter: ['toolname', 'tooldescription'] }));
  }

  /** @param {Local} local */
  function anyToolForm(local) {
    const forms = documentForms(local.document);
    for (let i = 0; i < collectionLength(forms); i++) {
      if (getAttribute(/** @type {Element} */ (collectionItem(forms, i)), 'toolname') !== null) return true;
    }
    return false;
  }

  // --- calling a form tool ----------------------------------------------------------------

  /** Submit events an agent's call caused or is waiting for, and what respondWith gave. */
  /** @type {WeakMap<object, { call: Call, responded: boolean, response: unknown }>} */
  const agentSubmits = new NativeWeakMap();
  /** A form waiting for the person to submit it, by form. */
  /** @type {WeakMap<object, Call>} */
  const waitingForms = new NativeWeakMap();

  /** @param {unknown} value */
  const shown = (value) => stringify(value) ?? `${value}`;

  /**
   * Whether `value` fits the parameter; a text parameter takes a string.
   * @param {FormParam} param
   * @param {unknown} value
   */
  function fits(param, value) {
    switch (param.kind) {
      case 'text': return typeof value === 'string';
      case 'number': return typeof value === 'number' && value === value && value !== Infinity && value !== -Infinity;
      case 'boolean': return typeof value === 'boolean';
      case 'choice': case 'radio': return typeof value === 'string' && includes(param.choices, value);
      case 'choices': {
        if (!isObject(value) || typeof value.length !== 'number') return false;
        for (let i = 0; i < value.length; i++) if (typeof value[i] !== 'string' || !includes(param.choices, value[i])) return false;
        return true;
      }
      default: return false;
    }
  }

  /**
   * @param {Element} control
   * @param {string} type
   */
  function fire(control, type) {
    dispatch(control, new NativeEvent(type, plain({ bubbles: true })));
  }

  /**
   * @param {FormParam} param
   * @param {unknown} value (it fits)
   */
  function fill(param, value) {
    const control = param.controls[0];
    switch (param.kind) {
      case 'text':
        if (localNameOf(control) === 'textarea') setTextAreaValue(control, value);
        else setInputValue(control, value);
        break;
      case 'number': setInputValue(control, `${value}`); break;
      case 'boolean': setChecked(control, value); break;
      case 'choice': case 'choices': {
        const options = selectOptions(control);
        const wanted = param.kind === 'choice' ? [value] : /** @type {unknown[]} */ (value);
        for (let i = 0; i < collectionLength(options); i++) {
          const option = /** @type {Element} */ (collectionItem(options, i));
          let chosen = false;
          for (let j = 0; j < wanted.length; j++) if (wanted[j] === optionValue(option)) chosen = true;
          if (chosen || param.kind === 'choices') setSelected(option, chosen);
        }
        break;
      }
      case 'radio':
        for (let i = 0; i < param.controls.length; i++) {
          if (inputValue(param.controls[i]) === value) { setChecked(param.controls[i], true); fire(param.controls[i], 'input'); fire(param.controls[i], 'change'); }
        }
        return;
      default: return;
    }
    fire(control, 'input');
    fire(control, 'change');
  }

  /** The form's controls that would stop it being submitted, as Chromium 156 words it. */
  /** @param {Element} form */
  function invalidControls(form) {
    let said = '';
    const elements = formElements(form);
    for (let i = 0; i < collectionLength(elements); i++) {
      const element = /** @type {Element} */ (collectionItem(elements, i));
      const read = validationMessageOf[localNameOf(element)];
      const message = read === undefined ? '' : read(element);
      if (message !== '') said += `${getAttribute(element, 'name') ?? ''}: ${message}. `;
    }
    return said;
  }

  /** @param {Element} form */
  function hasSubmitButton(form) {
    const elements = formElements(form);
    for (let i = 0; i < collectionLength(elements); i++) {
      const element = /** @type {Element} */ (collectionItem(elements, i));
      if (matches(element, 'button[type=submit i], button:not([type]), button[type=""], input[type=submit i], input[type=image i]')) return true;
    }
    return false;
  }

  /**
   * First step of a call to a form tool (in place of running a script's execute): check the
   * input against the form, fill it in, then submit it or wait for the person.
   * @param {Call} call
   * @param {ToolRecord} record
   * @param {Record<string, unknown>} input
   */
  function runForm(call, record, input) {
    const form = /** @type {Element} */ (record.form);
    const { params } = formParams(form);
    const keys = ownKeys(input);
    for (let i = 0; i < keys.length; i++) {
      const key = /** @type {string} */ (keys[i]);
      const param = params[key];
      if (!param) {
        finish(call, () => { throw domError('UnknownError', `Input contains a parameter "${key}" but there is no such parameter for the tool`); });
        return;
      }
      if (!fits(param, input[key])) {
        finish(call, () => { throw domError('UnknownError', `Invalid value ${shown(input[key])} for parameter ${key}`); });
        return;
      }
    }
    const autosubmit = getAttribute(form, 'toolautosubmit') !== null;
    if (!autosubmit && !hasSubmitButton(form)) {
      finish(call, () => { throw domError('UnknownError', 'No submit button was found, but for a form without `toolautosubmit`, there must be a submit button'); });
      return;
    }
    call.started = true;
    call.controller = new NativeAbortController();
    for (let i = 0; i < keys.length; i++) fill(/** @type {FormParam} */ (params[/** @type {string} */ (keys[i])]), input[/** @type {string} */ (keys[i])]);
    weakSet(waitingForms, form, call);
    if (!autosubmit) return;
    const invalid = invalidControls(form);
    if (invalid !== '') {
      weakDelete(waitingForms, form);
      toolSettledWith(call, () => { throw domError('UnknownError', `Form validation failed: ${invalid}`); });
      return;
    }
    requestSubmit(form);
  }

  /** @param {Call} call @param {() => string | null} outcome */
  function toolSettledWith(call, outcome) {
    call.toolSettled = true;
    finish(call, outcome);
  }

  /** Every submit event is seen here first (a capture listener on the window, added before
   *  any page script): one for a form an agent's call is waiting on is the agent's. What
   *  the page did with it is read a task later, when its dispatch is long over.
   *  @param {Event} event */
  function onSubmit(event) {
    const form = eventTarget(event);
    const call = weakGet(waitingForms, form);
    if (call === undefined || call.done.settled) return;
    weakDelete(waitingForms, form);
    const state = { call, responded: false, response: undefined };
    weakSet(agentSubmits, event, state);
    hub.enqueue(() => {
      if (call.done.settled) return;
      if (state.responded) {
        const response = new NativePromise((resolve) => resolve(state.response));
        promiseThen(response,
          (value) => toolFinished(call, () => value),
          () => toolSettledWith(call, () => { throw domError('UnknownError', 'respondWith promise was rejected'); }));
        return;
      }
      if (defaultPrevented(event)) {
        toolSettledWith(call, () => { throw domError('UnknownError', "The site has a programming error: it called preventDefault() on the 'submit' event, without also calling respondWith() with the tool result"); });
        return;
      }
      toolSettledWith(call, () => null); // the form was submitted: the page goes on
    });
  }
  addListener(win, 'submit', onSubmit, CAPTURE);

  const submitAccessors = {
    get agentInvoked() { return weakGet(agentSubmits, this) !== undefined; },
    /** @param {unknown} response */
    respondWith(response) {
      const state = weakGet(agentSubmits, this);
      if (state === undefined) throw domError('InvalidStateError', "Failed to execute 'respondWith' on 'SubmitEvent': You can only call respondWith on an submit event that has agentInvoked == true.");
      if (eventPhase(this) === 0) throw domError('InvalidStateError', "Failed to execute 'respondWith' on 'SubmitEvent': To call respondWith, the event must be currently being dispatched.");
      state.responded = true;
      state.response = response;
    },
  };
  defineProperty(win.SubmitEvent.prototype, 'agentInvoked', {
    get: ownFunction(getOwnPropertyDescriptor(submitAccessors, 'agentInvoked')?.get), enumerable: true, configurable: true,
  });
  defineProperty(win.SubmitEvent.prototype, 'respondWith', {
    value: ownFunction(submitAccessors.respondWith), writable: true, enumerable: true, configurable: true,
  });

  watchForms(here);

  // ---------------------------------------------------------------------------------------
  // registerTool()

  /** The steps of an operation, given the document and the arguments it was called with.
   *  @typedef {(local: Local, args: ArrayLike<unknown>) => Promise<unknown>} Steps */

  /** @type {Steps} */
  function registerTool(local, args) {
    const context = "Failed to execute 'registerTool' on 'ModelContext'";
    if (args.length < 1) throw typeError(`${context}: 1 argument required, but only 0 present.`);
    const tool = toModelContextTool(args[0], context);
    const options = toRegisterOptions(args[1], context);
    checkUsable(local);
    const existing = liveRecord(local, tool.name);
    // Chromium 156 names the tool only when a script's tool holds the name, not a form's.
    if (existing !== undefined) throw domError('InvalidStateError', existing.form === undefined ? `Duplicate tool name: ${tool.name}` : 'Duplicate tool name');
    if (tool.name === '' || tool.description === '') throw domError('InvalidStateError', 'The tool name and description must not be empty.');
    if (!validToolName(tool.name)) throw domError('InvalidStateError', `Invalid tool name: ${tool.name}`);
    let schemaJSON;
    if (tool.inputSchema !== undefined) {
      schemaJSON = argumentJSON(tool.inputSchema, SCHEMA_BUDGET, 'registerTool');
      if (schemaJSON === undefined) throw typeError('The inputSchema cannot be serialised to JSON.');
    }
    if (options.signal !== undefined && signalAborted(options.signal)) return rejected(signalReason(options.signal));
    checkOrigins(options.exposedTo, 'exposedTo');
    return addRecord(local, tool, options, schemaJSON);
  }

  /**
   * @param {Local} local
   * @param {ToolInit} tool
   * @param {{ exposedTo: string[] | undefined, signal: AbortSignal | undefined }} options
   * @param {string | undefined} schemaJSON
   * @returns {Promise<undefined>}
   */
  function addRecord(local, tool, options, schemaJSON) {
    /** @type {ToolRecord} */
    const record = {
      local,
      name: tool.name,
      title: tool.title === undefined ? '' : tool.title,
      description: survivesUTF8(tool.description) ? tool.description : '',
      annotations: tool.annotations,
      schemaJSON,
      // A schema that is not a JSON object or array keeps the tool out of getTools(), as natively.
      listed: schemaJSON === undefined || isObject(parseJSON(schemaJSON)),
      execute: tool.execute,
      signal: options.signal,
      exposedTo: options.exposedTo ?? [],
    };
    local.tools[tool.name] = record;
    /** @type {Deferred<undefined>} */
    const done = deferred();
    const signal = options.signal;
    if (signal !== undefined) {
      addListener(signal, 'abort', () => {
        if (local.tools[record.name] === record) delete local.tools[record.name];
        done.fail(signalReason(signal));
        hub.notifyChange(null);
      }, ABORT_STEPS);
    }
    hub.notifyChange(() => done.fulfil(undefined));
    return done.promise;
  }

  /** @param {Local} local */
  function checkUsable(local) {
    if (!isActive(local)) throw domError('InvalidStateError', 'The document is not fully active.');
    if (!local.allowed) throw domError('NotAllowedError', 'Access to the feature "tools" is disallowed by permissions policy.');
  }

  // ---------------------------------------------------------------------------------------
  // getTools()

  /** @type {Steps} */
  function getTools(local, args) {
    const context = "Failed to execute 'getTools' on 'ModelContext'";
    const options = toGetToolsOptions(args[0], context);
    checkUsable(local);
    checkOrigins(options.fromOrigins, 'fromOrigins');
    // Only same-origin documents share a hub, so every tool in it is visible here.
    /** @type {ToolRecord[]} */
    const records = [];
    const locals = hub.treeOrder();
    for (let i = 0; i < locals.length; i++) {
      const list = liveRecords(locals[i]);
      for (let j = 0; j < list.length; j++) if (list[j].listed) append(records, list[j]);
    }
    sortByName(records);
    /** @type {Deferred<unknown[]>} */
    const done = deferred();
    hub.enqueue(() => {
      /** @type {unknown[]} */
      const out = newArray();
      for (let i = 0; i < records.length; i++) append(out, makeEntry(records[i]));
      done.fulfil(out);
    });
    return done.promise;
  }

  /**
   * A stable insertion sort by name (code units), without Array.prototype.sort.
   * @param {ToolRecord[]} list
   */
  function sortByName(list) {
    for (let i = 1; i < list.length; i++) {
      const item = list[i];
      let j = i - 1;
      while (j >= 0 && list[j].name > item.name) { list[j + 1] = list[j]; j--; }
      list[j + 1] = item;
    }
  }

  // ---------------------------------------------------------------------------------------
  // executeTool()

  /** @type {Steps} */
  function executeTool(local, args) {
    const context = "Failed to execute 'executeTool' on 'ModelContext'";
    if (args.length < 1) throw typeError(`${context}: 1 argument required, but only 0 present.`);
    const tool = toRegisteredTool(args[0], context);
    const input = args[1] === undefined ? {} : toObject(args[1], context);
    const options = toSignalOptions(args[2], context, 'ModelContextExecuteToolOptions');
    checkUsable(local);
    return startExecution(tool, input, options.signal);
  }

  /**
   * @param {{ name: string, origin: string, window: Window }} tool
   * @param {object} input
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<string | null>}
   */
  function startExecution(tool, input, signal) {
    const url = parseURL(tool.origin);
    const origin = url === null ? 'null' : urlOrigin(url);
    if (origin === 'null') throw domError('NotSupportedError', 'The tool origin is not a valid origin.');
    const target = hub.localOfWindow(tool.window);
    if (windowClosed(tool.window) || (target !== undefined && !isActive(target))) {
      throw domError('InvalidStateError', "The tool's window is not fully active.");
    }
    const inputJSON = argumentJSON(input, INPUT_BUDGET, 'executeTool');
    if (inputJSON === undefined) throw typeError('The input cannot be serialised to JSON.');
    if (signal !== undefined && signalAborted(signal)) return rejected(signalReason(signal));
    /** @type {Call} */
    const call = { done: deferred(), signal, target, name: tool.name, origin, inputJSON, started: false, toolSettled: false, controller: null };
    if (target !== undefined) hub.track(call);
    if (signal !== undefined) {
      const onAbort = () => cancelExecution(call);
      call.onAbort = onAbort;
      addListener(signal, 'abort', onAbort, ABORT_STEPS);
    }
    hub.enqueue(() => runTool(call), () => announce(call, 'activated'));
    return call.done.promise;
  }

  /**
   * First step, in a task of its own: find the tool and call it.
   * @param {Call} call
   */
  function runTool(call) {
    // A frame removed since the call began takes its tools with it: natively the call fails
    // without running the tool (frames.removedBeforeToolRuns).
    if (call.target !== undefined && !isActive(call.target)) {
      finish(call, () => { throw domError('UnknownError', "The tool's document went away."); });
      return;
    }
    const target = call.target;
    const record = target === undefined ? undefined : liveRecord(target, call.name);
    if (target === undefined || record === undefined || record.local.origin !== call.origin) {
      finish(call, () => { throw domError('UnknownError', 'The tool is not registered.'); });
      return;
    }
    const toolRealm = hub.realmOfFunction(record.execute) ?? target.realm;
    const input = toolRealm.parse(call.inputJSON);
    call.record = record;
    if (!isObject(input)) {
      // Natively the tool still counts as activated; it just never gets an input to run with.
      finish(call, () => { throw domError('UnknownError', 'The input is not a JSON object.'); });
      return;
    }
    if (record.form !== undefined) {
      runForm(call, record, input);
      return;
    }
    call.started = true;
    const controller = toolRealm.makeController();
    call.controller = controller;
    let result;
    try {
      result = apply(record.execute, undefined, [input, toolRealm.makeClient(controller)]);
    } catch (err) {
      toolFinished(call, () => { throw err; });
      return;
    }
    /** @type {Promise<unknown>} */
    const settled = new NativePromise((resolve) => resolve(result));
    promiseThen(settled, (value) => toolFinished(call, () => value), (/** @type {unknown} */ err) => toolFinished(call, () => { throw err; }));
  }

  /**
   * Second step, after the first step's microtasks: toolactivated at the tool's document.
   * @param {Call} call
   * @param {'activated' | 'cancelled'} what
   */
  function announce(call, what) {
    if (!call.record) return;
    const local = call.record.local;
    if (!isActive(local)) return;
    const EventInterface = what === 'activated' ? local.realm.ToolActivatedEvent : local.realm.ToolCancelEvent;
    dispatch(local.mc, new EventInterface(what === 'activated' ? 'toolactivated' : 'toolcancel', plain({ toolName: call.name })));
  }

  /**
   * @param {Call} call
   * @param {() => unknown} outcome what the tool gave, or throws what it threw
   */
  function toolFinished(call, outcome) {
    call.toolSettled = true;
    /** @type {string | null} */
    let serialised = null;
    let failed = false;
    try {
      serialised = serialiseResult(outcome());
    } catch {
      failed = true;
    }
    finish(call, () => {
      if (failed) throw domError('UnknownError', 'Tool was executed but the invocation failed.');
      return serialised;
    });
  }

  /**
   * The caller hears the outcome a task later, as from the browser.
   * @param {Call} call
   * @param {() => string | null} outcome the result, or throws the failure
   */
  function finish(call, outcome) {
    hub.enqueue(() => settle(call, outcome));
  }

  /**
   * @param {Call} call
   * @param {() => string | null} outcome
   */
  function settle(call, outcome) {
    if (call.signal !== undefined && call.onAbort !== undefined) removeListener(call.signal, 'abort', call.onAbort);
    hub.untrack(call);
    try {
      call.done.fulfil(outcome());
    } catch (err) {
      call.done.fail(err);
    }
  }

  /** This document is being unloaded (its frame removed, or navigated from). Natively a call
   *  into it whose tool has not settled by then fails with UnknownError, even if the tool
   *  settles a moment later, and its tool's signal is not aborted (frames.removedDuringCall).
   *  Which calls is decided now; whether the document really went is decided a task later (a
   *  page can dispatch a pagehide of its own, and a page entering the back-forward cache
   *  comes back). */
  function onPageHide() {
    const lost = hub.callsInto(here);
    if (lost.length === 0) return;
    hub.enqueue(() => {
      if (isActive(here)) return;
      // Settled here, not a task later: a result the tool gave after the unload is queued
      // behind this step and must not win.
      for (let i = 0; i < lost.length; i++) {
        settle(lost[i], () => { throw domError('UnknownError', "The tool's document went away."); });
      }
    });
  }

  /**
   * The caller's signal aborted: it hears the reason now; a running tool is told later, if
   * it has not settled by then. A tool that aborts its caller's signal and returns in the
   * same task (or a microtask after) has settled first: as natively, its signal is not
   * aborted and no toolcancel fires (events.execute.abortsCallerSignal.*).
   * @param {Call} call
   */
  function cancelExecution(call) {
    if (call.done.settled || call.signal === undefined) return;
    hub.untrack(call);
    call.done.fail(signalReason(call.signal));
    if (!call.started || call.toolSettled) return;
    let told = false;
    hub.enqueue(
      () => {
        if (call.toolSettled) return;
        told = true;
        controllerAbort(call.controller, domError('AbortError', 'The tool call was cancelled.'));
      },
      () => { if (told) announce(call, 'cancelled'); },
    );
  }

  // ---------------------------------------------------------------------------------------
  // Event handler attributes

  /**
   * @param {Local} local
   * @param {string} type
   */
  function getHandler(local, type) {
    return local.handlers[type]?.value ?? null;
  }

  /**
   * @param {Local} local
   * @param {string} type
   * @param {unknown} value
   */
  function setHandler(local, type, value) {
    const slot = local.handlers[type];
    if (!isObject(value)) {
      if (slot) removeListener(local.mc, type, slot.listener);
      local.handlers[type] = undefined;
      return;
    }
    if (slot) {
      slot.value = value; // the handler keeps its place among the listeners
      return;
    }
    /** @type {HandlerSlot} */
    const fresh = {
      value,
      listener(event) {
        const handler = fresh.value;
        if (typeof handler !== 'function') return;
        if (apply(handler, this, [event]) === false) preventDefault(event);
      },
    };
    local.handlers[type] = fresh;
    addListener(local.mc, type, fresh.listener);
  }

  // ---------------------------------------------------------------------------------------
  // The interface: brand checks, then the steps above

  /**
   * @param {unknown} self
   * @param {string} method
   */
  function localOf(self, method) {
    const local = hub.localOfContext(self);
    if (local === undefined) throw typeError(`Failed to execute '${method}' on 'ModelContext': Illegal invocation`);
    return local;
  }

  /**
   * A promise-returning operation: every exception becomes a rejected promise.
   * @param {unknown} self
   * @param {string} method
   * @param {Steps} steps
   * @param {ArrayLike<unknown>} args
   */
  function operation(self, method, steps, args) {
    try {
      return steps(localOf(self, method), args);
    } catch (err) {
      return rejected(err);
    }
  }

  // The declared parameters give each method the length WebIDL does (its required
  // arguments); the steps read `arguments`, so a parameter itself is not used.
  const methods = {
    /** @param {unknown} _tool */
    executeTool(_tool) { return operation(this, 'executeTool', executeTool, arguments); },
    getTools() { return operation(this, 'getTools', getTools, arguments); },
    /** @param {unknown} _tool */
    registerTool(_tool) { return operation(this, 'registerTool', registerTool, arguments); },
  };

  /** @param {string} type */
  const handlerAccessor = (type) => {
    const accessors = {
      /** @returns {object | null} */
      get [`on${type}`]() { return getHandler(localOfAttribute(this), type); },
      set [`on${type}`](/** @type {unknown} */ value) { setHandler(localOfAttribute(this), type, value); },
    };
    return getOwnPropertyDescriptor(accessors, `on${type}`);
  };

  /** @param {unknown} self */
  function localOfAttribute(self) {
    const local = hub.localOfContext(self);
    if (local === undefined) throw typeError('Illegal invocation');
    return local;
  }

  finishPrototype(ModelContext, [
    ['ontoolchange', handlerAccessor('toolchange')],
    ['ontoolactivated', handlerAccessor('toolactivated')],
    ['ontoolcancel', handlerAccessor('toolcancel')],
    ['executeTool', { value: methods.executeTool, writable: true }],
    ['getTools', { value: methods.getTools, writable: true }],
    ['registerTool', { value: methods.registerTool, writable: true }],
  ], 'ModelContext');

  const documentAccessor = {
    get modelContext() {
      try {
        documentView(this);
      } catch {
        throw typeError('Illegal invocation');
      }
      return localForDocument(/** @type {Document} */ (/** @type {unknown} */ (this))).mc; // its getter accepted it
    },
  };
  defineProperty(win.Document.prototype, 'modelContext', {
    get: ownFunction(getOwnPropertyDescriptor(documentAccessor, 'modelContext')?.get),
    enumerable: true,
    configurable: true,
  });
  /** @type {Array<[string, Function]>} */
  const interfaceObjects = [['ModelContext', ModelContext], ['ToolActivatedEvent', ToolActivatedEvent], ['ToolCancelEvent', ToolCancelEvent]];
  for (let i = 0; i < interfaceObjects.length; i++) {
    defineProperty(win, interfaceObjects[i][0], { value: interfaceObjects[i][1], writable: true, enumerable: false, configurable: true });
  }

  // ---------------------------------------------------------------------------------------
  // Frames whose about:blank document QtWebEngine's script does not reach in time

  /** An iframe inserted with no src (or src="about:blank") fires its load event while being
   *  inserted, before the inserting script goes on. If its document has no shim by then
   *  (Qt's comes a task later, if at all), it gets this one: natively it has modelContext
   *  from the start (frames.aboutBlank.*). A frame that loaded a page has Qt's already.
   *  @param {Event} event */
  function adoptFrame(event) {
    let child;
    let doc;
    try {
      child = frameContentWindow(eventTarget(event));
      if (child === null) return;
      doc = windowDocument(child);
    } catch {
      return; // not an iframe (an image, a script), or another origin's
    }
    // A same-origin frame's window is a global like this one, with built-ins of its own.
    if (hub.localOfDocument(doc) === undefined) install(/** @type {Window & typeof globalThis} */ (child), own);
  }
  // Load events do not reach the window: the document's capture phase is the first to see
  // them, and this listener, added before any page script, the first there.
  addListener(windowDocument(win), 'load', adoptFrame, CAPTURE);

  // The shell's relay (injected into the main frame right after this script, before any page
  // script) takes this hook and deletes it: calls it makes are an agent's. Native Chromium
  // treats an agent's call and a page's alike (toolcancel fires when either cancels), so the
  // hook runs the same steps as executeTool() on the top document, without a page's `this`.
  if (isTop) {
    defineProperty(win, AGENT_HOOK, {
      configurable: true,
      value: freeze({
        /**
         * @param {unknown} tool
         * @param {unknown} input
         * @param {unknown} options
         */
        execute(tool, input, options) {
          return operation(here.mc, 'executeTool', executeTool, [tool, input, options]);
        },
      }),
    });
  }
})(window);
