// window.understudyShell: how the desktop shell talks to the console. `isReady()` is the
// handshake (false until boot finished); `start`/`take` run any API method asynchronously and
// hand back a JSON result the shell collects; `api` holds the methods for direct use.

export function installShellApi(api) {
  const results = new Map();

  async function run(callId, method, args) {
    let answer;
    try {
      if (!Object.hasOwn(api, method)) throw new Error(`unknown console method ${method}`);
      answer = { ok: true, value: await api[method](...(Array.isArray(args) ? args : [])) };
    } catch (err) {
      answer = { ok: false, error: String(err?.message ?? err) };
    }
    results.set(callId, JSON.stringify(answer));
  }

  window.understudyShell = Object.freeze({
    isReady: () => true,
    api: Object.freeze({ ...api }),
    start(callId, method, args) { run(String(callId), String(method), args); return true; },
    take(callId) {
      const value = results.get(callId);
      if (value === undefined) return ''; // still running
      results.delete(callId);
      return value;
    },
  });
  document.documentElement.dataset.consoleReady = 'true';
}
