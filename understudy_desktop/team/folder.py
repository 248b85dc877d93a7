"""The team folder's layout, and reading and writing it. No Qt here: scans run on a worker
thread, and tests and benchmarks use this directly.

    <team folder>/
        tools/<sha256>.understudy-pack.json           one tool version, a signed pack
        withdrawn/<sha256>.understudy-withdrawal.json  an author withdrawing a tool, signed
        usage/<sha256>.understudy-usage.json          one person's counts (numbers only), signed
        reviews/<sha256>.understudy-review.json       a member accepted a version, signed
        keys/<sha256>.understudy-key.json             an author's new key, vouched by the old
        policy/<sha256>.understudy-policy.json        the team lead's rules, signed
        confirmed/<sha256>.understudy-confirmation.json  the lead confirming the newest rules

Every file is named by the SHA-256 of its bytes and never rewritten, so whatever a sync
service does, two people writing at once write two different names, and a copy it makes
("… (1).json", "… (conflicted copy …).json", "…-LAPTOP.json") is a name that is not a hash,
which the reader skips. A file named by a hash its bytes do not have was changed in the
folder, or is still arriving: it waits quietly while it is young, and is "changed" after.

No link is followed below the team folder (team/no_links.py). A scan keeps a short summary of
each file, not its bytes: a version is read again, and checked again, when it is reviewed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import hashlib
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import rfc8785

from understudy_desktop.library.model import definition_hash
from understudy_desktop.rules import rules
from understudy_desktop.team import documents
from understudy_desktop.team.documents import AUTHOR
from understudy_desktop.team.fingerprint import does
from understudy_desktop.team.no_links import Folder, LinkRefusedError
from understudy_desktop.team.signing import Checked, Verdict, check

Kind = Literal["tools", "withdrawn", "usage", "reviews", "keys", "policy", "confirmed"]
SUFFIX: dict[Kind, str] = {
    "tools": ".understudy-pack.json",
    "withdrawn": ".understudy-withdrawal.json",
    "usage": ".understudy-usage.json",
    "reviews": ".understudy-review.json",
    "keys": ".understudy-key.json",
    "policy": ".understudy-policy.json",
    "confirmed": ".understudy-confirmation.json",
}
KINDS: tuple[Kind, ...] = (
    "tools",
    "withdrawn",
    "usage",
    "reviews",
    "keys",
    "policy",
    "confirmed",
)
MAX_FILE_BYTES = 2 * 1024 * 1024
# A file whose bytes do not match its name yet, modified this recently, is taken as still
# being copied in (a plain copy or a slow share writes it in pieces), not as tampered with.
ARRIVING_S = 120.0
# A folder whose subfolders did not change (no name added or removed) is not listed again;
# a full listing still runs this often, for a file edited in place under its old name.
RELIST_S = 60.0
MTIME_TICK_S = 2.5
README = "READ ME.txt"
README_TEXT = (
    "This folder is an Understudy team library.\n\n"
    "Each file is one shared tool, one withdrawal, one review, one person's usage counts or\n"
    "the team lead's rules, signed by the person who wrote it. Understudy never changes a file\n"
    "here once it is written: please do not edit, rename or move them. Copies that a sync\n"
    "service makes are ignored, and so are links.\n"
)
_NAME = {kind: re.compile(r"^([0-9a-f]{64})" + re.escape(SUFFIX[kind]) + r"$") for kind in KINDS}


def content_name(data: bytes, kind: Kind) -> str:
    return hashlib.sha256(data).hexdigest() + SUFFIX[kind]


@dataclass(frozen=True)
class SharedFile:
    """One file of the folder, read, checked and summed up (its bytes are not kept)."""

    kind: Kind
    name: str  # its file name: the hash of its bytes, and a suffix
    verdict: Verdict
    key: str = ""  # the signer's public key (hex) when signed
    author: str = ""  # the name the file gives its author
    created: str = ""
    tool: str = ""  # the tool it is about ('' when it names none a tool could have)
    title: str = ""  # tools: its title in words, as the file gives it
    version: int = 0  # tools: the version number its author signed (0: none)
    definition: str = ""  # tools: what its tool's definition hashes to
    steps: str = ""  # tools: what its steps and questions hash to, whatever it is called
    does: str = ""  # tools: what it does (team/fingerprint.py), whatever its wording
    same: str = ""  # tools: its tools and author, hashed (an unchanged share has the same)
    info: Any = None  # the typed document of the other kinds (documents.py), None if unfit
    size: int = 0
    seen: float = 0.0  # when this app first read it (Unix time; 0: not known)

    @property
    def digest(self) -> str:
        return self.name.split(".", 1)[0]


@dataclass
class FolderScan:
    """What a scan found. `reachable` False: the folder is not there just now (unmounted,
    offline); nothing is concluded from an empty scan of a missing folder."""

    folder: Path
    reachable: bool
    laid_out: bool = False  # it has this layout (the note or a kind's folder), not just empty
    files: list[SharedFile] = field(default_factory=list)
    skipped: int = 0  # names that are not ours: sync copies, temporary files, strays
    arriving: int = 0  # files still being copied in
    links: list[str] = field(default_factory=list)  # subfolders that were links: not read
    took_s: float = 0.0
    same_as_before: bool = False  # nothing changed since the scan before: nothing to redo

    def of(self, kind: Kind) -> list[SharedFile]:
        return [f for f in self.files if f.kind == kind]

    def signature(self) -> tuple[Any, ...]:
        return (
            self.reachable,
            self.laid_out,
            tuple((f.name, f.verdict, f.size) for f in self.files),  # an edit in place too
            self.arriving,
            tuple(self.links),
        )


def share_digest(pack: dict[str, Any]) -> str:
    """What a share is, to tell one shared again unchanged: its tools and author, hashed.
    Raises rfc8785.CanonicalizationError (or TypeError) for what JSON cannot hold."""
    return hashlib.sha256(rfc8785.dumps([pack.get("tools"), pack.get("author")])).hexdigest()


def _tool_fields(document: dict[str, Any] | None) -> dict[str, Any]:
    document = document or {}
    tools = document.get("tools")
    if not (isinstance(tools, list) and len(tools) == 1 and isinstance(tools[0], dict)):
        return {}  # a team file is one tool; anything else offers nothing
    tool = tools[0]
    name = tool.get("name")
    if not isinstance(name, str) or rules().tool_name.fullmatch(name) is None:
        return {}  # never a name such as "../../etc/passwd": not counted, not offered
    version = document.get("teamVersion")
    try:
        same = share_digest(document)
        digest = definition_hash(tool)
        steps = hashlib.sha256(
            rfc8785.dumps([tool.get("steps"), tool.get("inputSchema")])
        ).hexdigest()
        what = does(tool)
    except (rfc8785.CanonicalizationError, TypeError, ValueError, RecursionError):
        return {}
    title = tool.get("title")
    return {
        "tool": name,
        "title": title[: rules().budgets.title] if isinstance(title, str) else "",
        "version": version if isinstance(version, int) and 0 < version <= 10**9 else 0,
        "definition": digest,
        "steps": steps,
        "does": what,
        "same": same,
    }


_TYPED = {
    "withdrawn": documents.as_withdrawal,
    "usage": documents.as_usage,
    "reviews": documents.as_review,
    "keys": documents.as_handover,
    "policy": documents.as_policy,
    "confirmed": documents.as_confirmation,
}


def read_file(kind: Kind, name: str, data: bytes) -> SharedFile:
    checked: Checked = check(data)
    verdict = checked.verdict
    if content_name(data, kind) != name:
        verdict = "changed"  # its bytes are not the ones it was named for
    document = checked.document
    author = document.get("author") if isinstance(document, dict) else None
    created = document.get("created") if isinstance(document, dict) else None
    summary: dict[str, Any] = {
        "key": checked.key if verdict == "signed" else "",
        "author": author[:AUTHOR] if isinstance(author, str) else "",
        "created": created[: rules().limits.timestamp] if isinstance(created, str) else "",
        "size": len(data),
    }
    if kind == "tools":
        summary.update(_tool_fields(document))
    elif verdict == "signed":
        info = _TYPED[kind](document)
        summary["info"] = info
        tool = getattr(info, "tool", "")
        if isinstance(tool, str) and rules().tool_name.fullmatch(tool):
            summary["tool"] = tool
    return SharedFile(kind, name, verdict, **summary)


def has_layout(folder: Folder) -> bool:
    return folder.exists(README) or any(_is_dir(folder, k) for k in KINDS)


def _is_dir(folder: Folder, name: str) -> bool:
    try:
        sub = folder.sub(name)
    except OSError:
        return True  # something is there (a link, which is refused when used)
    if sub is None:
        return False
    sub.close()
    return True


class FolderReader:
    """Scans a folder, remembering files it has read: they never change under their name, so
    a scan of an unchanged folder does not list it again (cheap enough to poll a share)."""

    def __init__(self, clock: Any = time.time, first_seen: dict[str, float] | None = None) -> None:
        # When this app first saw each file, from earlier runs (team/trust.py keeps it): a
        # file's `seen` is that, not this run's first scan.
        self._first_seen = first_seen or {}
        self._known: dict[tuple[Kind, str, int, int], SharedFile] = {}
        self._growing: dict[tuple[Kind, str], tuple[int, int]] = {}  # arriving: size, time
        self._stamps: tuple[Any, ...] | None = None
        self._listed_at = 0.0
        self._last: FolderScan | None = None
        self._clock = clock

    def scan(self, folder: Path) -> FolderScan:
        started = time.perf_counter()
        try:
            root = Folder.open_root(folder)
        except OSError:
            self._stamps = None
            return FolderScan(folder, reachable=False)
        with root:
            try:
                scan = self._scan(folder, root)
            except OSError:
                self._stamps = None
                return FolderScan(folder, reachable=False)
        scan.took_s = time.perf_counter() - started
        return scan

    def _scan(self, path: Path, root: Folder) -> FolderScan:
        subs: dict[Kind, Folder] = {}
        links: list[str] = []
        try:
            for kind in KINDS:
                try:
                    sub = root.sub(kind)
                except LinkRefusedError:
                    links.append(kind)
                    continue
                if sub is not None:
                    subs[kind] = sub
            root_stamp = root.stamp()
            sub_stamps = tuple((k, s.stamp()) for k, s in subs.items())
            stamps = (root_stamp, sub_stamps, tuple(links))
            now = self._clock()
            last = self._last
            # A folder time this recent may not show a name added in the same tick (some
            # file systems keep seconds, or two): such a folder is listed again.
            newest = max([root_stamp[1], *(stamp[1] for _k, stamp in sub_stamps)])
            settled = now - newest / 1e9 > MTIME_TICK_S
            if (
                last is not None
                and stamps == self._stamps
                and settled
                and now - self._listed_at < RELIST_S
                and not last.arriving
            ):
                return _again(last)
            scan = FolderScan(path, reachable=True, laid_out=has_layout(root), links=links)
            seen: set[tuple[Kind, str, int, int]] = set()
            for kind, sub in subs.items():
                for entry in sub.files():
                    if not entry.plain:
                        scan.skipped += 1  # a link (or a folder) in place of a file
                        continue
                    found = self._read(kind, sub, entry.name, entry.size, entry.mtime_ns, seen)
                    if found is None:
                        scan.skipped += 1
                    elif found == "arriving":
                        scan.arriving += 1
                    else:
                        scan.files.append(found)
        finally:
            for sub in subs.values():
                sub.close()
        # Forget files that left the folder.
        self._known = {k: v for k, v in self._known.items() if k in seen}
        scan.files.sort(key=lambda f: (f.kind, f.name))
        scan.same_as_before = last is not None and last.signature() == scan.signature()
        self._stamps, self._listed_at, self._last = stamps, now, scan
        return scan

    def _read(
        self,
        kind: Kind,
        sub: Folder,
        name: str,
        size: int,
        mtime_ns: int,
        seen: set[tuple[Kind, str, int, int]],
    ) -> SharedFile | Literal["arriving"] | None:
        if _NAME[kind].match(name) is None or size > MAX_FILE_BYTES:
            return None
        # Files are never rewritten, but someone may edit one in place: a changed size or
        # modification time reads it again.
        key = (kind, name, size, mtime_ns)
        known = self._known.get(key)
        if known is not None:
            seen.add(key)
            return known
        data = sub.read(name, MAX_FILE_BYTES)
        if data is None:
            return None  # a link, mid-sync or gone: the next scan sees it
        first = self._first_seen.get(name) or self._clock()
        found = dataclasses.replace(read_file(kind, name, data), seen=first)
        if found.verdict == "changed" and content_name(data, kind) != name:
            # Not (yet) the bytes it is named for. Seen for the first time, or grown since
            # the last scan, and modified lately: still being copied in. It is read again at
            # the next scan (the watcher scans again soon), and judged once it stays put.
            young = self._clock() - mtime_ns / 1e9 < ARRIVING_S
            before = self._growing.get((kind, name))
            self._growing[(kind, name)] = (size, mtime_ns)
            if young and before != (size, mtime_ns):
                return "arriving"
        self._growing.pop((kind, name), None)
        seen.add(key)
        self._known[key] = found
        return found


def _again(last: FolderScan) -> FolderScan:
    return FolderScan(
        last.folder,
        last.reachable,
        last.laid_out,
        last.files,
        last.skipped,
        last.arriving,
        last.links,
        same_as_before=True,
    )


def load(folder: Path, file: SharedFile) -> bytes | None:
    """The bytes of a file a scan found, read again (never through a link) and checked to be
    the same ones: None when it is gone or no longer what it was."""
    try:
        with Folder.open_root(folder) as root:
            sub = root.sub(file.kind)
            if sub is None:
                return None
            with sub:
                data = sub.read(file.name, MAX_FILE_BYTES)
    except OSError:
        return None
    if data is None or content_name(data, file.kind) != file.name:
        return None
    return data


def write_shared(folder: Path, kind: Kind, data: bytes, expect_layout: bool = False) -> Path:
    """Put one signed file into the folder (write_file says how); its path."""
    return write_file(folder, kind, data, expect_layout)[0]


def write_file(
    folder: Path, kind: Kind, data: bytes, expect_layout: bool = False
) -> tuple[Path, bool]:
    """Put one signed file into the folder under its content name, and say whether it was
    written now (False: it was there already, the same bytes). OSError is the caller's to
    word; a link in the way is LinkRefusedError.

    The team folder itself is never made here: a missing one is an unplugged drive, not a
    place to start anew. `expect_layout` (this person has seen the folder in use) also
    refuses a folder that is there but empty, as an unmounted network share's mount point is:
    a file written there would stay on this computer and reach nobody."""
    name = content_name(data, kind)
    with Folder.open_root(folder) as root:
        if expect_layout and not has_layout(root):
            raise FileNotFoundError(errno.ENOENT, "the team folder is empty", str(folder))
        if not root.exists(README):
            with contextlib.suppress(OSError):  # a note for people; the library works without it
                root.write_new(README, README_TEXT.encode("utf-8"))
        sub = root.sub(kind, create=True)
        if sub is None:
            raise FileNotFoundError(errno.ENOENT, "the team folder could not be written", kind)
        with sub:
            created = not sub.is_plain(name) and sub.write_new(name, data)
    return folder / kind / name, created


def remove_own(folder: Path, kind: Kind, names: list[str]) -> None:
    """Delete files this person wrote and has replaced (their old usage counts)."""
    with contextlib.suppress(OSError), Folder.open_root(folder) as root:
        sub = root.sub(kind)
        if sub is None:
            return
        with sub:
            for name in names:
                if _NAME[kind].match(name):
                    sub.remove(name)
