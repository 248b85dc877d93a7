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
  const listen = EventTarget.prototype.addEventListener;
  const stopNow = Event.prototype.stopImmediatePropagation;
  const dataOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'data').get;
  const portsOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'ports').get;
  const sourceOf = Object.getOwnPropertyDescriptor(MessageEvent.prototype, 'source').get;
  const post = MessagePort.prototype.postMessage;
  const startPort = MessagePort.prototype.start;
  const Controller = AbortController;
  const abort = AbortController.prototype.abort;
  const signalOf = Object.getOwnPropertyDescriptor(AbortController.prototype, 'signal').get;
  const then = Promise.prototype.then;
  const Str = String;
  const slice = String.prototype.slice;
  const arrayPush = Array.prototype.push;
  const setOnMessage = Object.getOwnPropertyDescriptor(MessagePort.prototype, 'onmessage').set;
  const PromiseCtor = Promise;
  const MapCtor = Map;
  const mapGet = Map.prototype.get;
  const mapSet = Map.prototype.set;
  const mapDelete = Map.prototype.delete;
  const consoleError = console.error;
  const setTimer = setTimeout;
  // WebMCP's own functions, as they are now: a page may replace them later.
  const contextOf = Object.getOwnPropertyDescriptor(Document.prototype, 'modelContext')?.get ?? null;
  const ContextProto = typeof ModelContext === 'function' ? ModelContext.prototype : null;
  const getTools = ContextProto ? ContextProto.getTools : null;
  const readyStateOf = Object.getOwnPropertyDescriptor(Document.prototype, 'readyState').get;
  const theDocument = document;

  // The shim leaves a hook for an in-page agent; nothing uses it here, so nothing keeps it.
  const agent = window[AGENT_HOOK] ?? null;
  if (agent) delete window[AGENT_HOOK];

  let port = null;
  const early = []; // what the console sent before the bridge's port arrived

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
  let installed = null;
  defineProperty(window, 'understudyShell', {
    configurable: false,
    enumerable: false,
    get: () => installed,
    set: (value) => {
      if (installed !== null || !value || typeof value.handle !== 'function' || !isFrozen(value)) return;
      installed = value;
      if (typeof value.link === 'function') value.link((body) => send('push', body));
    },
  });

  const calls = new MapCtor(); // call id -> AbortController

  function respond(id, value) {
    send('response', { id, ok: true, value: value === undefined ? null : value });
  }

  function refuse(id, err) {
    const error = { name: call(slice, Str(err?.name ?? 'Error'), 0, 64), message: call(slice, Str(err?.message ?? err), 0, 500) };
    send('response', { id, ok: false, error });
  }

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
    const work = new PromiseCtor((ok) => ok(console_.handle(Str(op), request, call(signalOf, controller))));
    call(then, work, (value) => { call(mapDelete, calls, id); respond(id, value); },
      (err) => { call(mapDelete, calls, id); refuse(id, err); });
  }

  call(listen, window, 'message', (event) => {
    if (port !== null || call(sourceOf, event) !== window) return;
    const data = call(dataOf, event);
    const ports = call(portsOf, event);
    if (data !== HANDSHAKE || !ports || ports.length !== 1) return;
    call(stopNow, event); // no page script sees the port
    port = ports[0];
    call(setOnMessage, port, (message) => onRequest(call(dataOf, message)));
    call(startPort, port);
    for (let i = 0; i < early.length; i += 1) call(post, port, early[i]);
    early.length = 0;
  }, true);

  // At most one listing at a time, and one more after it for every change meanwhile: a page
  // that registers 300 tools in one task gets two listings, not 300 (each of every tool).
  const REPORTED = 200; // bridge/protocol.py PageTools says the same
  let listing = false;
  let listAgain = false;

  function pushTools() {
    const context = contextOf ? call(contextOf, theDocument) : null;
    if (!context || !getTools) return;
    if (listing) { listAgain = true; return; }
    listing = true;
    listAgain = false;
    let asked;
    try {
      asked = call(getTools, context);
    } catch (err) {
      listing = false;
      call(consoleError, console, 'understudy bridge: could not list tools', err);
      return;
    }
    call(then, asked, (list) => {
      // The report is for diagnostics: the first REPORTED tools and how many there are.
      const tools = [];
      for (let i = 0; i < list.length && i < REPORTED; i += 1) call(arrayPush, tools, { name: Str(list[i].name), description: Str(list[i].description) });
      send('push', { event: 'tools', tools, total: list.length });
      listing = false;
      if (listAgain) call(setTimer, window, pushTools, 0);
    }, (err) => {
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
    if (context) call(listen, context, 'toolchange', pushTools);
    send('push', { event: 'hello', webmcp: agent ? 'bridged' : context ? 'native' : 'degraded' });
    pushTools();
  }
  if (call(readyStateOf, theDocument) === 'loading') call(listen, theDocument, 'DOMContentLoaded', watch, { once: true });
  else watch();
})();
