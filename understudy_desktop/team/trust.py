"""Whom this person trusts (authors, by key), which shared versions they accepted or turned
down, and the newest version of each shared tool they have seen: in the database beside the
library. Reads from memory; writes go through the database's writer and
memory changes once they are committed, as in the library."""

from __future__ import annotations

import dataclasses
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import cast

from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.store.database import Database
from understudy_desktop.team.documents import AUTHOR
from understudy_desktop.team.folder import Kind, SharedFile, read_file

# What is kept of the folder (issue 34's rollback protection): small signed documents whose
# loss would undo a decision, and the lead's confirmations (only each signer's newest: an
# older one confirms nothing a newer one does not). Tool files are not kept (their versions
# are, in team_versions). Each app writes back what it keeps when it goes missing from the
# folder, so deleting a file as it lands suppresses nothing.
KEPT_KINDS: frozenset[str] = frozenset({"policy", "withdrawn", "keys", "reviews", "confirmed"})
KEEP_MOST = 20_000  # files; each is a few hundred bytes to a few KB

Done = Callable[[Exception | None], None]


class TeamDecisions:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._lock = threading.Lock()
        authors = db.read("SELECT key, name, how FROM team_authors")
        self._trusted = {str(r["key"]): str(r["name"]) for r in authors}
        # Trusted by this person's own choice (after checking the key with its owner), not
        # through a hand-over: what settles a key handed over twice.
        self._direct = {str(r["key"]) for r in authors if str(r["how"]) == "direct"}
        self._first_seen = {
            str(r["name"]): float(r["seen_at"])
            for r in db.read("SELECT name, seen_at FROM team_seen")
        }
        self._declined = {str(r["file"]) for r in db.read("SELECT file FROM team_declined")}
        self._accepted = {str(r["file"]) for r in db.read("SELECT file FROM team_accepted")}
        self._seen = {
            (str(r["key"]), str(r["tool"])): int(r["version"])
            for r in db.read("SELECT key, tool, version FROM team_versions")
        }
        # Each kept file is checked again as it is read back: the database may be edited too.
        self._kept: dict[str, SharedFile] = {}
        for r in db.read("SELECT name, kind, data, seen_at FROM team_kept"):
            kind = str(r["kind"])
            if kind not in KEPT_KINDS:
                continue
            raw = r["data"]
            data = raw if isinstance(raw, bytes) else str(raw).encode("utf-8")
            found = read_file(cast(Kind, kind), str(r["name"]), data)
            if found.verdict == "signed":
                self._kept[found.name] = dataclasses.replace(found, seen=float(r["seen_at"]))

    def kept_data(self, names: list[str]) -> list[tuple[Kind, str, bytes]]:
        """The bytes of kept files, to write back into the folder (any thread)."""
        out: list[tuple[Kind, str, bytes]] = []
        for start in range(0, len(names), 500):
            chunk = names[start : start + 500]
            marks = ",".join("?" * len(chunk))
            for r in self._db.read(
                f"SELECT name, kind, data FROM team_kept WHERE name IN ({marks})",
                tuple(chunk),
            ):
                kind, raw = str(r["kind"]), r["data"]
                if kind in KEPT_KINDS:
                    data = raw if isinstance(raw, bytes) else str(raw).encode("utf-8")
                    out.append((cast(Kind, kind), str(r["name"]), data))
        return out

    def first_seen(self) -> dict[str, float]:
        """When this app first saw each file of the folder (Unix time), across restarts."""
        with self._lock:
            return dict(self._first_seen)

    def note_seen(self, seen: dict[str, float]) -> None:
        """Remember when these files were first seen here (the earliest time wins)."""
        with self._lock:
            fresh = {n: t for n, t in seen.items() if t and n not in self._first_seen}
            self._first_seen.update(fresh)
        if not fresh:
            return

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT OR IGNORE INTO team_seen (name, seen_at) VALUES (?, ?)",
                sorted(fresh.items()),
            )

        self._write(write, lambda: None, None)

    def kept(self) -> list[SharedFile]:
        """The signed rules, withdrawals, hand-overs and reviews seen before (rollback
        protection: what is deleted from the folder still counts here)."""
        with self._lock:
            return list(self._kept.values())

    def keep(
        self, files: list[tuple[Kind, str, bytes]], seen: dict[str, float] | None = None
    ) -> None:
        """Remember these signed files of the folder, up to KEEP_MOST in all (any thread:
        each is checked again here). Of confirmations, only each signer's newest is kept."""
        with self._lock:
            room = KEEP_MOST - len(self._kept)
            fresh = [f for f in files if f[1] not in self._kept][: max(0, room)]
        if not fresh:
            return
        now = time.time()
        checked = [
            dataclasses.replace(read_file(kind, name, data), seen=(seen or {}).get(name) or now)
            for kind, name, data in fresh
        ]
        kept = [
            (f, data)
            for (_kind, _name, data), f in zip(fresh, checked, strict=True)
            if f.verdict == "signed"
        ]
        with self._lock:
            replaced = _older_confirmations([f for f, _d in kept], list(self._kept.values()))
        kept = [(f, d) for f, d in kept if f.name not in replaced]
        if not kept:
            return

        def write(conn: sqlite3.Connection) -> None:
            conn.executemany(
                "INSERT OR IGNORE INTO team_kept (name, kind, data, seen_at) VALUES (?, ?, ?, ?)",
                [(f.name, f.kind, data, f.seen) for f, data in kept],
            )
            conn.executemany("DELETE FROM team_kept WHERE name = ?", [(n,) for n in replaced])

        def apply() -> None:
            for f, _data in kept:
                self._kept.setdefault(f.name, f)
            for name in replaced:
                self._kept.pop(name, None)

        self._write(write, apply, None)

    def accepted(self) -> frozenset[str]:
        with self._lock:
            return frozenset(self._accepted)

    def seen(self) -> dict[tuple[str, str], int]:
        with self._lock:
            return dict(self._seen)

    @staticmethod
    def write_accepted(conn: sqlite3.Connection, file_digest: str, key: str, tool: str) -> None:
        """Inside the import's transaction: this shared version is in the library now."""
        conn.execute(
            "INSERT OR REPLACE INTO team_accepted (file, key, tool, at) VALUES (?, ?, ?, ?)",
            (file_digest, key, tool, time.time()),
        )

    def accepted_now(self, file_digest: str) -> None:
        with self._lock:
            self._accepted.add(file_digest)

    def note_versions(self, newer: dict[tuple[str, str], tuple[int, str]]) -> None:
        """Remember the newest version seen of these tools: an older one is never offered
        after it, even once the newer file is gone from the folder."""
        with self._lock:
            fresh = {k: v for k, v in newer.items() if v[0] > self._seen.get(k, 0)}
        if not fresh:
            return

        def write(conn: sqlite3.Connection) -> None:
            for (key, tool), (version, file) in fresh.items():
                conn.execute(
                    "INSERT INTO team_versions (key, tool, version, file) VALUES (?, ?, ?, ?)"
                    " ON CONFLICT (key, tool) DO UPDATE SET version = excluded.version,"
                    " file = excluded.file WHERE excluded.version > team_versions.version",
                    (key, tool, version, file),
                )

        def apply() -> None:
            for pair, (version, _file) in fresh.items():
                self._seen[pair] = max(version, self._seen.get(pair, 0))

        self._write(write, apply, None)

    def trusted(self) -> dict[str, str]:
        with self._lock:
            return dict(self._trusted)

    def direct(self) -> frozenset[str]:
        """The trusted keys this person chose themselves (not through a hand-over)."""
        with self._lock:
            return frozenset(self._direct & set(self._trusted))

    def declined(self) -> set[str]:
        with self._lock:
            return set(self._declined)

    def trust(self, key: str, name: str, done: Done | None = None, vouched: bool = False) -> None:
        """Trust `key` as `name`: this person's own choice, or (`vouched`) because a key they
        trust handed over to it."""

        def apply() -> None:
            self._trusted[key] = name[:AUTHOR]
            if vouched:
                self._direct.discard(key)
            else:
                self._direct.add(key)

        self._write(lambda conn: self.write_trust(conn, key, name, vouched), apply, done)

    @staticmethod
    def write_trust(conn: sqlite3.Connection, key: str, name: str, vouched: bool = False) -> None:
        """Inside someone else's transaction (an import trusts its signer with its tools)."""
        conn.execute(
            "INSERT OR REPLACE INTO team_authors (key, name, trusted_at, how) VALUES (?, ?, ?, ?)",
            (key, name[:AUTHOR], time.time(), "vouched" if vouched else "direct"),
        )

    def trusted_now(self, key: str, name: str) -> None:
        """After that transaction committed: memory follows the disk."""
        with self._lock:
            self._trusted[key] = name[:AUTHOR]
            self._direct.add(key)

    def distrust(self, key: str, done: Done | None = None) -> None:
        def write(conn: sqlite3.Connection) -> None:
            conn.execute("DELETE FROM team_authors WHERE key = ?", (key,))

        def apply() -> None:
            self._trusted.pop(key, None)
            self._direct.discard(key)

        self._write(write, apply, done)

    def decline(self, file_digest: str, done: Done | None = None) -> None:
        def write(conn: sqlite3.Connection) -> None:
            conn.execute(
                "INSERT OR REPLACE INTO team_declined (file, at) VALUES (?, ?)",
                (file_digest, time.time()),
            )

        self._write(write, lambda: self._declined.add(file_digest), done)

    def _write(
        self,
        work: Callable[[sqlite3.Connection], None],
        apply: Callable[[], object],
        done: Done | None,
    ) -> None:
        future = self._db.submit(work)

        def settled() -> None:
            exc = future.exception()
            if exc is None:
                with self._lock:
                    apply()
            if done is not None:
                done(exc if isinstance(exc, Exception) or exc is None else RuntimeError(str(exc)))

        future.add_done_callback(lambda _f: call_on_main(settled))


def _older_confirmations(new: list[SharedFile], kept: list[SharedFile]) -> set[str]:
    """The confirmations, among `new` and `kept`, that a newer one of the same signer
    replaces (by number)."""
    newest: dict[str, SharedFile] = {}
    everything = [f for f in [*kept, *new] if f.kind == "confirmed" and f.info is not None]
    for f in everything:
        best = newest.get(f.key)
        if best is None or (f.info.sequence, f.name) > (best.info.sequence, best.name):
            newest[f.key] = f
    return {f.name for f in everything if newest[f.key].name != f.name}
