// IndexedDB persistence of the queue on the app's own origin (understudy://app), so a person's
// triage survives closing the app. Tickets are one record each, so a change writes only what
// changed; the queue's order, people, templates and view live in one "meta" record.

const DB_NAME = 'understudy';
const DB_VERSION = 1;
const FLUSH_DELAY_MS = 40;

function promisify(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

export async function openDatabase(indexedDB = globalThis.indexedDB) {
  if (!indexedDB) return null;
  const request = indexedDB.open(DB_NAME, DB_VERSION);
  request.onupgradeneeded = () => {
    const db = request.result;
    if (!db.objectStoreNames.contains('tickets')) db.createObjectStore('tickets', { keyPath: 'id' });
    if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta');
  };
  return promisify(request);
}

function plainTicket(t) {
  return { id: t.id, subject: t.subject, body: t.body, requester: t.requester, created: t.created, status: t.status, priority: t.priority, assignee: t.assignee, tags: [...t.tags], reply_draft: t.reply_draft };
}

function metaOf(doc) {
  return { name: doc.name, assignees: doc.assignees, templates: doc.templates, view: doc.view, order: doc.tickets.map((t) => t.id), savedAt: new Date().toISOString() };
}

/** The stored queue, or null the first time (the caller then starts from the demo queue). */
export async function loadQueue(db) {
  if (!db) return null;
  const tx = db.transaction(['tickets', 'meta'], 'readonly');
  const [meta, tickets] = await Promise.all([
    promisify(tx.objectStore('meta').get('queue')),
    promisify(tx.objectStore('tickets').getAll()),
  ]);
  if (!meta) return null;
  const byId = new Map(tickets.map((t) => [t.id, t]));
  const ordered = meta.order.map((id) => byId.get(id)).filter(Boolean);
  return { format: 'understudy-queue', version: 1, name: meta.name, tickets: ordered, assignees: meta.assignees, templates: meta.templates, view: meta.view };
}

/** Replace everything stored with `doc`, in one transaction: all or nothing. */
export async function saveWholeQueue(db, doc) {
  if (!db) return;
  const tx = db.transaction(['tickets', 'meta'], 'readwrite');
  const store = tx.objectStore('tickets');
  store.clear();
  for (const t of doc.tickets) store.put(plainTicket(t));
  tx.objectStore('meta').put(metaOf(doc), 'queue');
  await done(tx);
}

/**
 * Batches ticket and view writes: many changes in one task become one transaction.
 * `idle()` resolves once everything handed over so far is on disk.
 */
export function createPersister(db, state, queueDocument) {
  const dirty = new Set();
  let metaDirty = false;
  let timer = null;
  let chain = Promise.resolve();

  function schedule() {
    if (timer === null) timer = setTimeout(flush, FLUSH_DELAY_MS);
  }

  function flush() {
    timer = null;
    if (!db || (!dirty.size && !metaDirty)) return chain;
    const ids = [...dirty];
    dirty.clear();
    const writeMeta = metaDirty;
    metaDirty = false;
    chain = chain.then(async () => {
      const tx = db.transaction(['tickets', 'meta'], 'readwrite');
      const store = tx.objectStore('tickets');
      for (const id of ids) {
        const t = state.byId.get(id);
        if (t) store.put(plainTicket(t));
      }
      if (writeMeta) tx.objectStore('meta').put(metaOf(queueDocument(state)), 'queue');
      await done(tx);
    }).catch((err) => console.error('could not save to IndexedDB', err));
    return chain;
  }

  return {
    ticketsChanged(ids) { for (const id of ids) dirty.add(id); schedule(); },
    viewChanged() { metaDirty = true; schedule(); },
    async replaceAll(doc) {
      if (timer !== null) { clearTimeout(timer); timer = null; }
      dirty.clear();
      metaDirty = false;
      chain = chain.then(() => saveWholeQueue(db, doc));
      return chain;
    },
    idle() {
      if (timer !== null) { clearTimeout(timer); return flush(); }
      return chain;
    },
  };
}
