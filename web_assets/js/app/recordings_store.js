// Recordings in a plain browser, where the page is the whole app: kept in IndexedDB. (In the
// desktop app the shell keeps them: js/teach/shell_teaching.js.)
import { createRecordStore } from '../persist.js';

/** @typedef {import('../teach/recorder.js').Recording} Recording */
/** @typedef {Awaited<ReturnType<typeof openRecordings>>} LocalRecordings */

/** @param {IDBDatabase | null} db */
export async function openRecordings(db) {
  // What save() put there: IndexedDB keeps no types.
  const store = /** @type {import('../persist.js').RecordStore<Recording>} */ (createRecordStore(db, 'recordings'));
  const map = new Map((await store.all()).map((r) => [r.id, r]));
  return {
    decidedByShell: /** @type {const} */ (false), // the page renames and deletes them itself
    all: () => [...map.values()],
    values: () => map.values(),
    /** @param {string} id */
    get: (id) => map.get(id),
    /** @param {Recording} r */
    save(r) {
      r.revision = (r.revision ?? 0) + 1;
      map.set(r.id, r);
      store.put(r);
    },
  };
}
