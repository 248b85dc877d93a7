// understudy-webmcp-shim: document.modelContext for engines that lack it (QtWebEngine's
// Chromium 140). Injected by the desktop shell into the main world at document creation,
// before any page script. It mirrors what Chromium 156's native implementation does, as
// recorded by js/webmcp/conformance.js: same methods, events, dictionary checks, error names
// and result serialisation. Where the API is native, it does nothing.
//
// Classic script on purpose: QWebEngineScript injects source text, not modules.
(() => {
  'use strict';
  const AGENT_HOOK = Symbol.for('understudy.webmcp.agent');

  function markMode(mode) {
    const apply = () => { document.body.dataset.webmcp = mode; };
    if (document.body) apply();
    else document.addEventListener('DOMContentLoaded', apply, { once: true });
  }

  if ('modelContext' in Document.prototype || 'modelContext' in document) {
    markMode('native');
    return;
  }

  const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
  const ANNOTATIONS = ['readOnlyHint', 'untrustedContentHint', 'consequentialHint', 'debugging'];

  const typeError = (method, detail) => new TypeError(`Failed to execute '${method}' on 'ModelContext': ${detail}`);
  const domError = (name, message) => new DOMException(message, name);
  const abortError = (signal) => (signal.reason instanceof DOMException || signal.reason instanceof Error
    ? signal.reason : domError('AbortError', 'signal is aborted without reason'));

  // WebIDL dictionaries read required members in alphabetical order and say which is missing.
  function requireMembers(method, dictionary, value, members) {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) {
      throw typeError(method, `The provided value is not of type '${dictionary}'.`);
    }
    for (const member of members) {
      if (value[member] === undefined) {
        throw typeError(method, `Failed to read the '${member}' property from '${dictionary}': Required member is undefined.`);
      }
    }
  }

  // Chromium serialises the tool's result: strings as they are, anything else through JSON.
  function serialise(value) {
    return typeof value === 'string' ? value : String(JSON.stringify(value));
  }

  function clone(value) {
    return value === undefined ? undefined : JSON.parse(JSON.stringify(value));
  }

  class ToolActivatedEvent extends Event {
    #toolName;
    constructor(type, init = {}) {
      super(type);
      this.#toolName = String(init.toolName ?? '');
    }
    get toolName() { return this.#toolName; }
  }

  class ToolCancelEvent extends Event {
    #toolName;
    constructor(type, init = {}) {
      super(type);
      this.#toolName = String(init.toolName ?? '');
    }
    get toolName() { return this.#toolName; }
  }

  const tools = new Map(); // name -> { name, title, description, inputSchema, annotations, execute }
  const handlers = { toolchange: null, toolactivated: null, toolcancel: null };
  let instance = null;

  function changed() {
    // Native Chromium fires toolchange from a task, after registerTool's promise settles.
    setTimeout(() => instance.dispatchEvent(new Event('toolchange')), 0);
  }

  function publicTool(t) {
    const out = { name: t.name, title: t.title, description: t.description, origin: location.origin, window };
    if (t.inputSchema !== undefined) out.inputSchema = clone(t.inputSchema);
    if (t.annotations !== undefined) out.annotations = { ...t.annotations };
    return out;
  }

  async function invoke(method, tool, input, options, fromAgent) {
    requireMembers(method, 'RegisteredTool', tool, ['description', 'name', 'origin', 'window']);
    if (input === undefined) input = {};
    if (input === null || typeof input !== 'object') throw typeError(method, 'invalid input object: value is not an object');
    const signal = options?.signal;
    const entry = tools.get(String(tool.name));
    if (!entry || tool.origin !== location.origin || tool.window !== window) {
      throw domError('UnknownError', 'The operation failed for an unknown transient reason (e.g. out of memory).');
    }
    if (signal?.aborted) throw abortError(signal);
    const controller = new AbortController();
    instance.dispatchEvent(new ToolActivatedEvent('toolactivated', { toolName: entry.name }));
    return new Promise((resolve, reject) => {
      let aborted = false;
      const onAbort = () => {
        aborted = true;
        if (fromAgent) instance.dispatchEvent(new ToolCancelEvent('toolcancel', { toolName: entry.name }));
        controller.abort(signal.reason);
        reject(abortError(signal));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      Promise.resolve()
        .then(() => entry.execute.call(undefined, clone(input), { signal: controller.signal }))
        .then((result) => resolve(serialise(result)), (err) => {
          if (aborted) return; // the caller already heard AbortError; a tool unwinding is not a failure
          console.error(`WebMCP tool execution failed: Uncaught ${err?.name ?? 'Error'}: ${err?.message ?? err}`);
          reject(domError('UnknownError', 'Tool was executed but the invocation failed. For example, the script function threw an error'));
        })
        .finally(() => signal?.removeEventListener('abort', onAbort));
    });
  }

  class ModelContext extends EventTarget {
    registerTool(tool, options = {}) {
      return new Promise((resolve) => {
        requireMembers('registerTool', 'ModelContextTool', tool, ['description', 'execute', 'name']);
        if (typeof tool.execute !== 'function') {
          throw typeError('registerTool', "Failed to read the 'execute' property from 'ModelContextTool': The provided value is not a function.");
        }
        const signal = options?.signal;
        if (signal?.aborted) throw abortError(signal);
        const name = String(tool.name);
        if (!NAME.test(name)) throw domError('InvalidStateError', 'Invalid tool name');
        if (tools.has(name)) throw domError('InvalidStateError', 'Duplicate tool name');
        const description = String(tool.description);
        if (!description) throw domError('InvalidStateError', 'Description is required');
        const entry = {
          name,
          title: tool.title === undefined ? '' : String(tool.title),
          description,
          inputSchema: clone(tool.inputSchema),
          annotations: tool.annotations === undefined ? undefined
            : Object.fromEntries(ANNOTATIONS.map((k) => [k, Boolean(tool.annotations[k])])),
          execute: tool.execute,
        };
        tools.set(name, entry);
        signal?.addEventListener('abort', () => {
          if (tools.get(name) === entry) {
            tools.delete(name);
            changed();
          }
        }, { once: true });
        changed();
        resolve(undefined);
      });
    }

    getTools() {
      return Promise.resolve([...tools.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(publicTool));
    }

    executeTool(tool, input, options) {
      return Promise.resolve().then(() => invoke('executeTool', tool, input, options, false));
    }

    get ontoolchange() { return handlers.toolchange; }
    set ontoolchange(fn) { setHandler('toolchange', fn); }
    get ontoolactivated() { return handlers.toolactivated; }
    set ontoolactivated(fn) { setHandler('toolactivated', fn); }
    get ontoolcancel() { return handlers.toolcancel; }
    set ontoolcancel(fn) { setHandler('toolcancel', fn); }
  }

  function setHandler(type, fn) {
    if (handlers[type]) instance.removeEventListener(type, handlers[type]);
    handlers[type] = typeof fn === 'function' ? fn : null;
    if (handlers[type]) instance.addEventListener(type, handlers[type]);
  }

  instance = new ModelContext();
  Object.defineProperty(Document.prototype, 'modelContext', {
    configurable: true,
    enumerable: true,
    get() { return this === document ? instance : undefined; },
  });
  // The shell's relay (injected right after this script, before any page script) takes this
  // hook once: calls it makes count as an agent's, so cancelling one fires toolcancel as the
  // browser's own agent would.
  Object.defineProperty(window, AGENT_HOOK, {
    configurable: true,
    value: { execute: (tool, input, options) => invoke('executeTool', tool, input, options, true) },
  });
  markMode('bridged');
})();
