"""The person's settings and what the app remembers for them (their name as an author, how a
helpdesk's columns and values map), in the database beside everything else.

Reads come from memory (loaded once); a change is kept in memory at once and written on the
database's thread."""

from __future__ import annotations

import json
import sqlite3
import threading
from typing import Any

from understudy_desktop.store.database import Database

AUTHOR_NAME = "author_name"


class Settings:
    def __init__(self, db: Database) -> None:
        self._db = db
        self._lock = threading.Lock()
        self._values: dict[str, Any] = {}
        for key, value in db.read("SELECT key, value FROM settings"):
            try:
                self._values[str(key)] = json.loads(value)
            except ValueError:
                continue  # an unreadable setting is as good as unset

    def get(self, key: str, default: Any = None) -> Any:
        with self._lock:
            return self._values.get(key, default)

    def set(self, key: str, value: Any) -> None:
        text = json.dumps(value, ensure_ascii=True)
        with self._lock:
            self._values[key] = json.loads(text)

        def write(conn: sqlite3.Connection) -> None:
            conn.execute("INSERT OR REPLACE INTO settings (key, value) VALUES (?, ?)", (key, text))

        self._db.submit(write)

    def flush(self) -> None:
        """Wait until every setting changed so far is on disk (tests, shutdown)."""
        self._db.write(lambda _conn: None)
