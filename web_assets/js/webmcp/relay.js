// understudy-webmcp-relay: the main-world half of the shell's bridge. Injected by the desktop
// shell right after the shim, at document creation, before any script of the page runs.
//
// The isolated-world bridge cannot reach main-world objects, so it hands this relay one end
// of a MessageChannel (window.postMessage with a transferred port, taken here before any page
// script can listen). From then on every message between the shell and the console travels
// on that private port: a page script cannot read the shell's requests, answer them, or send
// anything in the console's name. The console installs its handler once, at boot
// (js/shell_api.js); this relay hands it a private send function in return. Everything it
// uses is taken here at creation, so a script that later replaces JSON.stringify,
// dispatchEvent or the like changes nothing on this path.
//
// It holds no privilege: the shell treats everything the console says as a person's request,
// and decides what agents see and what happened to the queue from what it holds itself. The
// relay also reports what the page registered with WebMCP (diagnostics; never what agents see).
//
// It never turns anything into JSON itself: JSON.stringify would look up toJSON on what it
// sends, and a page script can put one on Object.prototype and read or rewrite every message.
// It posts plain objects (a structured clone, which reads own data only) and the bridge, in
// its isolated world, writes the JSON.
(() => {
  'use strict';
  const HANDSHAKE = 'understudy-bridge:port';
  const AGENT_HOOK = Symbol.for('understudy.webmcp.agent');
  const { parse } = JSON;
  const clone = structuredClone;
  const { defineProperty, isFrozen } = Object;
  const call = Function.prototype.call.bind(Function.prototype.call);
  /**
   * A built-in accessor's getter or setter, taken now (these prototypes always have it).
   * @param {object} proto
   * @param {string} key
   * @param {'get' | 'set'} [which]
   * @returns {Function}
   */
  const accessorOf = (proto, key, which = 'get') => /** @type {Function} */ (Object.getOwnPropertyDescriptor(proto, key)?.[which]);
  const listen = EventTarget.prototype.addEventListener;
  const stopNow = Event.prototype.stopImmediatePropagation;
  const dataOf = accessorOf(MessageEvent.prototype, 'data');
  const portsOf = accessorOf(MessageEvent.prototype, 'ports');
  const sourceOf = accessorOf(MessageEvent.prototype, 'source');
  const post = MessagePort.prototype.postMessage;
  const startPort = MessagePort.prototype.start;
  const Controller = AbortController;
  const abort = AbortController.prototype.abort;
  const signalOf = accessorOf(AbortController.prototype, 'signal');
  const then = Promise.prototype.then;
  const Str = String;
  const slice = String.prototype.slice;
  const arrayPush = Array.prototype.push;
  const setOnMessage = accessorOf(MessagePort.prototype, 'onmessage', 'set');
  const PromiseCtor = Promise;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const consoleError = console.error;
  const setTimer = setTimeout;
  const clock = performance;
  const clockNow = Performance.prototype.now;
  // WebMCP's own functions, as they are now: a page may replace them later.
  const contextOf = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get ?? null;
  const ContextProto = typeof ModelContext === 'function' ? ModelContext.prototype : null;
  const getTools = ContextProto ? ContextProto.getTools : null;
  const readyStateOf = accessorOf(Document.prototype, 'readyState');
  const theDocument = document;

  // The shim leaves a hook for an in-page agent; nothing uses it here, so nothing keeps it.
  // The window, with the hook the shim may have left on it (a symbol key: no DOM type has it).
  const hooked = /** @type {Window & { [AGENT_HOOK]?: object }} */ (window);
  const agent = hooked[AGENT_HOOK] ?? null;
  if (agent) delete hooked[AGENT_HOOK];

  /** @type {MessagePort | null} */
  let port = null;
  /** @type {object[]} */
  const early = []; // what the console sent before the bridge's port arrived

  /**
   * A message to the shell: a push the console makes, or the response to one of its requests.
   * @param {string} kind
   * @param {unknown} body
   */
  function send(kind, body) {
    let message;
    try {
      message = clone({ kind, body });
    } catch {
      // Something that cannot be copied (a function, say): said as a failure, not sent raw.
      message = { kind: 'push', body: { event: 'unsendable', kind: Str(kind) } };
    }
    if (port) call(post, port, message);
    else call(arrayPush, early, message);
  }

  // The console installs its handler once, at boot. This property takes the first frozen
  // handler and keeps it: a later script cannot swap in another. The handler's link() gets
  // the private send function, once.
  /**
   * The console's handler (js/shell_api.js): it answers the shell's requests, and is given
   * the function it pushes with.
   * @typedef {{ handle(op: string, request: object, signal: AbortSignal): unknown, link?: (send: (body: unknown) => void) => void }} ConsoleHandler
   */
  /** @type {ConsoleHandler | null} */
  let installed = null;
  defineProperty(window, 'understudyShell', {
    configurable: false,
    enumerable: false,
    get: () => installed,
    set: (/** @type {ConsoleHandler | null | undefined} */ value) => {
      if (installed !== null || !value || typeof value.handle !== 'function' || !isFrozen(value)) return;
      installed = value;
      if (typeof value.link === 'function') value.link((/** @type {unknown} */ body) => send('push', body));
    },
  });

  const calls = new MapCtor(); // call id -> AbortController

  /** A request's id, as the shell numbers them. @typedef {number | string} RequestId */

  /**
   * @param {RequestId} id
   * @param {unknown} value
   */
  function respond(id, value) {
    send('response', { id, ok: true, value: value === undefined ? null : value });
  }

  /**
   * @param {RequestId} id
   * @param {unknown} err whatever the console threw (an Error, a string, anything)
   */
  function refuse(id, err) {
    // Reading a member of a primitive gives undefined, so any value may be read as this.
    const said = /** @type {{ name?: unknown, message?: unknown } | null | undefined} */ (err);
    const error = { name: call(slice, Str(said?.name ?? 'Error'), 0, 64), message: call(slice, Str(said?.message ?? err), 0, 500) };
    send('response', { id, ok: false, error });
  }

  /** @param {unknown} text a request from the shell, as JSON */
  function onRequest(text) {
    let request;
    try {
      request = parse(Str(text));
    } catch {
      return;
    }
    const { id, op } = request;
    if (op === 'cancel') {
      const controller = call(mapGet, calls, request.target);
      if (controller) call(abort, controller);
      return;
    }
    const console_ = installed;
    if (!console_) {
      refuse(id, { name: 'NotFoundError', message: 'The console is not ready.' });
      return;
    }
    const controller = new Controller();
    call(mapSet, calls, id, controller);
    const work = new PromiseCtor((/** @type {(value: unknown) => void} */ ok) => ok(console_.handle(Str(op), request, call(signalOf, controller))));
    call(then, work, (/** @type {unknown} */ value) => { call(mapDelete, calls, id); respond(id, value); },
      (/** @type {unknown} */ err) => { call(mapDelete, calls, id); refuse(id, err); });
  }

  call(listen, window, 'message', (/** @type {MessageEvent} */ event) => {
    if (port !== null || call(sourceOf, event) !== window) return;
    const data = call(dataOf, event);
    const ports = call(portsOf, event);
    if (data !== HANDSHAKE || !ports || ports.length !== 1) return;
    call(stopNow, event); // no page script sees the port
    port = ports[0];
    call(setOnMessage, port, (/** @type {MessageEvent} */ message) => onRequest(call(dataOf, message)));
    call(startPort, port);
    for (let i = 0; i < early.length; i += 1) call(post, port, early[i]);
    early.length = 0;
  }, true);

  // Listings are spaced: a change asks for one LIST_GAP ms after the last (at once when there
  // was none lately), and every change until it runs joins it. A page that registers 1,000
  // tools in a loop, awaiting each (a task apiece), gets a few listings instead of one of
  // every tool per tool, which made registering quadratic. The report is for diagnostics, so
  // a moment's delay costs nothing.
  const REPORTED = 200; // bridge/protocol.py PageTools says the same
  const LIST_GAP = 50;
  let listing = false;
  let listAgain = false;
  let asked = false;
  let listedAt = -Infinity;

  function askForListing() {
    if (asked) return;
    asked = true;
    const wait = listedAt + LIST_GAP - call(clockNow, clock);
    call(setTimer, window, () => { asked = false; pushTools(); }, wait > 0 ? wait : 0);
  }

  function pushTools() {
    const context = contextOf ? call(contextOf, theDocument) : null;
    if (!context || !getTools) return;
    if (listing) { listAgain = true; return; }
    listing = true;
    listAgain = false;
    listedAt = call(clockNow, clock);
    let listed;
    try {
      listed = call(getTools, context);
    } catch (err) {
      listing = false;
      call(consoleError, console, 'understudy bridge: could not list tools', err);
      return;
    }
    call(then, listed, (/** @type {Array<{ name: unknown, description: unknown }>} */ list) => {
      // The report is for diagnostics: the first REPORTED tools and how many there are.
      /** @type {Array<{ name: string, description: string }>} */
      const tools = [];
      for (let i = 0; i < list.length && i < REPORTED; i += 1) call(arrayPush, tools, { name: Str(list[i].name), description: Str(list[i].description) });
      send('push', { event: 'tools', tools, total: list.length });
      listing = false;
      if (listAgain) askForListing();
    }, (/** @type {unknown} */ err) => {
      listing = false;
      call(consoleError, console, 'understudy bridge: could not list tools', err);
    });
  }

  // Tells the console that a desktop shell is the authority (it asks the shell instead of
  // deciding anything itself). At document creation there is no <html> element yet.
  const markShell = () => { if (document.documentElement) document.documentElement.dataset.shell = 'desktop'; };
  markShell();
  document.addEventListener('readystatechange', markShell, { once: true });

  function watch() {
    const context = contextOf ? call(contextOf, theDocument) : null;
    if (context) call(listen, context, 'toolchange', askForListing);
    send('push', { event: 'hello', webmcp: agent ? 'bridged' : context ? 'native' : 'degraded' });
    pushTools();
  }
  if (call(readyStateOf, theDocument) === 'loading') call(listen, theDocument, 'DOMContentLoaded', watch, { once: true });
  else watch();
})();
