"""Where a Save or Export dialog starts: the person's documents folder, not the folder the app
happened to be started from (a temporary folder, for an app started from a launcher)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths


def documents_folder() -> Path:
    found = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    folder = Path(found) if found else Path.home()
    return folder if folder.is_dir() else Path.home()


def save_start(name: str, known: Path | None = None) -> str:
    """`known` (a file the person chose before) when its folder is still there; else `name`
    in the documents folder."""
    if known is not None and known.parent.is_dir():
        return str(known)
    return str(documents_folder() / name)
