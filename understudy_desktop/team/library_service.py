"""The team library, as the app runs it: watches the chosen folder, tells the person what is
new, shares their tools into it, applies withdrawals, and hands every shared tool to the same
review as a pack import (nothing from the folder becomes callable until the person accepts).

A folder that is not reachable changes nothing here: accepted tools live in the database, and
only a withdrawal read from the folder, signed by the tool's author, turns one off.

A service, not a window: it speaks to the person only through the `notify` and `show_problem`
callables it is given, and reaches the pack import through `PackImport`, which the shell's
pack actions (shell/pack_actions.py) provide. Nothing here imports shell/
(tests/test_layering.py), so the window, its menu and Settings sit on top of it."""

from __future__ import annotations

import dataclasses
import errno
import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, Protocol

from PySide6.QtCore import QObject, Signal, SignalInstance
from shiboken6 import isValid

from understudy_desktop.library.library import Library
from understudy_desktop.library.model import TaughtTool, definition_hash, shown_name
from understudy_desktop.packs.export import ExportError, build_pack, definitions_of
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.background import Background
from understudy_desktop.team.documents import (
    Confirmation,
    review_document,
    usage_document,
    withdrawal_document,
)
from understudy_desktop.team.fingerprint import does
from understudy_desktop.team.folder import (
    FolderScan,
    Kind,
    SharedFile,
    load,
    read_file,
    remove_own,
    share_digest,
    write_shared,
)
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.inbox import (
    Decisions,
    Installed,
    TeamTool,
    TeamView,
)
from understudy_desktop.team.lead_invitations import LeadInvitations
from understudy_desktop.team.lead_role import PAUSED, TEAM_LEAD, LeadRole
from understudy_desktop.team.no_links import LinkRefusedError
from understudy_desktop.team.provenance import Provenance
from understudy_desktop.team.signing import key_id
from understudy_desktop.team.status_words import (
    LINK_WORDS,
    UNREACHABLE,
    freshness_status,
    offered_words,
)
from understudy_desktop.team.trust import KEPT_KINDS, TeamDecisions
from understudy_desktop.team.usage import USAGE_EVERY_S, usage_rows
from understudy_desktop.team.view_work import Job, Worked, work_out
from understudy_desktop.team.watcher import POLL_MS, TeamWatcher
from understudy_desktop.text import count_of

log = logging.getLogger(__name__)
TEAM_FOLDER = "team_folder"
SHARE_USAGE = "team_share_usage"
# The tools this person has in the folder (from the last scan that reached it), and the ones
# they removed from their library whose withdrawal is not written yet: both in the database,
# so that retiring a tool while the folder is offline, or a crash before the file is written,
# still withdraws it from the team once the folder is back.
SHARED_BY_ME = "team_shared_by_me"
WITHDRAW_PENDING = "team_withdrawals_pending"
# The folder once seen in use: if it is later there but empty, it is taken as unmounted.
LAID_OUT = "team_folder_laid_out"
# Reviews (this person accepted a shared version) not written to the folder yet.
REVIEWS_PENDING = "team_reviews_pending"
# Key hand-overs (this person moved to a new key) not written to the folder yet.
HANDOVERS_PENDING = "team_handovers_pending"


class PackImport(Protocol):
    """What the service needs of the pack import: a shared tool is accepted through the same
    preview, grant and one transaction as any pack, so the service never writes the library
    for it itself."""

    @property
    def accepted_from_team(self) -> SignalInstance:
        """Emits the Provenance of a shared version the person just accepted."""
        ...

    def import_data(
        self,
        data: bytes,
        filename: str,
        confirm: bool,
        replace: bool = False,
        source: Provenance | None = None,
    ) -> None: ...

    def provenance(self, data: bytes, author: str) -> Provenance: ...

    def author(self) -> str: ...

    def set_author(self, name: str) -> None: ...


class TeamLibrary(LeadRole, QObject):
    view_changed = Signal(object)  # TeamView
    status_changed = Signal(str)  # the status line, in words ('' when no folder is chosen)

    def _words(self, name: str) -> str:
        """A tool of the library as people know it: its name in words."""
        tool = self._library.get(name)
        return tool.shown_name if tool is not None else shown_name(name)

    def __init__(
        self,
        library: Library,
        packs: PackImport,
        settings: Settings,
        decisions: TeamDecisions,
        identity: Identity,
        notify: Callable[[str], None],
        show_problem: Callable[[str, str], None],
        parent: QObject | None = None,
        poll_ms: int = POLL_MS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        super().__init__(parent)
        self._clock = clock
        self._background = Background()
        self._computing = False
        self._again = False
        self._generation = 0  # of the views asked for
        self._shown = 0  # the generation of the view shown
        self._next_look = 0.0
        self._freshness_told: tuple[object, ...] = ()
        self._restored_told: set[str] = set()
        self._confirming = False
        # Files this app wrote that no scan of the folder has shown yet, by name.
        self._own: dict[str, SharedFile] = {}
        self._on_disk: frozenset[str] = frozenset()  # what the last scan of the folder found
        # The highest number this app signed a confirmation with (the next is higher, even
        # when a scan that began before the last one was written does not show it).
        self._confirmed_sequence = 0
        self._confirmed_by = 0  # the last view asked for before that confirmation was shown
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
        self._links_told = False
        self._vouched: set[str] = set()
        self._withdrawn_here: set[tuple[str, str]] = set()
        self._usage_published: list[dict[str, Any]] = []
        self._usage_published_at = -USAGE_EVERY_S
        # Paused at the last run: paused from the start, until the folder says otherwise
        # (agents must not slip a call in before the first view is worked out).
        paused = str(settings.get(PAUSED, "") or "")
        if paused:
            library.set_team_pause(paused)
        self.invitations = LeadInvitations(
            self, settings, identity, packs.author, lambda words: self._notify(words)
        )
        self.watcher = TeamWatcher(self, poll_ms, clock, decisions.first_seen)
        self.watcher.scanned.connect(self._on_scan)
        self.destroyed.connect(lambda *_a: self._background.close())
        library.changed.connect(self.refresh)
        library.removed.connect(self._on_removed)
        packs.accepted_from_team.connect(self._on_accepted)
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
        self._own.clear()
        # What the folder before held is not shown as this one's while it is read.
        self.view = TeamView(reachable=False)
        self._set_status("")
        self.view_changed.emit(self.view)
        self.watcher.watch(folder)

    @property
    def share_usage(self) -> bool:
        return bool(self._settings.get(SHARE_USAGE, False))

    def set_share_usage(self, on: bool) -> None:
        self._settings.set(SHARE_USAGE, bool(on))
        if on:
            self.publish_usage()

    # --- what the folder means here --------------------------------------------------------
    def installed(self) -> list[Installed]:
        """The tools of the library that came from the team folder."""
        return [i for t in self._library.tools() if t.origin.by == "team" for i in [_here(t)]]

    def keyed(self) -> list[Installed]:
        """Every tool of the library signed by a key: from the team folder or a pack file."""
        return [_here(t) for t in self._library.tools() if t.origin.key]

    def files_seen(self) -> list[SharedFile]:
        """The folder's files from the last scan, and the documents this app kept."""
        return [*(self._scan.files if self._scan is not None else []), *self.decisions.kept()]

    def trusted(self) -> dict[str, str]:
        return self.decisions.trusted()

    @property
    def lead(self) -> str:
        return str(self._settings.get(TEAM_LEAD, "") or "")

    def follow_lead(self, key: str) -> None:
        """Follow the policy signed by this key ('' : follow none). Choosing another lead by
        hand forgets an invitation that named someone else."""
        self.invitations.forget_unless(key)
        self._settings.set(TEAM_LEAD, key or None)
        self.refresh(at_once=True)

    def decisions_now(self) -> Decisions:
        return Decisions(
            mine=self.identity.public_key,
            former=self.identity.former_keys,
            trusted=self.decisions.trusted(),
            installed=tuple(self.installed()),
            accepted=self.decisions.accepted(),
            declined=frozenset(self.decisions.declined()),
            seen=self.decisions.seen(),
            have={definition_hash(t.definition): t.name for t in self._library.tools()},
            lead=self.lead,
            my_name=self._packs.author(),
            direct=self.decisions.direct(),
            keyed=tuple(self.keyed()),
            now=self._clock(),
        )

    def _on_scan(self, scan: FolderScan) -> None:
        if scan.same_as_before and self._scan is not None and self._scan.reachable:
            # Nothing was added or removed: the view stays what it is (an idle folder of
            # thousands of files costs a few directory reads a poll, nothing more). The
            # lead's schedule and a confirmation running out are clock work, not the folder's.
            self._publish_usage_when_due()
            if self._clock_due():
                self.refresh()
            return
        if scan.reachable and scan.laid_out and not self._expect_layout():
            self._settings.set(LAID_OUT, str(scan.folder))
        elif scan.reachable and not scan.laid_out and self._expect_layout():
            # Seen in use before, empty now: a network share's bare mount point, most likely.
            scan = FolderScan(scan.folder, reachable=False)
        if scan.reachable:
            self._on_disk = frozenset(f.name for f in scan.files)
            self._own = {n: f for n, f in self._own.items() if n not in self._on_disk}
            scan = _with_own(scan, self._own)
        self._scan = scan
        self.refresh()

    def _expect_layout(self) -> bool:
        folder = self.folder
        return folder is not None and self._settings.get(LAID_OUT) == str(folder)

    def _write(self, kind: Kind, data: bytes) -> Path:
        folder = self.folder
        if folder is None:
            raise FileNotFoundError(errno.ENOENT, "no team folder is chosen")
        path = write_shared(folder, kind, data, expect_layout=self._expect_layout())
        if kind in KEPT_KINDS:
            # This person's own rules, withdrawals, hand-overs and reviews are kept the moment
            # they are written: one deleted from the folder before the next scan is written
            # back all the same.
            self.decisions.keep([(kind, path.name, data)])
        return path

    # --- working out the view, off the window's thread --------------------------------------
    def settled(self) -> bool:
        """No view is being worked out, or waiting to be (tests and benchmarks wait on it)."""
        return not self._computing and not self._again

    def refresh(self, at_once: bool = False) -> None:
        """Work out the view again from the last scan, on the team's thread; it is shown (and
        acted on) when it is ready. Asked again while one is under way, once more after it.
        `at_once`: here and now, for what the person just did (the lead's new rules are in
        force the moment they are saved; the dialog reopened a moment later shows them)."""
        if self._scan is None:
            return
        if at_once:
            self._worked_out(work_out(self._job(), self.decisions), background=False)
            return
        if self._computing:
            self._again = True
            return
        self._computing = True
        job = self._job()
        self._background.run(lambda: work_out(job, self.decisions), self._worked_out)

    def _job(self) -> Job:
        assert self._scan is not None
        self._generation += 1
        return Job(
            generation=self._generation,
            scan=self._scan,
            kept=self.decisions.kept(),
            decisions=self.decisions_now(),
            folder=self.folder,
            expect_layout=self._expect_layout(),
            keep_from=self._keep_from(),
            lead_key=self.identity.public_key if self.is_lead() else "",
            on_disk=self._on_disk,
        )

    def _keep_from(self) -> set[str]:
        """Whose documents this app keeps: signed by someone this person trusts (or moved to
        a key of theirs), by this person, or by the lead they follow."""
        policy = self.view.policy
        mine = {self.identity.public_key} | set(self.identity.former_keys)
        return (
            set(self.decisions.trusted())
            | mine
            | set(self.view.vouched)
            | set(self.view.chain)
            | {self.lead}
            | ({policy.authorKey} if policy is not None else set())
        ) - {""}

    def _worked_out(self, worked: Worked | None, background: bool = True) -> None:
        if not isValid(self):
            return  # the app is closing: the window, and this service with it, are gone
        if background:
            self._computing = False
        if (
            worked is not None
            and worked.folder == self.folder
            and self._scan is not None
            and worked.generation > self._shown
        ):
            # A view worked out from an older state than the one shown is not shown.
            self._shown = worked.generation
            self._show(worked)
        if background and self._again:
            self._again = False
            self.refresh()

    def _show(self, worked: Worked) -> None:
        self.view = worked.view
        self._next_look = worked.next_look_at
        self._act_on(self.view)
        if self.view.reachable:
            self._remember_mine()
            self._write_pending_withdrawals()
            self._write_pending_reviews()
            self._write_pending_handovers()
            self._told_restored(worked.restored)
            self._lead_duties(worked.lead, worked.generation)
            self.invitations.follow_when_arrived()
        self._publish_usage_when_due()
        if self.view.links and not self._links_told:
            self._links_told = True
            self._notify(
                "The team folder has a link in place of one of its folders; Understudy does "
                "not follow it and does not write through it. Ask whoever looks after the "
                "folder to remove it."
            )
        self._on_freshness(self.view.freshness)
        if not self.view.reachable:
            self._set_status(UNREACHABLE)
        else:
            words = offered_words(self.view)
            stale = freshness_status(self.view.freshness, self._clock())
            self._set_status(stale or words or "Team library: nothing new")
            counted = [t for t in self.view.tools if t.state in ("new", "update", "untrusted")]
            fresh = {t.file.digest for t in counted} - self._announced
            if fresh and words:
                self._announced |= fresh
                self._notify(f"{words}. Open View › Team library to review them.")
        self.view_changed.emit(self.view)

    def _clock_due(self) -> bool:
        """Something the clock alone changes: the lead's next confirmation is due, or the
        confirmation in force here runs out (or its grace ends)."""
        return self._clock() >= self._next_look

    def _act_on(self, view: TeamView) -> None:
        """What the folder says that changes this person's library or memory."""
        for item in view.withdraw:
            self._take_away(item, "withdrawn")
        for item in view.turn_off:
            self._take_away(item, "team_off")
        for here in view.turn_back:
            if ("back", here.version) in self._withdrawn_here:
                continue
            self._withdrawn_here.add(("back", here.version))
            self._library.hold_back(
                here.local_name,
                "your team lead turned it back on for the team; review it to use it again",
                lambda _err: None,
            )
            self._notify(
                f"Your team lead turned “{self._words(here.local_name)}” back on for the team. "
                "Review it in your library to use it again."
            )
        self._stop_revoked(view)
        if view.seen:
            self.decisions.note_versions(view.seen)
        trusted = self.decisions.trusted()
        for new, (old, name) in view.vouched.items():
            if new not in trusted and old in trusted and new not in self._vouched:
                self._vouched.add(new)  # once: the trust is written a moment later
                self.decisions.trust(new, name, lambda _e: self.refresh(), vouched=True)
                self._notify(
                    f"{name} moved to a new key, vouched for by the key you trust for them: "
                    "their tools keep saying they are from them."
                )

    def _stop_revoked(self, view: TeamView) -> None:
        """A key the lead revoked stops every tool it signed here; one the lead no longer
        revokes leaves its tools for the person to review."""
        for here in view.revoke_here:
            if ("revoked", here.local_name) in self._withdrawn_here:
                continue
            self._withdrawn_here.add(("revoked", here.local_name))
            self._withdrawn_here.discard(("unrevoked", here.local_name))
            self._library.hold_back(
                here.local_name,
                "your team lead revoked the key it was signed with (it may have been copied)",
                lambda _err: None,
                held="key_revoked",
            )
            self._notify(
                f"Your team lead revoked the key “{self._words(here.local_name)}” was signed "
                "with (it may have been copied, or its owner left the team). It is turned off "
                "here, and agents are told why."
            )
        for here in view.unrevoke_here:
            if ("unrevoked", here.local_name) in self._withdrawn_here:
                continue
            self._withdrawn_here.add(("unrevoked", here.local_name))
            self._withdrawn_here.discard(("revoked", here.local_name))
            self._library.hold_back(
                here.local_name,
                "your team lead no longer revokes the key it was signed with; review it to use "
                "it again",
                lambda _err: None,
            )

    def _add_to_scan(self, kind: Kind, name: str, data: bytes) -> None:
        """A file this app just wrote, in the view at once (the dialog reopened a moment
        later shows it), not only once the folder is read again: and in every view until a
        scan of the folder has it, since a scan that began before the write does not (the
        lead's next confirmation must never be worked out without the rules just signed)."""
        written = dataclasses.replace(read_file(kind, name, data), seen=self._clock())
        self._own[written.name] = written
        if kind == "confirmed" and isinstance(written.info, Confirmation):
            self._confirmed_sequence = max(self._confirmed_sequence, written.info.sequence)
        if self._scan is not None and self._scan.reachable:
            self._scan = _with_own(self._scan, self._own)

    def _take_away(self, item: TeamTool, why: str) -> None:
        here = item.installed
        if here is None or (why, item.file.digest) in self._withdrawn_here:
            return
        tool = self._library.get(here.local_name)
        if tool is None:
            return
        self._withdrawn_here.add((why, item.file.digest))
        who = item.author or "Its author"
        if why == "withdrawn":
            reason = f"{item.author or 'its author'} withdrew it from the team library"
            told = (
                f"{who} withdrew “{self._words(here.local_name)}” from the team library. It is "
                "turned off here; you can remove it from your library."
            )
        elif self.is_lead():
            # The lead's own copy goes off with everyone's: said as what the lead did.
            reason = "you turned it off for the whole team, as its lead"
            told = (
                f"You turned “{self._words(here.local_name)}” off for the whole team. It is "
                "turned off here too, until you turn it back on."
            )
        else:
            reason = "your team lead turned it off for the whole team"
            told = (
                f"Your team lead turned “{self._words(here.local_name)}” off for the whole team. "
                "It is turned off here too, until they turn it back on."
            )
        self._library.hold_back(here.local_name, reason, lambda _err: None, held=why)
        self._notify(told)

    # --- reviewing what colleagues shared ---------------------------------------------------
    def review(self, item: TeamTool) -> None:
        """The import preview for one shared tool: signature, trust, and old → new for an
        update. Accepting imports it (and trusts its key, if the person was asked)."""
        if not (item.offered or item.state == "declined"):
            return
        data = self._bytes(item)
        if data is not None:
            self._packs.import_data(
                data, self._label(item), confirm=True, source=self._source(item, data)
            )

    def _bytes(self, item: TeamTool) -> bytes | None:
        folder = self.folder
        data = load(folder, item.file) if folder is not None else None
        if data is None:
            self._show_problem(
                "Not available",
                f"{self._label(item)} is no longer in the team folder as it was (it was removed "
                "or changed). Nothing was changed here.",
            )
        return data

    @staticmethod
    def _label(item: TeamTool) -> str:
        """What messages call a shared tool: its name, not its file's (a hash)."""
        shown = shown_name(item.tool, item.file.title) if item.tool else "a tool"
        return f"“{shown}” from your team library"

    def _source(self, item: TeamTool, data: bytes) -> Provenance:
        base = self._packs.provenance(data, item.file.author if item.key else "")
        here = item.installed if item.state == "update" else None
        old = self._library.get(here.local_name) if here is not None else None
        return replace(
            base,
            team_file=item.file.name,
            shared_as=item.tool,
            created=item.file.created,
            update_of=here.local_name if here is not None else "",
            old_definition=old.parsed if old is not None else None,
        )

    def _on_accepted(self, accepted: Provenance) -> None:
        """A shared version was accepted here: a signed review goes to the folder (the
        team's record of who accepted what, and the second review a policy may ask for)."""
        if not accepted.key:
            self.refresh()
            return  # an unsigned file has no author to name in a review
        digest = accepted.team_file.split(".", 1)[0]
        found = next((t.file for t in self.view.tools if t.file.digest == digest), None)
        version = found.version if found is not None else 0
        # The reviewed file goes with the review: its version can be checked by a newcomer
        # even once someone deletes that file from the folder.
        folder = self.folder
        carried = load(folder, found) if folder is not None and found is not None else None
        document = review_document(
            self._packs.author() or "Someone",
            accepted.shared_as,
            accepted.key,
            digest,
            version,
            carried,
        )
        pending = list(self._settings.get(REVIEWS_PENDING, []))
        self._settings.set(REVIEWS_PENDING, [*pending, document])
        self._write_pending_reviews()
        self.refresh()

    def _write_pending_reviews(self) -> None:
        self._write_pending(REVIEWS_PENDING, "reviews", lambda doc: self.identity.sign(dict(doc)))

    def decline(self, item: TeamTool) -> None:
        self.decisions.decline(item.file.digest, lambda _e: self.refresh())

    def trust(self, key: str, name: str) -> None:
        self.decisions.trust(key, name, lambda _e: self.refresh())

    def distrust(self, key: str) -> list[str]:
        """Stop trusting an author: what was accepted from them is turned off (kept, so it
        can be turned on again). Returns those tools' names."""
        name = self.decisions.trusted().get(key, "this author")
        # The whole person: every key they handed over to or from, not the one key alone (a
        # key trusted through a hand-over would otherwise stay trusted).
        keys = self._same_person(key)
        off = [
            t.name
            for t in self._library.tools()
            if t.origin.by == "team" and t.origin.key in keys and t.status == "active"
        ]
        for tool in off:
            self._library.disable(tool, lambda _e: None)
        for one in sorted(keys - {key}):
            self.decisions.distrust(one)
        self.decisions.distrust(key, lambda _e: self.refresh())
        if off:
            listed = ", ".join(f"“{self._words(t)}”" for t in off)
            self._notify(
                f"You no longer trust {name}. What you accepted from them is turned off: "
                f"{listed}. To use it again, turn it on in your library (it asks you first)."
            )
        return off

    def _same_person(self, key: str) -> set[str]:
        links: dict[str, set[str]] = {}
        for old, new in self.view.handed.items():
            links.setdefault(new, set()).add(old)
            links.setdefault(old, set()).add(new)
        found, todo = {key}, [key]
        while todo:
            for other in links.get(todo.pop(), set()) - found:
                found.add(other)
                todo.append(other)
        return found

    # --- sharing ------------------------------------------------------------------------------
    def shareable(self) -> list[TaughtTool]:
        """This person's own tools (not ones accepted from colleagues)."""
        return [t for t in self._library.tools() if t.origin.by != "team"]

    @property
    def author(self) -> str:
        return self._packs.author()

    def author_name(self) -> str:
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
        refused = self._may_not_publish()
        if refused:
            self._show_problem("Not shared", refused)
            return 0
        mine = self._my_latest()
        written = 0
        try:
            for name in names:
                tool = self._library.get(name)
                if tool is None:
                    continue
                pack = build_pack(definitions_of([tool]), self._library.catalogue, author)
                same, version = mine.get(name, ("", 0))
                if same and same == share_digest(pack):
                    continue  # shared before, unchanged: no new version
                # Each version is numbered, one more than any this person shared of it, and
                # the number is signed: nobody can make an older one pass for the newest.
                seen = self.decisions.seen().get((self.identity.public_key, name), 0)
                pack["teamVersion"] = max(version, seen) + 1
                self._write("tools", self.identity.sign(pack))
                written += 1
        except ExportError as exc:
            self._show_problem("Not shared", str(exc))
        except LinkRefusedError:
            self._show_problem("Not shared", f"{LINK_WORDS} {self._shared_so_far(written)}")
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
            self._notify(f"Shared {count_of(written, 'tool')} with your team.")
        elif not names or mine:
            self._notify("Your team already has these tools as they are.")
        self.watcher.scan_now()
        return written

    @staticmethod
    def _shared_so_far(written: int) -> str:
        if not written:
            return "Nothing was shared. "
        return f"{written} tool{'s were' if written != 1 else ' was'} shared before it stopped. "

    def _my_latest(self) -> dict[str, tuple[str, int]]:
        """This person's shared tools in the folder: what each one is, and its number."""
        mine = self.identity.public_key
        out: dict[str, tuple[str, int]] = {}
        for t in self.view.tools:
            if t.key == mine and mine and t.state in ("mine", "withdrawn", "turned_off"):
                out[t.tool] = (t.file.same if t.state == "mine" else "", t.file.version)
        return out

    def _may_not_publish(self) -> str:
        """Why the team lead's policy does not let this person share ('' when it does)."""
        policy = self.view.policy
        mine = self.identity.public_key
        if policy is None or policy.publishers is None or (mine and mine == self.lead):
            return ""
        if mine and mine in policy.publishers:
            return ""
        return (
            "Your team lead lets only some people share tools with the team, and you are not "
            "one of them yet. Ask your team lead to add you. Nothing was shared."
        )

    def _set_status(self, text: str) -> None:
        if text != self.status:
            self.status = text
            # In the log too: "it said 3 new tools" is what a person reports to whoever helps.
            log.info("team library status: %s", text or "no folder chosen")
            self.status_changed.emit(text)

    # --- this person's key ------------------------------------------------------------------
    def move_to_new_key(self) -> bool:
        """Make a new key, vouched for by the old one in the team folder: colleagues who
        trust the old key trust the new one, unwarned. Problems are shown; True when done."""
        if self.folder is None or not self.view.reachable:
            self._show_problem(
                "No new key yet",
                "The team folder is not reachable just now. Colleagues learn of a new key from "
                "the folder, so try again when it is back. Nothing was changed.",
            )
            return False
        if not self.identity.public_key:
            self._show_problem(
                "No new key needed",
                "You have no key yet: one is made the first time you share a tool.",
            )
            return False
        old = self.identity.public_key
        was_lead = self.is_lead()
        rules = self.view.policy if was_lead else None
        handover = self.identity.new_key(self._packs.author() or "Someone")
        try:
            self._write("keys", handover)
        except OSError as exc:
            log.warning("the key hand-over was not written: %s", exc)
            # The new key stays; without the hand-over colleagues are warned, as for a
            # new computer. Written again at the next chance.
            pending = list(self._settings.get(HANDOVERS_PENDING, []))
            self._settings.set(HANDOVERS_PENDING, [*pending, handover.decode("utf-8")])
        self._notify(
            "You have a new signing key. Colleagues who trusted your old key trust this one "
            f"too. Old key: {key_id(old)}; new key: {self.identity.key_id}."
        )
        if was_lead:
            # The rules, signed again by the new key (the next number): from then on the old
            # key, which may have been copied, cannot sign rules anyone follows.
            self._settings.set(TEAM_LEAD, self.identity.public_key)
            self.write_policy(
                rules.publishers if rules is not None else None,
                rules.secondReview if rules is not None else False,
                [(t.sharedBy, t.tool, t.steps) for t in rules.turnedOff] if rules else [],
                list(rules.revokedKeys) if rules is not None else [],
            )
        self.refresh()
        return True

    def _write_pending_handovers(self) -> None:
        self._write_pending(HANDOVERS_PENDING, "keys", lambda text: str(text).encode("utf-8"))

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
                f"“{shown_name(name)}” left your library. The team folder is not reachable just "
                "now: it will be withdrawn from the team library as soon as it is."
            )

    def _write_pending_withdrawals(self) -> bool:
        """Write each noted withdrawal; True when none is left waiting."""
        author = self._packs.author() or "Someone"

        def written(name: Any) -> None:
            self._notify(f"“{shown_name(str(name))}” was also withdrawn from the team library.")

        return self._write_pending(
            WITHDRAW_PENDING,
            "withdrawn",
            lambda name: self.identity.sign(withdrawal_document(author, str(name))),
            written,
        )

    def _write_pending(
        self,
        setting: str,
        kind: Kind,
        data_of: Callable[[Any], bytes],
        written: Callable[[Any], None] | None = None,
    ) -> bool:
        """Write each file noted under `setting` (withdrawals, reviews, key hand-overs) into
        the folder; what cannot be written yet stays noted. True when none is left waiting."""
        pending = list(self._settings.get(setting, []))
        if self.folder is None or not pending:
            return True
        left = []
        for entry in pending:
            try:
                self._write(kind, data_of(entry))
            except OSError as exc:
                log.info("%s not written yet: %s", kind, exc)
                left.append(entry)
                continue
            if written is not None:
                written(entry)
        if len(left) < len(pending):
            # Only when one was written: a folder that keeps refusing is retried at every scan
            # without a database write each time.
            self._settings.set(setting, left)
            self.watcher.scan_now()
        return not left

    # --- usage counts -------------------------------------------------------------------------
    def usage_counts(self) -> list[dict[str, Any]]:
        """Runs, failures and the last day used of each team tool here (numbers only)."""
        return usage_rows(
            self._library.tools(), self._library.usage, self.identity.public_key, self.view
        )

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


def _ignored(_result: object) -> None:
    """A background job whose outcome only the log needs."""


def _here(tool: TaughtTool) -> Installed:
    try:
        what = does(tool.definition)
    except (ValueError, TypeError):
        what = ""
    return Installed(
        tool.name,
        tool.origin.key,
        tool.origin.shared_as,
        tool.origin.version,
        tool.origin.created,
        tool.held,
        what,
    )


def _with_own(scan: FolderScan, own: dict[str, SharedFile]) -> FolderScan:
    """The scan, with the files this app wrote that it does not show yet."""
    present = {f.name for f in scan.files}
    extra = [f for name, f in own.items() if name not in present]
    if not extra:
        return scan
    return dataclasses.replace(scan, files=[*scan.files, *extra], same_as_before=False)
