// Recordings in the page: kept in IndexedDB, and handed to the desktop shell, which keeps them
// too (the higher revision wins when the two meet).
import { createRecordStore } from '../persist.js';

/** Recordings: kept in IndexedDB, and handed to the desktop shell, which keeps them too. */
export async function openRecordings(db, shell) {
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
      shell.push({ event: 'recording-saved', recording: r });
    },
    remove(id) {
      map.delete(id);
      store.delete(id);
      shell.push({ event: 'recording-deleted', id });
    },
    /** The shell's copies: newer ones replace ours; ours it lacks are handed to it. */
    merge(fromShell) {
      const known = new Set();
      for (const r of fromShell) {
        known.add(r.id);
        const mine = map.get(r.id);
        if (!mine || (mine.revision ?? 0) < (r.revision ?? 0)) { map.set(r.id, r); store.put(r); }
      }
      for (const r of map.values()) if (!known.has(r.id)) shell.push({ event: 'recording-saved', recording: r });
    },
  };
}

