"""The team library, as the app runs it: watches the chosen folder, tells the person what is
new, shares their tools into it, applies withdrawals, and hands every shared tool to the same
review as a pack import (nothing from the folder becomes callable until the person accepts).

A folder that is not reachable changes nothing here: accepted tools live in the database, and
only a withdrawal read from the folder, signed by the tool's author, turns one off."""

from __future__ import annotations

import errno
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal

from understudy_desktop.library.library import Library
from understudy_desktop.packs.export import ExportError, build_pack
from understudy_desktop.shell.pack_actions import PackActions
from understudy_desktop.shell.pack_dialogs import day_words
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.documents import usage_document, withdrawal_document
from understudy_desktop.team.folder import FolderScan, Kind, remove_own, write_shared
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.inbox import Installed, TeamTool, TeamView, team_view
from understudy_desktop.team.provenance import Provenance
from understudy_desktop.team.trust import TeamDecisions
from understudy_desktop.team.watcher import POLL_MS, TeamWatcher

log = logging.getLogger(__name__)
TEAM_FOLDER = "team_folder"
USAGE_EVERY_S = 3600.0
SHARE_USAGE = "team_share_usage"
# The tools this person has in the folder (from the last scan that reached it), and the ones
# they removed from their library whose withdrawal is not written yet: both in the database,
# so that retiring a tool while the folder is offline, or a crash before the file is written,
# still withdraws it from the team once the folder is back.
SHARED_BY_ME = "team_shared_by_me"
WITHDRAW_PENDING = "team_withdrawals_pending"
# The folder once seen in use: if it is later there but empty, it is taken as unmounted.
LAID_OUT = "team_folder_laid_out"
UNREACHABLE = (
    "Team library: the folder is not reachable just now. Your tools work as usual; "
    "Understudy checks again by itself."
)


def offered_words(view: TeamView) -> str:
    new = sum(1 for t in view.offered if t.state == "new")
    updates = sum(1 for t in view.offered if t.state == "update")
    parts = []
    if new:
        parts.append(f"{new} new tool{'s' if new != 1 else ''}")
    if updates:
        parts.append(f"{updates} update{'s' if updates != 1 else ''}")
    return " and ".join(parts) + " from your team" if parts else ""


def _same_tool(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return a.get("tools") == b.get("tools") and a.get("author") == b.get("author")


class TeamLibrary(QObject):
    view_changed = Signal(object)  # TeamView
    status_changed = Signal(str)  # the status line, in words ('' when no folder is chosen)

    def __init__(
        self,
        library: Library,
        packs: PackActions,
        settings: Settings,
        decisions: TeamDecisions,
        identity: Identity,
        notify: Callable[[str], None],
        show_problem: Callable[[str, str], None],
        parent: QObject | None = None,
        poll_ms: int = POLL_MS,
    ) -> None:
        super().__init__(parent)
        self._library = library
        self._packs = packs
        self._settings = settings
        self.decisions = decisions
        self.identity = identity
        self._notify = notify
        self._show_problem = show_problem
        self._scan: FolderScan | None = None
        self.view = TeamView(reachable=False)
        self.status = ""
        self._announced: set[str] = set()
        self._withdrawn_here: set[str] = set()
        self._usage_published: list[dict[str, Any]] = []
        self._usage_published_at = -USAGE_EVERY_S
        self.watcher = TeamWatcher(self, poll_ms)
        self.watcher.scanned.connect(self._on_scan)
        library.changed.connect(self.refresh)
        library.removed.connect(self._on_removed)
        folder = settings.get(TEAM_FOLDER)
        if folder:
            self.watcher.watch(Path(str(folder)))

    # --- the folder ------------------------------------------------------------------------
    @property
    def folder(self) -> Path | None:
        return self.watcher.folder

    def set_folder(self, folder: Path | None) -> None:
        self._settings.set(TEAM_FOLDER, str(folder) if folder else None)
        self._scan = None
        self._announced.clear()
        self.watcher.watch(folder)
        if folder is None:
            self.view = TeamView(reachable=False)
            self._set_status("")
            self.view_changed.emit(self.view)

    @property
    def share_usage(self) -> bool:
        return bool(self._settings.get(SHARE_USAGE, False))

    def set_share_usage(self, on: bool) -> None:
        self._settings.set(SHARE_USAGE, bool(on))
        if on:
            self.publish_usage()

    # --- what the folder means here --------------------------------------------------------
    def installed(self) -> list[Installed]:
        return [
            Installed(t.name, t.origin.key, t.origin.shared_as, t.origin.version, t.origin.created)
            for t in self._library.tools()
            if t.origin.by == "team" and t.origin.key
        ]

    def _on_scan(self, scan: FolderScan) -> None:
        if scan.reachable and scan.laid_out and not self._expect_layout():
            self._settings.set(LAID_OUT, str(scan.folder))
        elif scan.reachable and not scan.laid_out and self._expect_layout():
            # Seen in use before, empty now: a network share's bare mount point, most likely.
            scan = FolderScan(scan.folder, reachable=False)
        self._scan = scan
        self.refresh()

    def _expect_layout(self) -> bool:
        folder = self.folder
        return folder is not None and self._settings.get(LAID_OUT) == str(folder)

    def _write(self, kind: Kind, data: bytes) -> Path:
        folder = self.folder
        if folder is None:
            raise FileNotFoundError(errno.ENOENT, "no team folder is chosen")
        return write_shared(folder, kind, data, expect_layout=self._expect_layout())

    def refresh(self) -> None:
        if self._scan is None:
            return
        self.view = team_view(
            self._scan,
            self.identity.public_key,
            self.decisions.trusted(),
            self.installed(),
            self.decisions.declined(),
        )
        for item in self.view.withdraw:
            self._withdraw_here(item)
        if self.view.reachable:
            self._remember_mine()
            self._write_pending_withdrawals()
        self._publish_usage_when_due()
        if not self.view.reachable:
            self._set_status(UNREACHABLE)
        else:
            words = offered_words(self.view)
            self._set_status(words or "Team library: nothing new")
            fresh = {t.file.digest for t in self.view.offered} - self._announced
            if fresh and words:
                self._announced |= fresh
                self._notify(f"{words}. Open View › Team library to review them.")
        self.view_changed.emit(self.view)

    def _set_status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            # In the log too: "it said 3 new tools" is what a person reports to whoever helps.
            log.info("team library status: %s", text or "no folder chosen")
            self.status_changed.emit(text)

    def _withdraw_here(self, item: TeamTool) -> None:
        here = item.installed
        if here is None or item.file.digest in self._withdrawn_here:
            return
        tool = self._library.get(here.local_name)
        if tool is None or tool.status == "needs_review":
            return
        self._withdrawn_here.add(item.file.digest)
        reason = f"{item.author or 'its author'} withdrew it from the team library"
        self._library.hold_back(here.local_name, reason, lambda _err: None)
        self._notify(
            f"{item.author or 'Its author'} withdrew “{here.local_name}” from the team library. "
            "It is turned off here; you can remove it from your library."
        )

    # --- reviewing what colleagues shared ---------------------------------------------------
    def review(self, item: TeamTool) -> None:
        """The import preview for one shared tool: signature, trust, and old → new for an
        update. Accepting imports it (and trusts its key, if the person was asked)."""
        if item.offered or item.state == "declined":
            self._packs.import_data(
                item.file.data, self._label(item), confirm=True, source=self._source(item)
            )

    def accept_without_asking(self, item: TeamTool) -> None:
        """For the command line's --yes and tests: the same import, approved by the caller."""
        self._packs.import_data(
            item.file.data, self._label(item), confirm=False, source=self._source(item)
        )

    @staticmethod
    def _label(item: TeamTool) -> str:
        """What messages call a shared tool: its name, not its file's (a hash)."""
        return f"“{item.tool or 'a tool'}” from your team library"

    def _source(self, item: TeamTool) -> Provenance:
        base = self._packs.provenance(item.file.data, item.author)
        here = item.installed if item.state == "update" else None
        old = self._library.get(here.local_name) if here is not None else None
        return replace(
            base,
            team_file=item.file.name,
            created=item.file.created,
            update_of=here.local_name if here is not None else "",
            old_definition=old.definition if old is not None else None,
        )

    def decline(self, item: TeamTool) -> None:
        self.decisions.decline(item.file.digest, lambda _e: self.refresh())

    def trust(self, key: str, name: str) -> None:
        self.decisions.trust(key, name, lambda _e: self.refresh())

    def distrust(self, key: str) -> None:
        self.decisions.distrust(key, lambda _e: self.refresh())

    # --- sharing ------------------------------------------------------------------------------
    def shareable(self) -> list[dict[str, Any]]:
        """This person's own tools (not ones accepted from colleagues)."""
        return [t.definition for t in self._library.tools() if t.origin.by != "team"]

    @property
    def author(self) -> str:
        return self._packs.author()

    def set_author(self, name: str) -> None:
        self._packs.set_author(name)

    def share(self, names: list[str], author: str) -> int:
        """Write one signed file per tool; returns how many were new. Problems are shown."""
        folder = self.folder
        if folder is None:
            self._show_problem(
                "No team library yet", "Choose the team's folder in Settings › Team library first."
            )
            return 0
        mine = self._my_latest()
        written = 0
        try:
            for name in names:
                tool = self._library.get(name)
                if tool is None:
                    continue
                pack = build_pack([tool.definition], self._library.catalogue, author)
                if name in mine and _same_tool(mine[name], pack):
                    continue  # shared before, unchanged: no new version
                self._write("tools", self.identity.sign(pack))
                written += 1
        except ExportError as exc:
            self._show_problem("Not shared", str(exc))
        except FileNotFoundError:
            self._show_problem(
                "Not shared",
                "The team folder is not reachable just now (unplugged, offline or not "
                f"mounted). {self._shared_so_far(written)}Try again when it is back.",
            )
        except OSError as exc:
            self._show_problem(
                "Not shared",
                f"The team folder could not be written ({exc.strerror or exc}). "
                f"{self._shared_so_far(written)}Nothing else was changed.",
            )
        if written:
            self._notify(f"Shared {written} tool(s) with your team.")
        elif not names or mine:
            self._notify("Your team already has these tools as they are.")
        self.watcher.scan_now()
        return written

    @staticmethod
    def _shared_so_far(written: int) -> str:
        if not written:
            return "Nothing was shared. "
        return f"{written} tool{'s were' if written != 1 else ' was'} shared before it stopped. "

    def _my_latest(self) -> dict[str, dict[str, Any]]:
        mine = [t for t in self.view.tools if t.state == "mine"]
        return {t.tool: t.file.document or {} for t in mine}

    def _remember_mine(self) -> None:
        mine = sorted({t.tool for t in self.view.tools if t.state == "mine"})
        if mine != self._settings.get(SHARED_BY_ME, []):
            self._settings.set(SHARED_BY_ME, mine)

    def _on_removed(self, name: str) -> None:
        """Retiring or revoking a tool this person shared withdraws it from the team: noted
        in the database first, then written (now, or when the folder is reachable again)."""
        if self.folder is None or name not in self._settings.get(SHARED_BY_ME, []):
            return
        pending = list(self._settings.get(WITHDRAW_PENDING, []))
        if name not in pending:
            self._settings.set(WITHDRAW_PENDING, [*pending, name])
        if not self._write_pending_withdrawals():
            self._notify(
                f"“{name}” left your library. The team folder is not reachable just now: it "
                "will be withdrawn from the team library as soon as it is."
            )

    def _write_pending_withdrawals(self) -> bool:
        """Write each noted withdrawal; True when none is left waiting."""
        folder = self.folder
        pending = list(self._settings.get(WITHDRAW_PENDING, []))
        if folder is None or not pending:
            return True
        author = self._packs.author() or "Someone"
        left = []
        for name in pending:
            try:
                document = withdrawal_document(author, str(name))
                self._write("withdrawn", self.identity.sign(document))
            except OSError as exc:
                log.info("withdrawal not written yet: %s", exc)
                left.append(name)
                continue
            self._notify(f"“{name}” was also withdrawn from the team library.")
        if len(left) < len(pending):
            # Only when one was written: a folder that keeps refusing is retried at every scan
            # without a database write each time.
            self._settings.set(WITHDRAW_PENDING, left)
            self.watcher.scan_now()
        return not left

    # --- usage counts -------------------------------------------------------------------------
    def usage_counts(self) -> list[dict[str, Any]]:
        """Runs, failures and the last day used of each team tool here (numbers only)."""
        mine = self.identity.public_key
        rows = []
        for tool in self._library.tools():
            if tool.origin.by == "team" and tool.origin.key:
                shared_by, shared_as = tool.origin.key, tool.origin.shared_as
            elif mine and any(t.state == "mine" and t.tool == tool.name for t in self.view.tools):
                shared_by, shared_as = mine, tool.name
            else:
                continue
            usage = self._library.usage(tool.name)
            last = usage.last_used
            rows.append(
                {
                    "sharedBy": shared_by,
                    "tool": shared_as,
                    "runs": usage.runs,
                    "failures": usage.runs - usage.successes,
                    "lastUsed": datetime.fromtimestamp(last, UTC).strftime("%Y-%m-%d")
                    if last
                    else "",
                }
            )
        return rows

    def _publish_usage_when_due(self) -> None:
        """At most once an hour, and only when the counts moved: a sync service then carries
        one small file per person, not a stream of them."""
        if not self.share_usage or not self.view.reachable:
            return
        if time.monotonic() - self._usage_published_at < USAGE_EVERY_S:
            return
        if self.usage_counts() != self._usage_published:
            self.publish_usage()

    def publish_usage(self) -> bool:
        """Write this person's counts (if they chose to share them) and remove their older
        ones. True when a file was written."""
        folder = self.folder
        if folder is None or not self.share_usage or self._scan is None:
            return False
        counts = self.usage_counts()
        if not counts:
            return False
        author = self._packs.author() or "Someone"
        try:
            path = self._write("usage", self.identity.sign(usage_document(author, counts)))
        except OSError as exc:
            log.info("usage counts not shared: %s", exc)
            return False
        mine = self.identity.public_key
        old = [f.name for f in self._scan.of("usage") if f.key == mine and f.name != path.name]
        remove_own(folder, "usage", old)
        self._usage_published, self._usage_published_at = counts, time.monotonic()
        self.watcher.scan_now()
        return True

    def describe(self, item: TeamTool) -> str:
        """One line for the team window."""
        who = item.author or "someone who gave no name"
        when = f", shared {day_words(item.file.created)}" if item.file.created else ""
        used = (
            f" · team: {item.usage.runs} run{'s' if item.usage.runs != 1 else ''} by "
            f"{item.usage.people} {'person' if item.usage.people == 1 else 'people'}"
            if item.usage.runs
            else ""
        )
        name = item.tool or "a tool"
        match item.state:
            case "changed":
                return f"⚠ {name}: changed after signing, so it cannot be used."
            case "mine":
                return f"{name}: shared by you{when}{used}"
            case "withdrawn":
                return f"{name}: withdrawn by {who}"
            case "current":
                return f"{name}: from {who}{when}, in your library{used}"
            case "declined":
                return f"{name}: from {who}{when}; you chose not to use it"
        signed = f" (key {item.key_id})" if item.key else " (not signed)"
        wait = "" if item.trusted or not item.key else "; waits for you to trust its author"
        if item.impostor_of:
            wait = (
                f"; ⚠ not the key you trust for {who} ({item.impostor_of}): ask them before "
                "you review it"
            )
        label = "Update" if item.state == "update" else "New"
        return f"{label}: {name}, from {who}{signed}{when}{wait}{used}"
