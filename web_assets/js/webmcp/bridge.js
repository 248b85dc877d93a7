// understudy-bridge: runs in an isolated world (the page's scripts cannot see it or `qt`).
// It connects to the shell's bridge object over QWebChannel and carries JSON between Python
// and the main-world relay. Python -> page arrives on the `toPage` signal; page -> Python goes
// through the object's single `call(json) -> json` slot.
(() => {
  'use strict';
  const REQUEST = 'understudy-bridge:request';
  const RESPONSE = 'understudy-bridge:response';
  const PUSH = 'understudy-bridge:push';
  const early = []; // relay messages that arrive before the channel is open
  let py = null;

  const forward = (kind) => (event) => {
    const message = JSON.stringify({ kind, body: String(event.detail) });
    if (py) py.call(message);
    else early.push(message);
  };
  document.addEventListener(RESPONSE, forward('response'));
  document.addEventListener(PUSH, forward('push'));

  new QWebChannel(qt.webChannelTransport, (channel) => {
    py = channel.objects.understudyBridge;
    py.toPage.connect((text) => {
      document.dispatchEvent(new CustomEvent(REQUEST, { detail: String(text) }));
    });
    for (const message of early.splice(0)) py.call(message);
  });
})();
