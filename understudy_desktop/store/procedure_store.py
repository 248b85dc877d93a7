"""The files: tools/<name>.json and recordings/<id>.json under the data dir.

Writes are atomic (temp file, fsync, rename). A file that does not parse or validate is moved
to quarantine/ with the reason, and every other file still loads.
"""

from __future__ import annotations

import json
import logging
import re
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from understudy_desktop.queue_io import write_atomically
from understudy_desktop.store.models import StoredRecording, StoredTool, migrate

log = logging.getLogger(__name__)
SAFE_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,80}$")


@dataclass
class Loaded:
    tools: dict[str, StoredTool] = field(default_factory=dict)
    recordings: dict[str, StoredRecording] = field(default_factory=dict)
    quarantined: list[tuple[str, str]] = field(default_factory=list)  # (file, reason)


class ProcedureStore:
    def __init__(self, data_dir: Path) -> None:
        self.root = data_dir
        self.tools_dir = data_dir / "tools"
        self.recordings_dir = data_dir / "recordings"
        self.quarantine_dir = data_dir / "quarantine"

    def load(self) -> Loaded:
        loaded = Loaded()
        for path in sorted(self.tools_dir.glob("*.json")):
            tool = self._read(path, StoredTool, loaded)
            if isinstance(tool, StoredTool):
                loaded.tools[tool.name] = tool
        for path in sorted(self.recordings_dir.glob("*.json")):
            recording = self._read(path, StoredRecording, loaded)
            if isinstance(recording, StoredRecording):
                loaded.recordings[recording.id] = recording
        return loaded

    def _read(self, path: Path, model: type[BaseModel], loaded: Loaded) -> BaseModel | None:
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(raw, dict):
                raise ValueError("not a JSON object")
            return model.model_validate(migrate(raw))
        except (OSError, ValueError, ValidationError) as exc:
            reason = _reason(exc)
            self._quarantine(path, reason)
            loaded.quarantined.append((path.name, reason))
            return None

    def _quarantine(self, path: Path, reason: str) -> None:
        self.quarantine_dir.mkdir(parents=True, exist_ok=True)
        stamp = time.strftime("%Y%m%d-%H%M%S")
        target = self.quarantine_dir / f"{stamp}-{path.parent.name}-{path.name}"
        shutil.move(str(path), target)
        target.with_suffix(".reason.txt").write_text(reason + "\n", encoding="utf-8")
        log.warning("moved %s to quarantine: %s", path.name, reason)

    def write_tool(self, record: dict[str, Any]) -> None:
        tool = StoredTool.model_validate(record)
        self._write(self.tools_dir, tool.name, tool)

    def write_recording(self, record: dict[str, Any]) -> None:
        recording = StoredRecording.model_validate(record)
        self._write(self.recordings_dir, recording.id, recording)

    def delete_tool(self, name: str) -> None:
        if SAFE_NAME.match(name):
            (self.tools_dir / f"{name}.json").unlink(missing_ok=True)

    def delete_recording(self, rec_id: str) -> None:
        if SAFE_NAME.match(rec_id):
            (self.recordings_dir / f"{rec_id}.json").unlink(missing_ok=True)

    @staticmethod
    def _write(directory: Path, key: str, model: BaseModel) -> None:
        if not SAFE_NAME.match(key):
            raise ValueError(f"not a safe file name: {key[:40]!r}")
        directory.mkdir(parents=True, exist_ok=True)
        data = json.dumps(model.model_dump(mode="json"), indent=2).encode("utf-8")
        write_atomically(directory / f"{key}.json", data)


def _reason(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ())) or "the file"
        return f"{where}: {first.get('msg', 'invalid')}"
    if isinstance(exc, json.JSONDecodeError):
        return f"not valid JSON (line {exc.lineno})"
    return str(exc)[:200]
