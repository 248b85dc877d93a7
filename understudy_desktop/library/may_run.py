"""May this tool run now? One function, asked when a call arrives, again when its run reaches
the front of the queue, again after an ask-every-time dialog, and a last time inside the run's
own transaction (where the answer cannot change before the run is done: Turn off and Revoke
are written through the same database writer)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import Any

from understudy_desktop.error_codes import ErrorCode


@dataclass(frozen=True)
class ToolState:
    """A tool's approval as the library holds it (or None: not in the library)."""

    status: str  # active, disabled, needs_review
    digest: str  # what the approved definition hashes to
    held: str = ""  # why the team took it away (withdrawn, team_off, key_revoked)
    # Why team tools are paused just now ('' not paused): the lead's rules have not been
    # confirmed lately, and the lead asked for team tools to wait until they are.
    paused: str = ""


def may_run(
    name: str,
    state: ToolState | None,
    approved: str,
    deadline: float | None,
    now: float,
) -> dict[str, Any] | None:
    """None if the tool approved as `approved` (a definition digest) may run now; otherwise
    the answer its caller gets, with a stable code."""
    if state is None:
        return _no(ErrorCode.NOT_FOUND, f"{name} is not in the person's library (it was revoked).")
    if state.status == "needs_review" and state.held == "withdrawn":
        return _no(
            ErrorCode.APPROVAL_CHANGED,
            f"{name} was withdrawn from the team library by its author, so it no longer runs.",
        )
    if state.status == "needs_review" and state.held == "team_off":
        return _no(
            ErrorCode.APPROVAL_CHANGED,
            f"{name} was turned off for the whole team by the team lead, so it does not run.",
        )
    if state.status == "needs_review" and state.held == "key_revoked":
        return _no(
            ErrorCode.APPROVAL_CHANGED,
            f"{name} was signed with a key the team lead revoked (it may have been copied), so "
            "it does not run.",
        )
    if state.status == "needs_review" or state.digest != approved:
        return _no(
            ErrorCode.APPROVAL_CHANGED,
            f"{name} changed since a person approved it. It is held back until they review it "
            "again.",
        )
    if state.status != "active":
        return _no(ErrorCode.APPROVAL_CHANGED, f"{name} was turned off in the person's library.")
    if state.paused:
        return _no(
            ErrorCode.TEAM_UNCONFIRMED,
            f"{name} comes from the team library, and {state.paused}. The team lead asked for "
            "team tools to wait until the rules are confirmed again.",
        )
    if deadline is not None and now > deadline:
        return _no(ErrorCode.TIMEOUT, f"{name} waited its turn too long and did not run.")
    return None


def stored_state(conn: sqlite3.Connection, name: str) -> ToolState | None:
    """The tool's approval as the database holds it now (inside a transaction)."""
    row = conn.execute("SELECT status, digest, held FROM tools WHERE name = ?", (name,)).fetchone()
    return ToolState(str(row[0]), str(row[1]), str(row[2])) if row is not None else None


def _no(code: ErrorCode, message: str) -> dict[str, Any]:
    return {"isError": True, "code": code, "message": message}
