// The page's side of the protocol with the desktop shell (docs/protocol.md; the shell's side
// is understudy_desktop/bridge/protocol.py). In the desktop app the shell is the authority:
// it holds the approved tools and the queue's saved copy, and decides every approval. The
// page asks, shows and executes.
//
// Transport: the shell's requests arrive through the injected relay (js/webmcp/relay.js),
// which calls window.understudyShell.handle(op, request, signal); the page's pushes and asks
// go out through the send function the relay hands the console when it installs its handler
// (link), over a channel no other script of the page can reach. Without the shell (a plain
// browser) `present` is false and nothing is sent.

export function shellPresent() {
  return document.documentElement.dataset.shell === 'desktop';
}

/**
 * createShellLink() -> { present, push(body), ask(body) -> Promise, serve(handlers, testApi) }
 * It installs window.understudyShell at once (the relay keeps the first one installed), so
 * the shell's replies to asks made while the console boots are heard; serve() adds the
 * console's request handlers and says the console is ready.
 *   handlers: { [op]: (request, signal) => value | Promise<value> }
 *   testApi:  read-mostly helpers for diagnostics and tests (window.understudyShell.api);
 *             none of them can approve, publish or make a tool callable.
 */
export function createShellLink() {
  const present = shellPresent();
  const asks = new Map(); // ask id -> resolve
  const handlers = new Map(); // op -> handler, filled by serve()
  const api = {}; // filled by serve(); helpers only, so a script changing them changes nothing
  let askSeq = 0;
  let send = null; // the relay's, handed over once

  function push(body) {
    if (present && send) send(body);
  }

  /** Ask the shell; resolves with its reply (which may be an { isError } answer). */
  function ask(body) {
    if (!present) return Promise.resolve({ isError: true, code: 'no_shell', message: 'The desktop app is not running this page.' });
    askSeq += 1;
    const id = `a${askSeq}`;
    return new Promise((resolve) => {
      asks.set(id, resolve);
      push({ event: 'ask', ask: id, body });
    });
  }

  handlers.set('reply', ({ to, value }) => {
    const resolve = asks.get(String(to));
    asks.delete(String(to));
    if (resolve) resolve(value);
    return null;
  });

  window.understudyShell = Object.freeze({
    api,
    link(relaySend) {
      if (send === null && typeof relaySend === 'function') send = relaySend;
    },
    handle(op, request, signal) {
      const handler = handlers.get(op);
      if (!handler) {
        return Promise.reject(Object.assign(new Error('The console does not know that request.'), { name: 'NotSupportedError' }));
      }
      return handler(request, signal);
    },
  });

  function serve(more, helpers = {}) {
    for (const [op, handler] of Object.entries(more)) handlers.set(op, handler);
    Object.assign(api, helpers);
    document.documentElement.dataset.consoleReady = 'true';
    push({ event: 'console-ready' });
  }

  return { present, push, ask, serve };
}
