// window.understudyShell: what the desktop shell may ask of the console. The shell reaches
// these methods through its bridge (see js/webmcp/relay.js); `understudy:console-ready` on
// document tells it the console has booted and its stored queue is loaded.

export function installShellApi(api) {
  window.understudyShell = Object.freeze({ api: Object.freeze({ ...api }) });
  document.documentElement.dataset.consoleReady = 'true';
  document.dispatchEvent(new Event('understudy:console-ready'));
}
