"""Approval records of taught tools: the SHA-256 of each approved definition, on disk.

The agent endpoint lists and runs only tools whose current definition hashes to an approval
record; a definition changed by anyone (a page script, a tampered file, a pack) no longer
matches and is held back until a person reviews it again.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import rfc8785

APPROVALS_FILE = "approvals.json"
FILE_VERSION = 1
HASHED_FIELDS = ("name", "title", "description", "inputSchema", "annotations", "steps")


def definition_hash(definition: dict[str, Any]) -> str:
    """SHA-256 over the RFC 8785 form of what was approved (the page computes the same)."""
    subset = {k: definition[k] for k in HASHED_FIELDS if k in definition}
    canonical: bytes = rfc8785.dumps(subset)
    return hashlib.sha256(canonical).hexdigest()


@dataclass(frozen=True)
class ApprovalRecord:
    name: str
    hash: str
    approved_at: float
    ask_every_time: bool = False


class ApprovalStore:
    """Thread-safe: the endpoint reads it on its own thread, the dialog writes on Qt's."""

    def __init__(self, data_dir: Path) -> None:
        self._path = data_dir / APPROVALS_FILE
        self._lock = threading.Lock()
        self._records: dict[str, ApprovalRecord] = {}
        self._load()

    def _load(self) -> None:
        try:
            raw = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return
        except (OSError, ValueError):
            # Unreadable approvals approve nothing; the file is kept for a person to look at.
            self._path.replace(self._path.with_suffix(".unreadable.json"))
            return
        for item in raw.get("approvals", []):
            try:
                record = ApprovalRecord(**item)
            except TypeError:
                continue
            self._records[record.name] = record

    def _save(self) -> None:
        self._path.parent.mkdir(parents=True, exist_ok=True)
        body = json.dumps(
            {"version": FILE_VERSION, "approvals": [asdict(r) for r in self._records.values()]},
            indent=2,
        )
        fd, tmp = tempfile.mkstemp(prefix=".approvals-", dir=self._path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(body)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, self._path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def record(self, name: str, digest: str, ask_every_time: bool | None = None) -> ApprovalRecord:
        with self._lock:
            previous = self._records.get(name)
            keep_asking = previous.ask_every_time if previous and ask_every_time is None else False
            record = ApprovalRecord(
                name,
                digest,
                time.time(),
                bool(ask_every_time) if ask_every_time is not None else keep_asking,
            )
            self._records[name] = record
            self._save()
            return record

    def set_ask_every_time(self, name: str, value: bool) -> bool:
        with self._lock:
            record = self._records.get(name)
            if record is None:
                return False
            self._records[name] = ApprovalRecord(name, record.hash, record.approved_at, value)
            self._save()
            return True

    def forget(self, name: str) -> None:
        with self._lock:
            if self._records.pop(name, None) is not None:
                self._save()

    def get(self, name: str) -> ApprovalRecord | None:
        with self._lock:
            return self._records.get(name)

    def matches(self, name: str, digest: str) -> bool:
        record = self.get(name)
        return record is not None and record.hash == digest
