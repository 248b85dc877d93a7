// understudy-webmcp-relay: the main-world half of the shell's bridge. Injected by the desktop
// shell right after the shim, at document creation. The isolated-world bridge cannot see
// main-world objects, so it sends JSON requests as DOM events; this relay answers them by
// using the page's WebMCP API exactly as any consumer would (getTools, executeTool,
// toolchange), whether that API is native or the shim. It holds no privilege of its own.
(() => {
  'use strict';
  const REQUEST = 'understudy-bridge:request';
  const RESPONSE = 'understudy-bridge:response';
  const PUSH = 'understudy-bridge:push';
  const AGENT_HOOK = Symbol.for('understudy.webmcp.agent');

  // Take the shim's agent hook (if any) before page scripts run, and leave nothing behind.
  const agent = window[AGENT_HOOK] ?? null;
  if (agent) delete window[AGENT_HOOK];

  const calls = new Map(); // call id -> AbortController
  const mc = () => document.modelContext;

  const send = (type, payload) => document.dispatchEvent(new CustomEvent(type, { detail: JSON.stringify(payload) }));
  const fail = (err) => ({ name: String(err?.name ?? 'Error'), message: String(err?.message ?? err).slice(0, 500) });

  async function toolList() {
    const context = mc();
    if (!context) return [];
    const list = await context.getTools();
    return list.map((t) => ({
      name: t.name,
      title: t.title ?? '',
      description: t.description,
      ...(t.inputSchema === undefined ? {} : { inputSchema: t.inputSchema }),
      ...(t.annotations === undefined ? {} : { annotations: t.annotations }),
    }));
  }

  async function pushTools() {
    try {
      send(PUSH, { event: 'tools', tools: await toolList() });
    } catch (err) {
      console.error('understudy bridge: could not list tools', err);
    }
  }

  async function execute(id, name, input) {
    const context = mc();
    if (!context) throw Object.assign(new Error('This page has no WebMCP tools.'), { name: 'NotFoundError' });
    const tool = (await context.getTools()).find((t) => t.name === name);
    if (!tool) throw Object.assign(new Error(`No tool named ${name}.`), { name: 'NotFoundError' });
    const controller = new AbortController();
    calls.set(id, controller);
    try {
      const run = agent ? agent.execute : (t, i, o) => context.executeTool(t, i, o);
      return await run(tool, input, { signal: controller.signal });
    } finally {
      calls.delete(id);
    }
  }

  async function shell(method, args) {
    const api = window.understudyShell?.api;
    if (!api || !Object.hasOwn(api, method)) throw Object.assign(new Error(`The console has no method ${method}.`), { name: 'NotFoundError' });
    return api[method](...(Array.isArray(args) ? args : []));
  }

  document.addEventListener(REQUEST, (event) => {
    let request;
    try {
      request = JSON.parse(String(event.detail));
    } catch {
      return;
    }
    const { id, op } = request;
    if (op === 'cancel') {
      calls.get(request.target)?.abort();
      return;
    }
    const work = op === 'tools' ? toolList()
      : op === 'execute' ? execute(id, String(request.name), request.input)
        : op === 'shell' ? shell(String(request.method), request.args)
          : Promise.reject(Object.assign(new Error(`unknown operation ${op}`), { name: 'NotSupportedError' }));
    work.then(
      (value) => send(RESPONSE, { id, ok: true, value: value === undefined ? null : value }),
      (err) => send(RESPONSE, { id, ok: false, error: fail(err) }),
    );
  });

  // Tells the console that a desktop shell decides approvals (it shows "waiting for your
  // approval in the dialog" instead of granting anything itself). At document creation
  // there is no <html> element yet; the console only asks later, when something is approved.
  const markShell = () => { if (document.documentElement) document.documentElement.dataset.shell = 'desktop'; };
  markShell();
  document.addEventListener('readystatechange', markShell, { once: true });

  function watch() {
    const context = mc();
    if (context) context.addEventListener('toolchange', pushTools);
    send(PUSH, { event: 'hello', webmcp: agent ? 'bridged' : context ? 'native' : 'degraded', url: location.href });
    pushTools();
  }
  // The isolated bridge is injected at document creation too; say hello once both exist.
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', watch, { once: true });
  else watch();
  // The console tells the shell when its own API is ready (after IndexedDB has loaded).
  document.addEventListener('understudy:console-ready', () => send(PUSH, { event: 'console-ready' }));
  document.addEventListener('understudy:store-changed', () => send(PUSH, { event: 'store' }));
  // The console asks the shell to open its consent dialog (it cannot approve anything itself).
  document.addEventListener('understudy:consent-request', (event) => {
    let detail;
    try { detail = JSON.parse(String(event.detail)); } catch { return; }
    send(PUSH, { event: 'consent-request', kind: String(detail.kind), id: String(detail.id ?? ''), tool: String(detail.tool ?? ''), value: Boolean(detail.value) });
  });
})();
