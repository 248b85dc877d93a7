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
//
// Every message is typed by web_assets/types/protocol.d.ts (the Protocol namespace), which is
// generated from the shell's models: tsc checks what the page sends, and what its handlers take
// and answer, against what the shell sends and parses.

/** @typedef {keyof Protocol.ShellRequests} Op */
/**
 * What the console does for one request: the request as the shell sent it, and the signal
 * that aborts it (the shell cancelled it, or it timed out).
 * @template {Op} O
 * @typedef {(request: Protocol.ShellRequests[O], signal: AbortSignal) => Protocol.PageAnswers[O] | Promise<Protocol.PageAnswers[O]>} Handler
 */
/** @typedef {{ [O in Op]?: Handler<O> }} Handlers */
/**
 * A handler as the link calls it, with whichever request the shell sent for its op.
 * @typedef {(request: Protocol.ShellRequest, signal: AbortSignal) => unknown} AnyHandler
 */
/** @typedef {(body: Protocol.Push) => void} Send */
/**
 * What the console installs as window.understudyShell (the relay keeps the first one).
 * @typedef {object} ShellGlobal
 * @property {Record<string, Function>} api read-mostly helpers for diagnostics and tests
 * @property {(relaySend: Send) => void} link the relay hands over its private send function
 * @property {(op: string, request: Protocol.ShellRequest, signal: AbortSignal) => unknown} handle
 */
/** @typedef {ReturnType<typeof createShellLink>} ShellLink */

/**
 * Whether a reply says nothing was done: a Protocol.Refusal (its isError is set).
 * @param {unknown} reply
 * @returns {reply is Protocol.Refusal}
 */
export function isRefusal(reply) {
  return typeof reply === 'object' && reply !== null && Boolean(/** @type {{ isError?: unknown }} */ (reply).isError);
}

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
  /** @type {Map<string, (value: Protocol.ReplyValue) => void>} */
  const asks = new Map(); // ask id -> resolve
  /** @type {Map<string, AnyHandler>} */
  const handlers = new Map(); // op -> handler, filled by serve()
  /** @type {Record<string, Function>} */
  const api = {}; // filled by serve(); helpers only, so a script changing them changes nothing
  let askSeq = 0;
  /** @type {Send | null} */
  let send = null; // the relay's, handed over once

  /** @param {Protocol.Push} body */
  function push(body) {
    if (present && send) send(body);
  }

  /**
   * Ask the shell; resolves with its reply, one of those the shell gives that kind of ask
   * (which may be a Protocol.Refusal).
   * @template {Protocol.AskBody} B
   * @param {B} body
   * @returns {Promise<Protocol.AskReplies[B['kind']]>}
   */
  function ask(body) {
    /** @type {Protocol.Refusal} */
    const noShell = { isError: true, code: 'no_shell', message: 'The desktop app is not running this page.' };
    if (!present) return Promise.resolve(noShell);
    askSeq += 1;
    const id = `a${askSeq}`;
    return new Promise((resolve) => {
      // The shell answers an ask with one of its kind's replies (Protocol.AskReplies).
      asks.set(id, /** @type {(value: Protocol.ReplyValue) => void} */ (resolve));
      push({ event: 'ask', ask: id, body });
    });
  }

  /** @type {Handler<'reply'>} */
  const reply = ({ to, value }) => {
    const resolve = asks.get(String(to));
    asks.delete(String(to));
    if (resolve) resolve(value);
    return null;
  };
  handlers.set('reply', asHandler(reply));

  /** @type {ShellGlobal} */
  const global = {
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
  };
  window.understudyShell = Object.freeze(global);

  /**
   * @param {Handlers} more the console's handlers, by op
   * @param {Record<string, Function>} [helpers]
   */
  function serve(more, helpers = {}) {
    for (const [op, handler] of Object.entries(more)) handlers.set(op, asHandler(handler));
    Object.assign(api, helpers);
    document.documentElement.dataset.consoleReady = 'true';
    push({ event: 'console-ready' });
  }

  return { present, push, ask, serve };
}

/**
 * A handler as the link keeps it. The relay calls it with the request the shell sent for its
 * op, which is what Handlers pairs it with; one map of every op's handler cannot say so.
 * @param {Handlers[Op]} handler
 * @returns {AnyHandler}
 */
function asHandler(handler) {
  return /** @type {AnyHandler} */ (/** @type {unknown} */ (handler));
}
