"""The team folder's layout, and reading and writing it. No Qt here: scans run on a worker
thread, and tests and benchmarks use this directly.

    <team folder>/
        tools/<sha256>.understudy-pack.json           one tool version, a signed pack
        withdrawn/<sha256>.understudy-withdrawal.json  an author withdrawing a tool, signed
        usage/<sha256>.understudy-usage.json          one person's counts (numbers only), signed

Every file is named by the SHA-256 of its bytes and never rewritten, so whatever a sync
service does, two people writing at once write two different names, and a copy it makes
("… (1).json", "… (conflicted copy …).json", "…-LAPTOP.json") is a name that is not a hash,
which the reader skips. A file named by a hash its bytes do not have was changed in the folder.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from understudy_desktop.atomic_file import write_atomically
from understudy_desktop.team.signing import Checked, Verdict, check

Kind = Literal["tools", "withdrawn", "usage"]
SUFFIX: dict[Kind, str] = {
    "tools": ".understudy-pack.json",
    "withdrawn": ".understudy-withdrawal.json",
    "usage": ".understudy-usage.json",
}
KINDS: tuple[Kind, ...] = ("tools", "withdrawn", "usage")
MAX_FILE_BYTES = 2 * 1024 * 1024
README = "READ ME.txt"
README_TEXT = (
    "This folder is an Understudy team library.\n\n"
    "Each file is one shared tool, one withdrawal or one person's usage counts, signed by the\n"
    "person who shared it. Understudy never changes a file here once it is written: please do\n"
    "not edit, rename or move them. Copies that a sync service makes are ignored.\n"
)
_NAME = {kind: re.compile(r"^([0-9a-f]{64})" + re.escape(SUFFIX[kind]) + r"$") for kind in KINDS}


def content_name(data: bytes, kind: Kind) -> str:
    return hashlib.sha256(data).hexdigest() + SUFFIX[kind]


@dataclass(frozen=True)
class SharedFile:
    """One file of the folder, read and checked."""

    kind: Kind
    name: str  # its file name: the hash of its bytes, and a suffix
    verdict: Verdict
    document: dict[str, Any] | None
    key: str  # the signer's public key (hex) when signed
    data: bytes

    @property
    def digest(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def author(self) -> str:
        value = (self.document or {}).get("author")
        return str(value)[:120] if isinstance(value, str) else ""

    @property
    def created(self) -> str:
        value = (self.document or {}).get("created")
        return str(value)[:40] if isinstance(value, str) else ""


@dataclass
class FolderScan:
    """What a scan found. `reachable` False: the folder is not there just now (unmounted,
    offline); nothing is concluded from an empty scan of a missing folder."""

    folder: Path
    reachable: bool
    laid_out: bool = False  # it has this layout (the note or a kind's folder), not just empty
    files: list[SharedFile] = field(default_factory=list)
    skipped: int = 0  # names that are not ours: sync copies, temporary files, strays
    took_s: float = 0.0

    def of(self, kind: Kind) -> list[SharedFile]:
        return [f for f in self.files if f.kind == kind]


class FolderReader:
    """Scans a folder, remembering files it has read: they never change under their name, so
    a scan of an unchanged folder only lists it (cheap enough to poll a network share)."""

    def __init__(self) -> None:
        self._known: dict[tuple[Kind, str, int, int], SharedFile] = {}

    def scan(self, folder: Path) -> FolderScan:
        started = time.perf_counter()
        if not folder.is_dir():
            return FolderScan(folder, reachable=False)
        scan = FolderScan(folder, reachable=True, laid_out=has_layout(folder))
        seen: set[tuple[Kind, str, int, int]] = set()
        for kind in KINDS:
            try:
                entries = list(os.scandir(folder / kind))
            except FileNotFoundError:
                continue
            except OSError:
                scan.reachable = False
                return scan
            for entry in entries:
                found = self._read(kind, entry, seen)
                if found is None:
                    scan.skipped += 1
                else:
                    scan.files.append(found)
        # Forget files that left the folder.
        self._known = {k: v for k, v in self._known.items() if k in seen}
        scan.files.sort(key=lambda f: (f.kind, f.name))
        scan.took_s = time.perf_counter() - started
        return scan

    def _read(
        self, kind: Kind, entry: os.DirEntry[str], seen: set[tuple[Kind, str, int, int]]
    ) -> SharedFile | None:
        if _NAME[kind].match(entry.name) is None:
            return None
        try:
            info = entry.stat()
        except OSError:
            return None
        size = info.st_size
        # No links: a file of the folder is the folder's own, not one elsewhere on this disk.
        if not entry.is_file(follow_symlinks=False) or size > MAX_FILE_BYTES:
            return None
        # Files are never rewritten, but someone may edit one in place: a changed size or
        # modification time reads it again.
        key = (kind, entry.name, size, info.st_mtime_ns)
        seen.add(key)
        known = self._known.get(key)
        if known is not None:
            return known
        try:
            data = Path(entry.path).read_bytes()
        except OSError:
            return None  # mid-sync or gone: the next scan sees it
        found = read_file(kind, entry.name, data)
        self._known[key] = found
        return found


def read_file(kind: Kind, name: str, data: bytes) -> SharedFile:
    checked: Checked = check(data)
    verdict = checked.verdict
    if content_name(data, kind) != name:
        verdict = "changed"  # its bytes are not the ones it was named for
    return SharedFile(
        kind, name, verdict, checked.document, checked.key if verdict == "signed" else "", data
    )


def has_layout(folder: Path) -> bool:
    return (folder / README).is_file() or any((folder / k).is_dir() for k in KINDS)


def write_shared(folder: Path, kind: Kind, data: bytes, expect_layout: bool = False) -> Path:
    """Put one signed file into the folder under its content name. Writing a file that is
    there already changes nothing (the same bytes). OSError is the caller's to word.

    The team folder itself is never made here: a missing one is an unplugged drive, not a
    place to start anew. `expect_layout` (this person has seen the folder in use) also
    refuses a folder that is there but empty, as an unmounted network share's mount point is:
    a file written there would stay on this computer and reach nobody."""
    if not folder.is_dir():
        raise FileNotFoundError(errno.ENOENT, "the team folder is not there", str(folder))
    if expect_layout and not has_layout(folder):
        raise FileNotFoundError(errno.ENOENT, "the team folder is empty", str(folder))
    target_dir = folder / kind
    target_dir.mkdir(exist_ok=True)
    readme = folder / README
    if not readme.exists():
        with contextlib.suppress(OSError):  # a note for people; the library works without it
            write_atomically(readme, README_TEXT.encode("utf-8"), mode=0o644, replace=False)
    path = target_dir / content_name(data, kind)
    if path.exists():
        return path
    try:
        write_atomically(path, data, mode=0o644, replace=False)
    except FileExistsError:
        pass  # someone else wrote these very bytes a moment ago
    except OSError:
        # Some network file systems have no hard links; a rename is as good here, since the
        # name is the content.
        write_atomically(path, data, mode=0o644, replace=True)
    return path


def remove_own(folder: Path, kind: Kind, names: list[str]) -> None:
    """Delete files this person wrote and has replaced (their old usage counts)."""
    for name in names:
        if _NAME[kind].match(name):
            with contextlib.suppress(OSError):
                (folder / kind / name).unlink()
