"""Taught tools, their usage and recordings in the database.

A tool's definition and its approval (the digest) are columns of one row, so they are written
together or not at all; a revoke deletes the row and its usage in one transaction. Functions
named `write_*` run inside a writer transaction (Database.submit).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.library.model import Origin, TaughtTool, Usage
from understudy_desktop.store.database import Database

log = logging.getLogger(__name__)


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


@dataclass
class Loaded:
    tools: dict[str, TaughtTool] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    recordings: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)  # rows that could not be read


def load(db: Database) -> Loaded:
    loaded = Loaded()
    for row in db.read("SELECT * FROM tools ORDER BY name"):
        try:
            definition = json.loads(row["definition"])
            if not isinstance(definition, dict):
                raise ValueError("the definition is not an object")
            loaded.tools[row["name"]] = TaughtTool(
                name=str(row["name"]),
                definition=definition,
                digest=str(row["digest"]),
                status=row["status"],
                origin=Origin.from_dict(json.loads(row["origin"])),
                created_at=float(row["created_at"]),
                approved_at=float(row["approved_at"]),
                ask_every_time=bool(row["ask_every_time"]),
                review_reason=str(row["review_reason"]),
                note=str(row["note"]),
                seal=str(row["seal"]),
                held=str(row["held"]),
            )
        except (ValueError, TypeError, KeyError) as exc:
            loaded.problems.append(f"{str(row['name'])[:40]}: {exc}")
    for row in db.read("SELECT * FROM tool_usage"):
        failure = json.loads(row["last_failure"]) if row["last_failure"] else None
        loaded.usage[row["name"]] = Usage(
            int(row["runs"]), int(row["successes"]), row["last_used"], failure
        )
    for row in db.read("SELECT id, revision, body FROM recordings"):
        try:
            body = json.loads(row["body"])
            body["revision"] = int(row["revision"])
            loaded.recordings[str(row["id"])] = body
        except ValueError as exc:
            loaded.problems.append(f"recording {str(row['id'])[:40]}: {exc}")
    return loaded


def write_tool(conn: sqlite3.Connection, tool: TaughtTool) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO tools (name, definition, digest, status, review_reason, note,"
        " ask_every_time, origin, created_at, approved_at, seal, held)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
        (
            tool.name,
            _dumps(tool.definition),
            tool.digest,
            tool.status,
            tool.review_reason,
            tool.note,
            int(tool.ask_every_time),
            _dumps(tool.origin.as_dict()),
            tool.created_at,
            tool.approved_at,
            tool.seal,
            tool.held,
        ),
    )


def delete_tool(conn: sqlite3.Connection, name: str) -> None:
    conn.execute("DELETE FROM tools WHERE name = ?", (name,))
    conn.execute("DELETE FROM tool_usage WHERE name = ?", (name,))


def write_usage(conn: sqlite3.Connection, name: str, usage: Usage) -> None:
    conn.execute(
        "INSERT OR REPLACE INTO tool_usage (name, runs, successes, last_used, last_failure)"
        " VALUES (?,?,?,?,?)",
        (
            name,
            usage.runs,
            usage.successes,
            usage.last_used,
            _dumps(usage.last_failure) if usage.last_failure else None,
        ),
    )


def write_recording(conn: sqlite3.Connection, recording: dict[str, Any]) -> None:
    body = {k: v for k, v in recording.items() if k != "revision"}
    conn.execute(
        "INSERT OR REPLACE INTO recordings (id, revision, body) VALUES (?,?,?)",
        (str(recording["id"]), int(recording.get("revision", 0)), _dumps(body)),
    )


def delete_recording(conn: sqlite3.Connection, rec_id: str) -> None:
    conn.execute("DELETE FROM recordings WHERE id = ?", (rec_id,))
