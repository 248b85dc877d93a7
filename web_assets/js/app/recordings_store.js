// Recordings in a plain browser, where the page is the whole app: kept in IndexedDB. (In the
// desktop app the shell keeps them: js/teach/shell_teaching.js.)
import { createRecordStore } from '../persist.js';

export async function openRecordings(db) {
  const store = createRecordStore(db, 'recordings');
  const map = new Map((await store.all()).map((r) => [r.id, r]));
  return {
    all: () => [...map.values()],
    values: () => map.values(),
    get: (id) => map.get(id),
    save(r) {
      r.revision = (r.revision ?? 0) + 1;
      map.set(r.id, r);
      store.put(r);
    },
    remove(id) {
      map.delete(id);
      store.delete(id);
    },
  };
}
