"""The team library in words: the groups the team window shows, and for each shared tool its
warning (shown first) and one line that says what it is. No Qt here."""

from __future__ import annotations

import time

from understudy_desktop.library.model import shown_name
from understudy_desktop.shell.pack_dialogs import day_words
from understudy_desktop.team.documents import when
from understudy_desktop.team.inbox import UNSIGNED_WORDS, State, TeamTool, TeamView
from understudy_desktop.team.names import one_line
from understudy_desktop.team.status_words import ago, freshness_notice

# (heading, the states it holds), in the order the window shows them.
GROUPS: tuple[tuple[str, tuple[State, ...]], ...] = (
    ("New from your team", ("new",)),
    ("Updates to tools you accepted", ("update",)),
    ("From people you do not trust yet", ("untrusted",)),
    ("Not signed by anyone", ("unsigned",)),
    ("Waiting", ("awaiting_review", "not_allowed", "older")),
    ("Withdrawn or turned off for the team", ("withdrawn", "turned_off")),
    ("Cannot be used", ("changed", "revoked", "disputed", "lead_revoked")),
    ("Already in your library", ("current", "declined")),
    ("Shared by you", ("mine",)),
)


def group_of(state: State) -> str:
    return next(heading for heading, states in GROUPS if state in states)


def warning(item: TeamTool) -> str:
    """What a person must read before anything else about this tool ('' when nothing)."""
    if item.state == "changed":
        return "⚠ Changed after signing: it is not what its author shared, so it cannot be used."
    if item.state == "unsigned":
        return f"⚠ {UNSIGNED_WORDS}"
    if item.impostor_of:
        return (
            f"⚠ The name looks like {item.looks_like}'s, but this key is not the one you trust "
            f"for them (theirs is {item.impostor_of}). Ask {item.looks_like} before you review it."
        )
    if item.other_names:
        others = ", ".join(f"“{n}”" for n in item.other_names)
        more = item.other_count - len(item.other_names)
        if more > 0:
            others += f" and {more:,} more"
        return (
            f"⚠ This key also signed files under other names ({others}). One person may have "
            "several names, but ask before you trust it."
        )
    return ""


def line(item: TeamTool) -> str:
    """One line for the team window: what it is, from whom, when, how much the team uses it."""
    who = item.author or "someone who gave no name"
    when = f", shared {day_words(item.file.created)}" if item.file.created else ""
    version = f" (version {item.file.version})" if item.file.version else ""
    runs = item.usage.runs
    used = (
        f" · used {runs} time{'s' if runs != 1 else ''} by "
        f"{item.usage.people} {'person' if item.usage.people == 1 else 'people'} you trust"
        if runs
        else ""
    )
    name = (shown_name(item.tool, item.file.title) if item.tool else "a tool") + version
    key = f" (key {item.key_id})" if item.key else ""
    match item.state:
        case "changed":
            return f"{name}"
        case "unsigned":
            return f"{name}{when}"
        case "mine":
            return f"{name}: shared by you{when}{used}"
        case "withdrawn":
            return f"{name}: withdrawn by {who}"
        case "turned_off":
            return f"{name}: from {who}; your team lead turned it off for the team"
        case "current" if item.have_as and item.installed is None:
            return f"{name}: from {who}{when}; you have it already, as “{item.have_as}”"
        case "current":
            return f"{name}: from {who}{when}, in your library{used}"
        case "declined":
            return f"{name}: from {who}{when}; you chose not to use it"
        case "awaiting_review":
            return (
                f"{name}: from {who}{when}; your team asks for a second person's review "
                "before everyone is offered it"
            )
        case "not_allowed":
            return f"{name}: from {who}{key}; your team lead has not let them share tools"
        case "older":
            return (
                f"{name}: from {who}; version {item.newer_seen} was here before, so this older "
                "one is not offered"
            )
        case "untrusted":
            return f"{name}: from {who}{key}{when}; waits for you to trust its author{used}"
        case "disputed":
            return (
                f"{name}: signed with a key{key} that claims to take over from a key another "
                "new key claims too; ask its author, by phone or in person, which one is theirs"
            )
        case "lead_revoked":
            return (
                f"{name}: from {who}{key}; your team lead revoked this key (it may have been "
                "copied, or its owner left the team), so nothing it signed is used"
            )
        case "revoked":
            return (
                f"{name}: signed with a key that {who or 'its owner'} no longer uses{key}; "
                "whoever holds that key now cannot share tools as them"
            )
    label = "Update" if item.state == "update" else "New"
    return f"{label}: {name}, from {who}{when}{used}"


def describe(item: TeamTool) -> str:
    """The warning first, then the line."""
    first = warning(item)
    return f"{first}\n{line(item)}" if first else line(item)


def notes(view: TeamView, now: float | None = None) -> list[str]:
    """What the window says about the folder as a whole."""
    now = time.time() if now is None else now
    out = []
    fresh = view.freshness
    if fresh.stale:
        out.append(f"⚠ {freshness_notice(fresh, now)}")
    elif fresh.state == "fresh":
        confirmed = ago(max(0.0, now - when(fresh.confirmed_at).timestamp()))
        out.append(
            f"{one_line(fresh.by) or 'Your team lead'} confirmed the team's rules {confirmed}."
        )
    if view.usage_ignored:
        n = view.usage_ignored
        listed = view.policy is not None and view.policy.publishers is not None
        outside = "you do not trust" + (" or your team lead has not let share" if listed else "")
        out.append(
            f"Usage counts from {n} {'person' if n == 1 else 'people'} {outside} are not counted."
        )
    if view.arriving:
        n = view.arriving
        out.append(f"{n} file{'s are' if n != 1 else ' is'} still arriving in the folder.")
    if view.links:
        out.append("A link is in the folder where Understudy keeps its files; it is not followed.")
    if view.policy is not None:
        out.append(f"Your team follows the rules set by {view.policy.author or 'its lead'}.")
    if view.contested:
        out.append(
            "⚠ One key was moved to two different new keys, so it was surely copied: neither "
            "new key is trusted through it. Ask its owner, by phone or in person, which key is "
            "theirs, and compare the whole fingerprint before you trust it."
        )
    return out
