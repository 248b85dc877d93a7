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
(() => {
  'use strict';
  const HANDSHAKE = 'understudy-bridge:port';
  const AGENT_HOOK = Symbol.for('understudy.webmcp.agent');
  const { parse, stringify } = JSON;
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

  // The shim leaves a hook for an in-page agent; nothing uses it here, so nothing keeps it.
  const agent = window[AGENT_HOOK] ?? null;
  if (agent) delete window[AGENT_HOOK];

  let port = null;
  const early = []; // what the console sent before the bridge's port arrived

  function send(kind, body) {
    const text = stringify({ kind, body: stringify(body) });
    if (port) call(post, port, text);
    else call(arrayPush, early, text);
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

  async function pushTools() {
    const context = document.modelContext;
    if (!context) return;
    try {
      const list = await context.getTools();
      send('push', { event: 'tools', tools: list.map((t) => ({ name: t.name, description: t.description })) });
    } catch (err) {
      call(consoleError, console, 'understudy bridge: could not list tools', err);
    }
  }

  // Tells the console that a desktop shell is the authority (it asks the shell instead of
  // deciding anything itself). At document creation there is no <html> element yet.
  const markShell = () => { if (document.documentElement) document.documentElement.dataset.shell = 'desktop'; };
  markShell();
  document.addEventListener('readystatechange', markShell, { once: true });

  function watch() {
    const context = document.modelContext;
    if (context) context.addEventListener('toolchange', pushTools);
    send('push', { event: 'hello', webmcp: agent ? 'bridged' : context ? 'native' : 'degraded' });
    pushTools();
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true });
  else watch();
})();
