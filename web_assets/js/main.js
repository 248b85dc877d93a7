// Boot, the composition root: open the stored queue (or the demo queue the first time), build
// the console's core, mount the views, wire teaching and the library (the desktop shell's, or
// in a plain browser the page's own), then answer the shell.
import { openDatabase } from './persist.js';
import { createShellLink } from './shell_api.js';
import { webmcpState, startingQueue } from './app/queue_start.js';
import { createConsole } from './app/console_core.js';
import { mountViews } from './app/views.js';
import { mountTeach } from './app/teach_wiring.js';
import { serveShell } from './app/shell_handlers.js';

async function boot() {
  document.body.dataset.webmcp = webmcpState();
  const shell = createShellLink();
  const db = await openDatabase().catch((err) => {
    console.warn('IndexedDB is unavailable; changes will not be kept', err);
    return null;
  });
  const start = await startingQueue(shell, db);
  const ctx = await createConsole({ shell, db, start });
  const views = mountViews(ctx);
  const teach = await mountTeach(ctx, views, start.firstRun);
  serveShell(ctx, teach);
}

boot().catch((err) => {
  console.error('the console could not start', err);
  const main = document.querySelector('main');
  if (main) main.replaceChildren(Object.assign(document.createElement('p'), { className: 'boot-error', textContent: `The console could not start: ${err.message}` }));
});
