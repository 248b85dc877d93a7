// understudy-bridge: runs in an isolated world (the page's scripts cannot see it or `qt`).
// It connects to the shell's bridge object over QWebChannel and carries JSON between Python
// and the main-world relay over a MessageChannel whose other end it hands the relay at
// document creation (page scripts never see it; see js/webmcp/relay.js). Python -> page
// arrives on the `toPage` signal; page -> Python goes through the object's single
// `call(json)` slot.
(() => {
  'use strict';
  const HANDSHAKE = 'understudy-bridge:port';
  const channel = new MessageChannel();
  const toRelay = channel.port1;
  /** @type {string[]} */
  const early = []; // relay messages that arrive before the QWebChannel is open
  /** The shell's bridge object: one slot, one signal (bridge/page_bridge.py).
   *  @type {{ call(json: string): void, toPage: { connect(fn: (text: string) => void): void } } | null} */
  let py = null;

  // The relay posts plain objects; the JSON is written here, where no page script reaches
  // JSON.stringify or what it looks up (js/webmcp/relay.js says why).
  toRelay.onmessage = (event) => {
    const data = event.data;
    let message;
    try {
      message = JSON.stringify({ kind: String(data?.kind), body: JSON.stringify(data?.body ?? null) });
    } catch {
      return; // nothing the shell could read
    }
    if (py) py.call(message);
    else early.push(message);
  };
  toRelay.start();
  window.postMessage(HANDSHAKE, '*', [channel.port2]);

  const webChannel = new QWebChannel(qt.webChannelTransport, (opened) => {
    const bridge = opened.objects.understudyBridge;
    py = bridge;
    bridge.toPage.connect((/** @type {string} */ text) => toRelay.postMessage(String(text)));
    for (const message of early.splice(0)) bridge.call(message);
  });
  // The transport belongs to the page, not to one document: after a reload the shell's
  // answers to calls the old document made arrive here. Those ids were never this
  // document's, so they are dropped (Qt's client would throw on them). This document's own
  // calls number from a random point, so an old answer cannot take a new call's place.
  const answer = webChannel.handleResponse;
  webChannel.handleResponse = (/** @type {{ id?: number }} */ message) => {
    if (typeof webChannel.execCallbacks[String(message?.id)] === 'function') answer(message);
  };
  webChannel.execId = 1 + Math.floor(Math.random() * 2 ** 40);
})();
