// understudy-webmcp-relay: the main-world half of the shell's bridge. Injected by the desktop
// shell right after the shim, at document creation. The isolated-world bridge cannot see
// main-world objects, so requests arrive as DOM events; this relay hands each to the
// console's window.understudyShell.handle(op, request, signal) and sends the answer back.
//
// It holds no privilege: the shell treats everything the page says as untrusted, and decides
// what agents see and what runs from what it holds itself. The relay also reports what the
// page registered with WebMCP (for diagnostics; never what agents are shown).
(() => {
  'use strict';
  const REQUEST = 'understudy-bridge:request';
  const RESPONSE = 'understudy-bridge:response';
  const PUSH = 'understudy-bridge:push';
  const AGENT_HOOK = Symbol.for('understudy.webmcp.agent');

  // The shim leaves a hook for an in-page agent; nothing uses it here, so nothing keeps it.
  const agent = window[AGENT_HOOK] ?? null;
  if (agent) delete window[AGENT_HOOK];

  // The console installs its handler once, at boot (js/shell_api.js). This property takes the
  // first handler and keeps it: a later script cannot swap in another executor for the
  // shell's runs. (The relay runs before any page script, so it defines the property first.)
  let installed = null;
  Object.defineProperty(window, 'understudyShell', {
    configurable: false,
    enumerable: false,
    get: () => installed,
    set: (value) => {
      if (installed === null && value && typeof value.handle === 'function' && Object.isFrozen(value)) installed = value;
    },
  });

  const calls = new Map(); // call id -> AbortController
  const mc = () => document.modelContext;

  const send = (type, payload) => document.dispatchEvent(new CustomEvent(type, { detail: JSON.stringify(payload) }));
  const fail = (err) => ({ name: String(err?.name ?? 'Error'), message: String(err?.message ?? err).slice(0, 500) });

  async function pushTools() {
    const context = mc();
    if (!context) return;
    try {
      const list = await context.getTools();
      send(PUSH, { event: 'tools', tools: list.map((t) => ({ name: t.name, description: t.description })) });
    } catch (err) {
      console.error('understudy bridge: could not list tools', err);
    }
  }

  document.addEventListener(REQUEST, (event) => {
    let request;
    try {
      request = JSON.parse(String(/** @type {CustomEvent} */ (event).detail));
    } catch {
      return;
    }
    const { id, op } = request;
    if (op === 'cancel') {
      calls.get(request.target)?.abort();
      return;
    }
    const console_ = installed;
    const controller = new AbortController();
    calls.set(id, controller);
    const work = console_ && typeof console_.handle === 'function'
      ? Promise.resolve().then(() => console_.handle(String(op), request, controller.signal))
      : Promise.reject(Object.assign(new Error('The console is not ready.'), { name: 'NotFoundError' }));
    work.then(
      (value) => send(RESPONSE, { id, ok: true, value: value === undefined ? null : value }),
      (err) => send(RESPONSE, { id, ok: false, error: fail(err) }),
    ).finally(() => calls.delete(id));
  });

  // Tells the console that a desktop shell is the authority (it asks the shell instead of
  // deciding anything itself). At document creation there is no <html> element yet.
  const markShell = () => { if (document.documentElement) document.documentElement.dataset.shell = 'desktop'; };
  markShell();
  document.addEventListener('readystatechange', markShell, { once: true });

  function watch() {
    const context = mc();
    if (context) context.addEventListener('toolchange', pushTools);
    send(PUSH, { event: 'hello', webmcp: agent ? 'bridged' : context ? 'native' : 'degraded' });
    pushTools();
  }
  // The isolated bridge is injected at document creation too; say hello once both exist.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true });
  else watch();
})();
