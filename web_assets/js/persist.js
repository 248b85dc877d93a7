// IndexedDB persistence of the queue on the app's own origin (understudy://app). In the
// desktop app this is a cache: the shell's database holds the queue, and the cache is used at
// start only when its meta says it holds exactly the database's generation and revision with
// nothing unsaved ("dirty": changes applied here that the shell had not confirmed yet).
// In a plain browser it is the only copy.
//
// Tickets are stored in chunks of CHUNK_SIZE, in queue order: one record per ticket made a
// 100,000-ticket queue take ~10 s to store (per-record overhead), one record for everything
// would rewrite 60 MB for every edit. A change rewrites only the chunks it touched. The
// queue's people, templates, view and chunk count live in one "meta" record.

/**
 * @typedef {import('./queue_state.js').QueueState} QueueState
 * @typedef {import('./queue_state.js').QueueDoc} QueueDoc
 * @typedef {import('./queue_state.js').Ticket} Ticket
 * @typedef {import('./queue_state.js').TicketFields} TicketFields
 */
/**
 * Where the cache stands against the shell's database (see the note above).
 * @typedef {{ generation: string | null, revision: number, dirty: boolean }} SyncState
 */
/**
 * The stored queue: the document, with where it stood when it was stored.
 * @typedef {QueueDoc & { tickets: TicketFields[] } & SyncState} StoredQueue
 */
/**
 * A queue to store: the console's own tickets, with whatever else the document holds.
 * @typedef {Omit<QueueDoc, 'tickets'> & { tickets: Ticket[] }} DocToStore
 */
/** @typedef {ReturnType<typeof createPersister>} Persister */
/**
 * @template T
 * @typedef {object} RecordStore
 * @property {() => Promise<T[]>} all
 * @property {(record: T) => Promise<void>} put
 * @property {(key: string) => Promise<void>} delete
 * @property {() => Promise<void>} idle
 */

const DB_NAME = 'understudy';
const DB_VERSION = 2; // 2: recordings and taught tools
const FLUSH_DELAY_MS = 40;
export const CHUNK_SIZE = 500;

/**
 * @template T
 * @param {IDBRequest<T>} request
 * @returns {Promise<T>}
 */
function promisify(request) {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

/** @param {IDBTransaction} tx */
function done(tx) {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve(undefined);
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/**
 * @param {IDBFactory | undefined} [indexedDB]
 * @returns {Promise<IDBDatabase | null>}
 */
export async function openDatabase(indexedDB = globalThis.indexedDB) {
  if (!indexedDB) return null;
  const request = indexedDB.open(DB_NAME, DB_VERSION);
  request.onupgradeneeded = () => {
    const db = request.result;
    if (!db.objectStoreNames.contains('chunks')) db.createObjectStore('chunks');
    if (!db.objectStoreNames.contains('meta')) db.createObjectStore('meta');
    if (!db.objectStoreNames.contains('recordings')) db.createObjectStore('recordings', { keyPath: 'id' });
    if (!db.objectStoreNames.contains('tools')) db.createObjectStore('tools', { keyPath: 'name' });
  };
  return promisify(request);
}

/**
 * @param {Ticket} t
 * @returns {TicketFields}
 */
function plainTicket(t) {
  return { id: t.id, subject: t.subject, body: t.body, requester: t.requester, created: t.created, status: t.status, priority: t.priority, assignee: t.assignee, tags: [...t.tags], reply_draft: t.reply_draft };
}

/**
 * @param {Ticket[]} tickets
 * @param {number} index
 */
function chunkOf(tickets, index) {
  return tickets.slice(index * CHUNK_SIZE, (index + 1) * CHUNK_SIZE).map(plainTicket);
}

/**
 * @param {DocToStore} doc
 * @param {number} chunks
 * @param {Partial<SyncState>} sync
 */
function metaOf(doc, chunks, sync) {
  return {
    name: doc.name, assignees: doc.assignees, templates: doc.templates, view: doc.view, chunks, count: doc.tickets.length, savedAt: new Date().toISOString(),
    generation: sync.generation ?? null, revision: sync.revision ?? 0, dirty: Boolean(sync.dirty),
  };
}

/**
 * The stored queue, or null the first time (the caller then starts from the demo queue).
 * @param {IDBDatabase | null} db
 * @returns {Promise<StoredQueue | null>}
 */
export async function loadQueue(db) {
  if (!db) return null;
  const tx = db.transaction(['chunks', 'meta'], 'readonly');
  // What this module wrote (metaOf, chunkOf): IndexedDB hands records back untyped.
  const [meta, chunks] = /** @type {[ReturnType<typeof metaOf> | undefined, TicketFields[][]]} */ (await Promise.all([
    promisify(tx.objectStore('meta').get('queue')),
    promisify(tx.objectStore('chunks').getAll(IDBKeyRange.bound(0, Number.MAX_SAFE_INTEGER))),
  ]));
  if (!meta) return null;
  const tickets = chunks.slice(0, meta.chunks).flat();
  if (tickets.length !== meta.count) return null; // a cache that lost chunks is no cache
  return { format: 'understudy-queue', version: 1, name: meta.name, tickets, assignees: meta.assignees, templates: meta.templates, view: meta.view,
    generation: meta.generation ?? null, revision: meta.revision ?? 0, dirty: Boolean(meta.dirty) };
}

/**
 * Replace everything stored with `doc`, in one transaction: all or nothing.
 * @param {IDBDatabase | null} db
 * @param {DocToStore} doc
 * @param {Partial<SyncState>} [sync]
 */
export async function saveWholeQueue(db, doc, sync = {}) {
  if (!db) return;
  const tx = db.transaction(['chunks', 'meta'], 'readwrite');
  const store = tx.objectStore('chunks');
  store.clear();
  const chunks = Math.ceil(doc.tickets.length / CHUNK_SIZE);
  for (let i = 0; i < chunks; i += 1) store.put(chunkOf(doc.tickets, i), i);
  tx.objectStore('meta').put(metaOf(doc, chunks, sync), 'queue');
  await done(tx);
}

/**
 * The chunks that hold the tickets `changed` names, added to `dirty`.
 * @param {Iterable<string>[]} changed
 * @param {Map<string, number>} at ticket id -> position
 * @param {Set<number>} dirty
 */
function markChunks(changed, at, dirty) {
  for (const ids of changed) {
    for (const id of ids) {
      const i = at.get(id);
      if (i !== undefined) dirty.add(Math.floor(i / CHUNK_SIZE));
    }
  }
}

/**
 * Batches ticket and view writes: many changes in one task become one transaction.
 * `idle()` resolves once everything handed over so far is on disk.
 * @param {IDBDatabase | null} db
 * @param {QueueState} state
 * @param {{ delayMs?: number }} [options]
 */
export function createPersister(db, state, { delayMs = FLUSH_DELAY_MS } = {}) {
  const dirtyChunks = /** @type {Set<number>} */ (new Set());
  /** @type {SyncState} */
  const sync = { generation: null, revision: 0, dirty: false }; // see the note at the top
  let metaDirty = false;
  let timer = /** @type {ReturnType<typeof setTimeout> | null} */ (null);
  let chain = /** @type {Promise<void>} */ (Promise.resolve());
  let indexOf = /** @type {Map<string, number> | null} */ (null); // ticket id -> position; rebuilt when the whole queue is replaced
  const changed = /** @type {Iterable<string>[]} */ ([]); // ids told since the last write

  const positions = () => (indexOf ??= new Map(state.tickets.map((t, i) => [t.id, i])));

  function schedule() {
    if (timer === null) timer = setTimeout(flush, delayMs);
  }

  function flush() {
    timer = null;
    if (changed.length) markChunks(changed.splice(0), positions(), dirtyChunks);
    if (!db || (!dirtyChunks.size && !metaDirty)) return chain;
    const chunks = [...dirtyChunks];
    dirtyChunks.clear();
    const writeMeta = metaDirty;
    metaDirty = false;
    chain = chain.then(async () => {
      const tx = db.transaction(['chunks', 'meta'], 'readwrite');
      const store = tx.objectStore('chunks');
      for (const i of chunks) store.put(chunkOf(state.tickets, i), i);
      if (writeMeta || chunks.length) {
        const doc = { name: state.queueName, assignees: state.assignees, templates: state.templates, view: { filter: { ...state.filter }, selectedId: state.selectedId }, tickets: state.tickets };
        tx.objectStore('meta').put(metaOf(doc, Math.ceil(state.tickets.length / CHUNK_SIZE), sync), 'queue');
      }
      await done(tx);
    }).catch((err) => console.error('could not save to IndexedDB', err));
    return chain;
  }

  return {
    /**
     * Tickets that changed: where they sit is worked out when the cache is written, not
     * now, so a run over 100,000 tickets is drawn first (their positions took 70 ms).
     * @param {Iterable<string>} ids not changed by the caller afterwards
     */
    ticketsChanged(ids) {
      changed.push(ids);
      schedule();
    },
    viewChanged() { metaDirty = true; schedule(); },
    /**
     * Where the cache stands against the shell's database (saved with the next write).
     * @param {Partial<SyncState>} next
     */
    syncState(next) {
      Object.assign(sync, next);
      metaDirty = true;
      schedule();
    },
    /**
     * @param {DocToStore} doc
     * @param {Partial<SyncState>} [next]
     */
    async replaceAll(doc, next = {}) {
      Object.assign(sync, { generation: null, revision: 0, dirty: false }, next);
      if (timer !== null) { clearTimeout(timer); timer = null; }
      dirtyChunks.clear();
      changed.length = 0;
      metaDirty = false;
      indexOf = null;
      const at = { ...sync };
      chain = chain.then(() => saveWholeQueue(db, doc, at));
      return chain;
    },
    idle() {
      if (timer !== null) { clearTimeout(timer); return flush(); }
      return chain;
    },
  };
}

/**
 * Small keyed stores (recordings, taught tools): whole records, written as they change. The
 * caller says what it keeps in it (`@type {RecordStore<…>}`): IndexedDB does not.
 * @param {IDBDatabase | null} db
 * @param {string} storeName
 * @returns {RecordStore<unknown>}
 */
export function createRecordStore(db, storeName) {
  /** @type {Promise<void>} */
  let chain = Promise.resolve();
  /** @param {(store: IDBObjectStore) => void} fn */
  const write = (fn) => {
    if (!db) return Promise.resolve();
    chain = chain.then(async () => {
      const tx = db.transaction([storeName], 'readwrite');
      fn(tx.objectStore(storeName));
      await done(tx);
    }).catch((err) => console.error(`could not save ${storeName}`, err));
    return chain;
  };
  return {
    async all() {
      if (!db) return [];
      const tx = db.transaction([storeName], 'readonly');
      return promisify(tx.objectStore(storeName).getAll());
    },
    put: (record) => write((store) => store.put(structuredClone(record))),
    delete: (key) => write((store) => store.delete(key)),
    idle: () => chain,
  };
}
