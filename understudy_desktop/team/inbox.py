"""What the team folder means for this person: which tools are new, which are updates of tools
they accepted, which wait for a decision about their author, which were withdrawn, and which
files were changed after signing. Pure: computed from a scan and the local decisions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from understudy_desktop.team.documents import as_usage, as_withdrawal, when
from understudy_desktop.team.folder import FolderScan, SharedFile
from understudy_desktop.team.signing import key_id

State = Literal["new", "update", "current", "declined", "changed", "withdrawn", "mine"]
OFFERED: tuple[State, ...] = ("new", "update")


@dataclass(frozen=True)
class Installed:
    """A tool in this person's library that came from the team folder."""

    local_name: str
    key: str  # its author's key
    shared_as: str  # its name in the team folder
    version: str  # the digest of the file it came from
    created: str  # when that version was shared


@dataclass(frozen=True)
class TeamUsage:
    runs: int = 0
    failures: int = 0
    people: int = 0
    last_used: str = ""  # a day, YYYY-MM-DD


@dataclass(frozen=True)
class TeamTool:
    """The latest version of one shared tool (one author, one name), and what it means here."""

    state: State
    file: SharedFile
    tool: str  # its name in the team folder
    author: str
    key: str  # '' when not signed
    trusted: bool = False
    impostor_of: str = ""  # the key id this person trusts under the same name, if another
    installed: Installed | None = None
    usage: TeamUsage = field(default_factory=TeamUsage)

    @property
    def offered(self) -> bool:
        return self.state in OFFERED

    @property
    def key_id(self) -> str:
        return key_id(self.key) if self.key else ""


@dataclass
class TeamView:
    reachable: bool
    tools: list[TeamTool] = field(default_factory=list)
    withdraw: list[TeamTool] = field(default_factory=list)  # accepted here, withdrawn there

    @property
    def offered(self) -> list[TeamTool]:
        return [t for t in self.tools if t.offered]

    @property
    def waiting_for_trust(self) -> list[TeamTool]:
        return [t for t in self.offered if t.key and not t.trusted]


def tool_name(file: SharedFile) -> str:
    tools = (file.document or {}).get("tools")
    if isinstance(tools, list) and tools and isinstance(tools[0], dict):
        return str(tools[0].get("name", ""))[:200]
    return ""


def _latest(files: list[SharedFile]) -> SharedFile:
    return max(files, key=lambda f: (when(f.created), f.name))


def _usage(scan: FolderScan) -> dict[tuple[str, str], TeamUsage]:
    """Each person's latest counts, added up per tool."""
    latest: dict[str, tuple[str, SharedFile]] = {}
    for file in scan.of("usage"):
        if file.verdict == "signed" and (
            file.key not in latest or when(file.created) > when(latest[file.key][0])
        ):
            latest[file.key] = (file.created, file)
    totals: dict[tuple[str, str], TeamUsage] = {}
    for _created, file in latest.values():
        counts = as_usage(file.document)
        if counts is None:
            continue
        seen: set[tuple[str, str]] = set()
        for c in counts.tools:
            if (c.sharedBy, c.tool) in seen:
                continue  # one person's file counts a tool once
            seen.add((c.sharedBy, c.tool))
            before = totals.get((c.sharedBy, c.tool), TeamUsage())
            totals[(c.sharedBy, c.tool)] = TeamUsage(
                before.runs + c.runs,
                before.failures + c.failures,
                before.people + (1 if c.runs else 0),
                max(before.last_used, c.lastUsed),
            )
    return totals


def _withdrawn(scan: FolderScan) -> dict[tuple[str, str], str]:
    """(author key, tool) -> the latest time its author withdrew it (signed by that key)."""
    out: dict[tuple[str, str], str] = {}
    for file in scan.of("withdrawn"):
        withdrawal = as_withdrawal(file.document) if file.verdict == "signed" else None
        if withdrawal is None or withdrawal.authorKey != file.key:
            continue
        key = (file.key, withdrawal.tool)
        if key not in out or when(withdrawal.created) > when(out[key]):
            out[key] = withdrawal.created
    return out


def team_view(
    scan: FolderScan,
    mine: str,
    trusted: dict[str, str],
    installed: list[Installed],
    declined: set[str],
) -> TeamView:
    view = TeamView(reachable=scan.reachable)
    if not scan.reachable:
        return view
    groups: dict[tuple[str, str], list[SharedFile]] = {}
    for file in scan.of("tools"):
        if file.verdict == "changed":
            view.tools.append(TeamTool("changed", file, tool_name(file), file.author, ""))
            continue
        if not tool_name(file):
            continue  # not a pack with a tool in it: nothing to offer (a stray file)
        groups.setdefault((file.key, tool_name(file)), []).append(file)
    withdrawn = _withdrawn(scan)
    usage = _usage(scan)
    by_team_name = {(i.key, i.shared_as): i for i in installed}
    trusted_names = {name: key for key, name in trusted.items()}
    for (key, name), files in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0])):
        latest = _latest(files)
        here = by_team_name.get((key, name)) if key else None
        stopped = withdrawn.get((key, name)) if key else None
        state: State
        if stopped is not None and when(stopped) >= when(latest.created):
            state = "withdrawn"  # this person's own too, once they withdrew it
        elif key and key == mine:
            state = "mine"
        elif here is not None:
            newer = here.version != latest.digest and when(latest.created) > when(here.created)
            state = "update" if newer else "current"
        elif latest.digest in declined:
            state = "declined"
        else:
            state = "new"
        other = trusted_names.get(latest.author, key) if key else key
        item = TeamTool(
            state=state,
            file=latest,
            tool=name,
            author=latest.author,
            key=key,
            trusted=bool(key) and key in trusted,
            impostor_of=key_id(other) if key and other != key and key not in trusted else "",
            installed=here,
            usage=usage.get((key, name), TeamUsage()),
        )
        view.tools.append(item)
        if state == "withdrawn" and here is not None:
            view.withdraw.append(item)
    return view
