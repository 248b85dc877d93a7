"""Data folders written by Understudy 0.1 kept tools and recordings as JSON files beside an
approvals.json. The first start of this version moves them into the database, once, in one
transaction, and keeps the old files in legacy-files/ for a person to look at.

A tool keeps its approval only if approvals.json approved exactly its definition; any other
tool arrives held back for review. Damaged files are left in place and named in the log.
"""

from __future__ import annotations

import json
import logging
import shutil
import sqlite3
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from understudy_desktop.consent.seal import ApprovalSeal
from understudy_desktop.library import store
from understudy_desktop.library.model import Origin, TaughtTool, Usage, definition_hash
from understudy_desktop.store.database import Database
from understudy_desktop.store.models import StoredRecording, StoredTool, migrate

log = logging.getLogger(__name__)
LEGACY_DIR = "legacy-files"
NOT_APPROVED = "it came from an older Understudy without a matching approval; review it"


def _approvals(root: Path) -> dict[str, str]:
    try:
        raw = json.loads((root / "approvals.json").read_text(encoding="utf-8"))
        return {str(a["name"]): str(a["hash"]) for a in raw.get("approvals", [])}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _read(path: Path) -> dict[str, Any] | None:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return migrate(raw) if isinstance(raw, dict) else None
    except (OSError, ValueError):
        log.warning("left an unreadable legacy file in place: %s", path.name)
        return None


def _timestamp(text: str) -> float:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return time.time()


def _tool(old: StoredTool, approved: dict[str, str]) -> tuple[TaughtTool, Usage]:
    digest = definition_hash(old.definition)
    keeps_approval = approved.get(old.name) == digest
    author = old.author if old.author in ("person", "agent", "pack") else "person"
    tool = TaughtTool(
        name=old.name,
        definition=old.definition,
        digest=digest if keeps_approval else "",
        status=old.status if keeps_approval else "needs_review",
        origin=Origin(by=author),  # type: ignore[arg-type]
        created_at=_timestamp(old.createdAt),
        approved_at=time.time(),
        ask_every_time=old.askEveryTime,
        review_reason=(old.reviewReason or "") if keeps_approval else NOT_APPROVED,
        note=old.note or "",
    )
    stats = old.stats or {}
    usage = Usage(
        runs=int(stats.get("invocations", 0)),
        successes=int(stats.get("successes", 0)),
        last_failure=stats.get("lastFailure"),
    )
    return tool, usage


def migrate_legacy_files(root: Path, db: Database, seal: ApprovalSeal) -> int:
    """Move 0.1's files into the database; returns how many items moved (0: nothing to do)."""
    tools_dir, recordings_dir = root / "tools", root / "recordings"
    approvals_file = root / "approvals.json"
    if not (tools_dir.is_dir() or recordings_dir.is_dir() or approvals_file.exists()):
        return 0
    approved = _approvals(root)
    tools: list[tuple[TaughtTool, Usage]] = []
    recordings: list[dict[str, Any]] = []
    for path in sorted(tools_dir.glob("*.json")):
        raw = _read(path)
        try:
            if raw is not None:
                tools.append(_tool(StoredTool.model_validate(raw), approved))
        except ValidationError:
            log.warning("left a legacy tool file that does not validate: %s", path.name)
    for path in sorted(recordings_dir.glob("*.json")):
        raw = _read(path)
        try:
            if raw is not None:
                recordings.append(StoredRecording.model_validate(raw).model_dump(mode="json"))
        except ValidationError:
            log.warning("left a legacy recording file that does not validate: %s", path.name)

    def write(conn: sqlite3.Connection) -> None:
        known = {r[0] for r in conn.execute("SELECT name FROM tools")}
        for tool, usage in tools:
            if tool.status != "needs_review":
                # 0.1 approved exactly this definition on this computer: it stays approved.
                tool = tool.but(seal=seal.seal(tool.name, tool.digest))
            if tool.name not in known:
                store.write_tool(conn, tool)
                store.write_usage(conn, tool.name, usage)
        for recording in recordings:
            recording.pop("fileVersion", None)
            store.write_recording(conn, recording)

    db.write(write)
    # Only after the database has them: keep the old files aside, out of the way.
    keep = root / LEGACY_DIR / time.strftime("%Y%m%d-%H%M%S")
    keep.mkdir(parents=True, exist_ok=True)
    for item in (tools_dir, recordings_dir, approvals_file):
        if item.exists():
            shutil.move(str(item), keep / item.name)
    log.info("moved %d tools and %d recordings into the database", len(tools), len(recordings))
    return len(tools) + len(recordings)
