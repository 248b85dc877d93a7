"""The library: the one place that says which taught tools exist, what each was approved as,
and whether agents may call it.

Writes happen on the Qt thread's behalf in database transactions; memory changes only after
COMMIT, so what agents see is always what is on disk. Reads are safe from any thread (the
endpoint reads on its own). Every change that makes a tool callable takes a Grant that covers
exactly that change: only the consent ledger makes Grants, after a person approved in the
native dialog (or ran the app with --yes for one file), so no other code path, least of all
the page, can make a tool active.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.catalogue import Catalogue, current_catalogue
from understudy_desktop.consent.ledger import Grant
from understudy_desktop.consent.manifest import (
    ENABLE_TOOL,
    IMPORT_PACK,
    PUBLISH_TOOL,
    RELAX_TOOL,
    REPAIR_TOOL,
    REVIEW_TOOL,
    REVOKE_TOOL,
    SensitiveAction,
)
from understudy_desktop.consent.seal import ApprovalSeal
from understudy_desktop.definition import Approved
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library import store
from understudy_desktop.library.drift import grade_drift, is_breaking
from understudy_desktop.library.model import Origin, Status, TaughtTool, Usage, definition_hash
from understudy_desktop.qt_thread import call_on_main
from understudy_desktop.rules import rules
from understudy_desktop.store.database import Database, storage_words

log = logging.getLogger(__name__)
Done = Callable[["LibraryError | None"], None]
USAGE_FLUSH_MS = 250
TAMPERED = (
    "it was changed outside Understudy after you approved it; review it to give it back to agents"
)
NOT_SEALED = (
    "its approval was not given in Understudy on this computer (the data folder was copied or "
    "edited); review it to give it back to agents"
)


class LibraryError(Exception):
    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


# --- what each approval is bound to (the consent key's arguments) -----------------------------
def publish_args(tool: TaughtTool) -> dict[str, Any]:
    return {"name": tool.name, "definition": tool.digest}


def repair_args(name: str, new_digest: str, old_digest: str) -> dict[str, Any]:
    return {"name": name, "definition": new_digest, "replaces": old_digest}


def tool_args(tool: TaughtTool) -> dict[str, Any]:
    """Review, enable and revoke are bound to the tool as it is now."""
    return {"name": tool.name, "definition": tool.digest}


def import_args(tools: list[TaughtTool], replace: list[str]) -> dict[str, Any]:
    return {
        "tools": [{"name": t.name, "definition": t.digest} for t in tools],
        "replace": sorted(replace),
    }


def relax_args(name: str) -> dict[str, Any]:
    return {"name": name}


def new_tool(definition: Approved, origin: Origin, status: Status = "active") -> TaughtTool:
    now = time.time()
    stored = definition.stored()
    return TaughtTool(
        name=definition.name,
        definition=stored,
        digest=definition_hash(stored),
        status=status,
        origin=origin,
        created_at=now,
        approved_at=now,
    )


class Library(QObject):
    changed = Signal()  # tools came, went, or changed status: agents' list changes
    removed = Signal(str)  # a tool left the library (revoked or retired), after COMMIT
    usage_changed = Signal()
    recordings_changed = Signal()
    # A tool is being turned off or revoked (name, "disabled" or "revoked"): said before the
    # write, so runs of it that have not begun yet end now rather than after it.
    closing = Signal(str, str)

    def __init__(
        self, db: Database, seal: ApprovalSeal, catalogue: Catalogue | None = None
    ) -> None:
        super().__init__()
        self._db = db
        self._seal = seal
        self.catalogue = catalogue or current_catalogue()
        self._lock = threading.Lock()
        self._tools: dict[str, TaughtTool] = {}
        self._usage: dict[str, Usage] = {}
        self._recordings: dict[str, dict[str, Any]] = {}
        # Team tools wait while this says why ('' they run): the lead's rules are not
        # confirmed lately and the lead asked for that. In memory: worked out again from the
        # team folder at every start, never an approval of its own.
        self._team_pause = ""
        # The lead lets them run meanwhile, with this warning for whoever calls one.
        self.team_warning = ""
        self._dirty_usage: set[str] = set()
        self._usage_timer = QTimer(self)
        self._usage_timer.setSingleShot(True)
        self._usage_timer.setInterval(USAGE_FLUSH_MS)
        self._usage_timer.timeout.connect(self.flush_usage)

    # --- start-up ----------------------------------------------------------------------
    def load(self) -> list[str]:
        """Read everything; hold back tools whose definition no longer matches its approval,
        or whose commands changed under them. Returns problems to tell the person."""
        loaded = store.load(self._db)
        problems = list(loaded.problems)
        fixed: list[TaughtTool] = []
        for tool in loaded.tools.values():
            held = self._check_on_load(tool)
            if held is not tool:
                fixed.append(held)
            loaded.tools[tool.name] = held
        if fixed:

            def write(conn: sqlite3.Connection) -> None:
                for tool in fixed:
                    store.write_tool(conn, tool)

            self._db.write(write)
        with self._lock:
            self._tools = loaded.tools
            self._usage = loaded.usage
            self._recordings = loaded.recordings
        return problems

    def _check_on_load(self, tool: TaughtTool) -> TaughtTool:
        if not tool.intact:
            if tool.status == "needs_review":
                return tool
            log.warning("tool %s no longer matches its approval; held back", tool.name)
            return tool.but(status="needs_review", review_reason=TAMPERED)
        if not self._seal.verify(tool.name, tool.digest, tool.seal):
            if tool.status == "needs_review":
                return tool
            log.warning("the approval of %s was not sealed here; held back", tool.name)
            return tool.but(status="needs_review", review_reason=NOT_SEALED)
        recorded = tool.definition.get("commandSchemas")
        if not isinstance(recorded, dict):
            return tool
        changes = grade_drift(recorded, self.catalogue)
        if not changes:
            return tool
        text = "; ".join(c.sentence() for c in changes[:6])
        if is_breaking(changes):
            if tool.status != "active":
                return tool
            return tool.but(
                status="needs_review",
                review_reason=f"the console changed under it: {text}. Repair the step",
            )
        note = f"Made with an older console; still compatible: {text}."
        return tool if tool.note == note else tool.but(note=note)

    # --- reads (any thread) --------------------------------------------------------------
    def tools(self) -> list[TaughtTool]:
        with self._lock:
            return sorted(self._tools.values(), key=lambda t: t.name)

    def get(self, name: str) -> TaughtTool | None:
        with self._lock:
            return self._tools.get(name)

    def callable(self, name: str) -> TaughtTool | None:
        """The tool, if agents and people may run it now: active, still what was approved, and
        not a team tool while the team's tools are paused."""
        tool = self.get(name)
        return tool if tool is not None and tool.callable and not self.paused_for(tool) else None

    def callable_tools(self) -> list[TaughtTool]:
        return [t for t in self.tools() if t.callable and not self.paused_for(t)]

    # --- team tools while the lead's rules are not confirmed --------------------------------
    def paused_for(self, tool: TaughtTool | None) -> str:
        """Why this tool waits just now ('' it does not): a team tool while team tools pause."""
        return self._team_pause if tool is not None and tool.origin.by == "team" else ""

    def set_team_pause(self, reason: str, warning: str = "") -> None:
        """Pause team tools for `reason` ('' let them run), or let them run with `warning`
        said to whoever calls one. Agents' list changes with it."""
        warning = "" if reason else warning
        changed = reason != self._team_pause
        self._team_pause, self.team_warning = reason, warning
        if changed:
            self.changed.emit()

    def active_count(self) -> int:
        with self._lock:
            return sum(1 for t in self._tools.values() if t.status == "active")

    def usage(self, name: str) -> Usage:
        with self._lock:
            found = self._usage.get(name)
            return Usage(**vars(found)) if found else Usage()

    def recordings(self) -> list[dict[str, Any]]:
        with self._lock:
            return sorted(self._recordings.values(), key=lambda r: str(r.get("createdAt", "")))

    def recording(self, rec_id: str) -> dict[str, Any] | None:
        with self._lock:
            return self._recordings.get(rec_id)

    # --- changes that need a person's approval --------------------------------------------
    def publish(self, tool: TaughtTool, grant: Grant, done: Done) -> None:
        if not self._covered(grant, PUBLISH_TOOL, publish_args(tool), done):
            return
        tool = self.sealed(tool)
        self._commit(lambda conn: self._insert(conn, [tool], []), [tool], [], done)

    def import_tools(
        self,
        tools: list[TaughtTool],
        replace: list[str],
        grant: Grant,
        done: Done,
        also: Callable[[sqlite3.Connection], None] | None = None,
    ) -> None:
        """All of a pack's tools, or none: one transaction. `also` writes what belongs with
        the import in that same transaction (trusting the author who signed it)."""
        if not self._covered(grant, IMPORT_PACK, import_args(tools, replace), done):
            return
        tools = [self.sealed(t) for t in tools]

        def work(conn: sqlite3.Connection) -> None:
            self._insert(conn, tools, replace)
            if also is not None:
                also(conn)

        self._commit(work, tools, replace, done)

    def repair(self, name: str, definition: Approved, grant: Grant, done: Done) -> None:
        old = self.get(name)
        if old is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "There is no tool with that name to repair."))
            return
        if _team_off(old, done):
            return
        stored = definition.stored()
        digest = definition_hash(stored)
        if not self._covered(grant, REPAIR_TOOL, repair_args(name, digest, old.digest), done):
            return
        now = time.time()
        status: Status = "disabled" if old.status == "disabled" else "active"
        fixed = old.but(
            definition=stored,
            digest=digest,
            approved_at=now,
            status=status,
            review_reason="",
            held="",
        )
        self._replace_one(self.sealed(fixed), done, reset_failure=True)

    def review(self, name: str, grant: Grant, done: Done) -> None:
        """The person approved the tool as it is now (after a change or drift)."""
        tool = self.get(name)
        if tool is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "That tool is gone."))
            return
        if _team_off(tool, done):
            return
        current = definition_hash(tool.definition)
        args = {"name": name, "definition": current}
        if not self._covered(grant, REVIEW_TOOL, args, done):
            return
        # The recorded command schemas are not part of the hash: re-grading against this
        # console does not change what was approved.
        approved = tool.but(
            definition={**tool.definition, **self._recorded_now(tool)},
            digest=current,
            status="active",
            review_reason="",
            held="",
            approved_at=time.time(),
        )
        self._replace_one(self.sealed(approved), done, count_active=tool.status != "active")

    def _recorded_now(self, tool: TaughtTool) -> dict[str, Any]:
        """After a review the tool is graded against the console it was reviewed on."""
        return {
            "catalogueVersion": self.catalogue.version,
            "commandSchemas": self.catalogue.schemas_for(tool.steps),
        }

    def enable(self, name: str, grant: Grant, done: Done) -> None:
        tool = self.get(name)
        if tool is None or tool.status != "disabled":
            done(LibraryError(ErrorCode.NOT_FOUND, "That tool is not turned off."))
            return
        if not self._covered(grant, ENABLE_TOOL, tool_args(tool), done):
            return
        self._replace_one(tool.but(status="active"), done, count_active=True)

    def revoke(self, name: str, grant: Grant, done: Done) -> None:
        tool = self.get(name)
        if tool is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return
        if not self._covered(grant, REVOKE_TOOL, tool_args(tool), done):
            return
        self.closing.emit(name, "revoked")

        def write(conn: sqlite3.Connection) -> None:
            store.delete_tool(conn, name)

        def apply() -> None:
            self._tools.pop(name, None)
            self._usage.pop(name, None)
            self._dirty_usage.discard(name)

        def removed(err: LibraryError | None) -> None:
            if err is None:
                self.removed.emit(name)
            done(err)

        self._write(write, apply, removed)

    def relax(self, name: str, grant: Grant, done: Done) -> None:
        """Stop asking before each run: weakens a safeguard, so it takes a Grant."""
        tool = self.get(name)
        if tool is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return
        if not self._covered(grant, RELAX_TOOL, relax_args(name), done):
            return
        self._replace_one(tool.but(ask_every_time=False), done)

    # --- changes that only take power away (no dialog) -------------------------------------
    def disable(self, name: str, done: Done) -> None:
        tool = self.get(name)
        if tool is None or tool.status != "active":
            done(LibraryError(ErrorCode.NOT_FOUND, "That tool is not active."))
            return
        self.closing.emit(name, "disabled")
        self._replace_one(tool.but(status="disabled"), done)

    def ask_every_time(self, name: str, done: Done) -> None:
        tool = self.get(name)
        if tool is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return
        self._replace_one(tool.but(ask_every_time=True), done)

    def hold_back(self, name: str, reason: str, done: Done, held: str = "") -> None:
        """Take the tool away from agents until the person reviews it again; `held` says
        when the team did (see TaughtTool.held), for what a caller is told."""
        tool = self.get(name)
        if tool is None:
            done(LibraryError(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return
        self.closing.emit(name, "disabled")
        self._replace_one(tool.but(status="needs_review", review_reason=reason, held=held), done)

    # --- usage (never touches a definition) -----------------------------------------------
    def record_run(self, name: str, ok: bool, failure: dict[str, Any] | None) -> None:
        with self._lock:
            if name not in self._tools:
                return
            usage = self._usage.setdefault(name, Usage())
            usage.runs += 1
            usage.last_used = time.time()
            if ok:
                usage.successes += 1
            else:
                usage.last_failure = {"at": usage.last_used, **(failure or {})}
            self._dirty_usage.add(name)
        if not self._usage_timer.isActive():
            self._usage_timer.start()
        self.usage_changed.emit()

    def flush_usage(self) -> None:
        with self._lock:
            batch = {
                n: Usage(**vars(self._usage[n])) for n in self._dirty_usage if n in self._usage
            }
            self._dirty_usage.clear()
        if not batch:
            return

        def write(conn: sqlite3.Connection) -> None:
            existing = {r[0] for r in conn.execute("SELECT name FROM tools")}
            for name, usage in batch.items():
                if name in existing:
                    store.write_usage(conn, name, usage)

        self._db.submit(write)

    # --- recordings (the person's own demonstrations; not approvals) -----------------------
    def save_recording(self, recording: dict[str, Any]) -> None:
        """Known at once (the page may ask to publish a tool made from it in the same
        breath), on disk a moment later. A recording is a demonstration, not an approval; the
        shell makes it from the commands it applied (model/teaching.py), never the page."""
        with self._lock:
            previous = self._recordings.get(str(recording["id"]))
            revision = int(previous.get("revision", 0)) + 1 if previous else 1
            recording = {**recording, "revision": revision}
            self._recordings[str(recording["id"])] = recording

        def write(conn: sqlite3.Connection) -> None:
            store.write_recording(conn, recording)

        self._db.submit(write)
        self.recordings_changed.emit()

    def delete_recording(self, rec_id: str) -> None:
        def write(conn: sqlite3.Connection) -> None:
            store.delete_recording(conn, rec_id)

        def apply() -> None:
            self._recordings.pop(rec_id, None)

        self._write(write, apply, lambda _e: self.recordings_changed.emit(), emit=False)

    # --- plumbing -----------------------------------------------------------------------------
    def sealed(self, tool: TaughtTool) -> TaughtTool:
        """The tool with its approval sealed under this user's key (only after a Grant)."""
        return tool.but(seal=self._seal.seal(tool.name, tool.digest))

    @staticmethod
    def _covered(grant: Grant, action: SensitiveAction, args: dict[str, Any], done: Done) -> bool:
        if isinstance(grant, Grant) and grant.covers(action.name, args):
            return True
        log.warning("refused a %s without a matching approval", action.name)
        done(LibraryError(ErrorCode.NOT_APPROVED, "A person has not approved exactly this change."))
        return False

    def _insert(
        self, conn: sqlite3.Connection, tools: list[TaughtTool], replace: list[str]
    ) -> None:
        for name in replace:
            store.delete_tool(conn, name)
        existing = {r[0] for r in conn.execute("SELECT name FROM tools")}
        taken = [t.name for t in tools if t.name in existing]
        if taken:
            raise LibraryError(
                ErrorCode.NAME_TAKEN,
                "A tool with that name exists already. Choose another name.",
            )
        active = conn.execute("SELECT COUNT(*) FROM tools WHERE status = 'active'").fetchone()[0]
        adding = sum(1 for t in tools if t.status == "active")
        cap = rules().maxTaughtTools
        if adding and active + adding > cap:
            raise LibraryError(
                ErrorCode.CAP_REACHED,
                f"You already have {active} active tools; {cap} is the most agents can choose "
                "from well. Turn off or revoke one in the library first.",
            )
        for tool in tools:
            store.write_tool(conn, tool)

    def _commit(
        self,
        work: Callable[[sqlite3.Connection], None],
        tools: list[TaughtTool],
        replace: list[str],
        done: Done,
    ) -> None:
        def apply() -> None:
            for name in replace:
                self._tools.pop(name, None)
                self._usage.pop(name, None)
            for tool in tools:
                self._tools[tool.name] = tool

        self._write(work, apply, done)

    def _replace_one(
        self,
        tool: TaughtTool,
        done: Done,
        count_active: bool = False,
        reset_failure: bool = False,
    ) -> None:
        cap = rules().maxTaughtTools

        def write(conn: sqlite3.Connection) -> None:
            if conn.execute("SELECT 1 FROM tools WHERE name = ?", (tool.name,)).fetchone() is None:
                raise LibraryError(ErrorCode.NOT_FOUND, "That tool is gone.")
            if count_active:
                active = conn.execute(
                    "SELECT COUNT(*) FROM tools WHERE status = 'active' AND name != ?",
                    (tool.name,),
                ).fetchone()[0]
                if active >= cap:
                    raise LibraryError(
                        ErrorCode.CAP_REACHED,
                        f"{cap} tools are active already. Turn another off first.",
                    )
            store.write_tool(conn, tool)

        def apply() -> None:
            self._tools[tool.name] = tool
            if reset_failure and tool.name in self._usage:
                self._usage[tool.name].last_failure = None

        self._write(write, apply, done)

    def _write(
        self,
        work: Callable[[sqlite3.Connection], None],
        apply: Callable[[], None],
        done: Done,
        emit: bool = True,
    ) -> None:
        future = self._db.submit(work)

        def settled() -> None:
            exc = future.exception()
            if exc is not None:
                error = (
                    exc
                    if isinstance(exc, LibraryError)
                    else LibraryError(
                        ErrorCode.STORAGE, f"The change was not saved: {storage_words(exc)}."
                    )
                )
                if not isinstance(exc, LibraryError):
                    log.error("a library write failed: %s", exc)
                done(error)
                return
            with self._lock:
                apply()
            if emit:
                self.changed.emit()
            done(None)

        future.add_done_callback(lambda _f: call_on_main(settled))


def _team_off(tool: TaughtTool, done: Done) -> bool:
    """A tool the team lead turned off for the team comes back only when they turn it on."""
    if tool.held != "team_off":
        return False
    done(
        LibraryError(
            ErrorCode.APPROVAL_CHANGED,
            "Your team lead turned this tool off for the whole team. It can be used again "
            "once they turn it back on.",
        )
    )
    return True
