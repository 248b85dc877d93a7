"""What the team folder means for this person: which tools are new, which are updates of tools
they accepted, which are signed by people they do not trust (or by nobody), which were
withdrawn or turned off for the team, and which files were changed after signing. Pure:
computed from a scan and the local decisions (tests/test_team_signing.py, test_team_trust.py).

Trust is by key. A name is only what a file says: it is compared with the names this person
knows by its look (team/names.py), so a look-alike of a trusted name under another key gets
the same warning as the name itself, and one key signing under several names is flagged.
"""

from __future__ import annotations

import dataclasses
import functools
import time
from dataclasses import dataclass, field
from typing import Literal

from understudy_desktop.team import names
from understudy_desktop.team.documents import (
    KeyHandover,
    Policy,
    Review,
    UsageCounts,
    countersigned,
    when,
)
from understudy_desktop.team.folder import FolderScan, SharedFile, content_name, read_file
from understudy_desktop.team.freshness import Freshness, freshness
from understudy_desktop.team.history import AuditLine, Signers, history, replaced_at
from understudy_desktop.team.leads import InForce, in_force
from understudy_desktop.team.signing import key_id

__all__ = ["AuditLine", "Decisions", "Installed", "TeamTool", "TeamView", "team_view"]

State = Literal[
    "new",  # signed by someone this person trusts, not in their library
    "update",  # a newer version of a tool they accepted
    "untrusted",  # signed by a key they do not trust (yet)
    "unsigned",  # nobody signed it
    "current",  # in their library as it is
    "declined",  # they chose not to use it
    "changed",  # changed after signing: cannot be used
    "withdrawn",  # its author withdrew it
    "turned_off",  # the team lead turned it off for the team
    "not_allowed",  # the team lead does not let its author publish to the team
    "awaiting_review",  # the team asks for a second member's review first
    "older",  # a newer version was seen here before: this one is not offered
    "mine",  # shared by this person
    "revoked",  # signed by a key that was handed over or revoked: it signs nothing new
    "disputed",  # signed by one of two keys a copied key was handed over to
    "lead_revoked",  # signed by a key the team lead revoked: stopped even if accepted
]
OFFERED: tuple[State, ...] = ("new", "update", "untrusted", "unsigned")
OTHER_NAMES_SHOWN = 5  # a key's other names named in its warning (the rest are counted)
UNSIGNED_WORDS = "Nobody signed this: anyone with access to the folder could have put it here."


@dataclass(frozen=True)
class Installed:
    """A tool in this person's library that came from the team folder."""

    local_name: str
    key: str  # its author's key ('' for an unsigned one)
    shared_as: str  # its name in the team folder
    version: str  # the digest of the file it came from
    created: str  # when that version was shared
    held: str = ""  # why the team took it away here ('' when it did not)
    does: str = ""  # what it does (team/fingerprint.py), to keep it off under any name


@dataclass(frozen=True)
class TeamUsage:
    runs: int = 0
    failures: int = 0
    people: int = 0
    last_used: str = ""  # a day, YYYY-MM-DD


@dataclass(frozen=True)
class Decisions:
    """What this person decided, and what their app remembers, that the view depends on."""

    mine: str = ""  # their own key
    former: frozenset[str] = frozenset()  # keys they used before (their files stay theirs)
    trusted: dict[str, str] = field(default_factory=dict)  # key -> the name trusted as
    installed: tuple[Installed, ...] = ()
    accepted: frozenset[str] = frozenset()  # digests of files accepted here
    declined: frozenset[str] = frozenset()
    seen: dict[tuple[str, str], int] = field(default_factory=dict)  # newest version seen
    have: dict[str, str] = field(default_factory=dict)  # definition digest -> local tool
    lead: str = ""  # the team lead's key they chose to follow ('' none)
    my_name: str = ""
    # Keys this person trusted themselves, after checking them with their owner (not through
    # a hand-over): their word settles a key handed over twice.
    direct: frozenset[str] = frozenset()
    # Every tool of the library signed by a key (from the team or a pack file): a key the
    # lead revokes stops them all, accepted before or after.
    keyed: tuple[Installed, ...] = ()
    now: float = 0.0  # the time the view is worked out for (0: now)


@dataclass(frozen=True)
class TeamTool:
    """The latest version of one shared tool (one author, one name), and what it means here."""

    state: State
    file: SharedFile
    tool: str  # its name in the team folder
    author: str  # the name shown: the trusted one for a trusted key, '' when unsigned
    key: str  # '' when not signed
    trusted: bool = False
    named_in_file: str = ""  # the name the file gives, when it differs from `author`
    impostor_of: str = ""  # the key id of a known person whose name this one looks like
    looks_like: str = ""  # that person's name
    other_names: tuple[str, ...] = ()  # other names the same key signed under (the first)
    other_count: int = 0  # how many other names it signed under in all
    installed: Installed | None = None
    usage: TeamUsage = field(default_factory=TeamUsage)
    have_as: str = ""  # a tool of this person's library with the same definition
    newer_seen: int = 0  # for "older": the version seen before
    vouched_by: str = ""  # the earlier key that handed over to this one

    @property
    def offered(self) -> bool:
        return self.state in OFFERED

    @property
    def key_id(self) -> str:
        return key_id(self.key) if self.key else ""

    @property
    def warned(self) -> bool:
        return bool(self.impostor_of or self.other_names) or self.state == "unsigned"


@dataclass
class TeamView:
    reachable: bool
    tools: list[TeamTool] = field(default_factory=list)
    withdraw: list[TeamTool] = field(default_factory=list)  # accepted here, withdrawn there
    turn_off: list[TeamTool] = field(default_factory=list)  # accepted here, off for the team
    turn_back: list[Installed] = field(default_factory=list)  # off for the team no longer
    seen: dict[tuple[str, str], tuple[int, str]] = field(default_factory=dict)  # newer now
    vouched: dict[str, tuple[str, str]] = field(default_factory=dict)  # new key -> (old, name)
    revoked: set[str] = field(default_factory=set)  # keys that sign nothing new
    handed: dict[str, str] = field(default_factory=dict)  # old key -> the key it moved to
    contested: dict[str, set[str]] = field(default_factory=dict)  # old key -> two or more new
    policy: Policy | None = None
    policies: list[SharedFile] = field(default_factory=list)  # signed policies, newest first
    usage_ignored: int = 0  # usage files from keys this person does not trust
    arriving: int = 0
    links: list[str] = field(default_factory=list)
    audit: list[AuditLine] = field(default_factory=list)
    freshness: Freshness = field(default_factory=lambda: Freshness("no_lead"))
    lead_revoked: set[str] = field(default_factory=set)  # keys the lead revoked
    revoke_here: list[Installed] = field(default_factory=list)  # signed by one: to stop here
    unrevoke_here: list[Installed] = field(default_factory=list)  # no longer revoked
    chain: list[str] = field(default_factory=list)  # the lead's keys, oldest first
    rules: InForce = field(default_factory=InForce)  # the rules in force, their leads, waiting

    @property
    def offered(self) -> list[TeamTool]:
        return [t for t in self.tools if t.offered]

    @property
    def new_from_team(self) -> list[TeamTool]:
        """What the status bar counts: signed by people this person trusts."""
        return [t for t in self.tools if t.state in ("new", "update")]


def _latest(files: list[SharedFile]) -> SharedFile:
    return max(files, key=lambda f: (f.version, when(f.created), f.name))


def _signed(scan: FolderScan, kind: str) -> list[SharedFile]:
    return [f for f in scan.files if f.kind == kind and f.verdict == "signed" and f.info]


@dataclass(frozen=True)
class KeyChanges:
    """What the signed hand-overs (and the lead's revocations) say about keys."""

    vouched: dict[str, tuple[str, str]]  # new key -> (old key, the name trusted)
    successor: dict[str, str]  # old key -> the one key it handed over to
    revoked: frozenset[str]  # handed over, or revoked by the lead: signs nothing new
    contested: dict[str, set[str]]  # a key handed over to two or more keys

    @property
    def suspect(self) -> set[str]:
        """Keys a contested key handed over to: nobody can tell which is its owner's."""
        return set().union(*self.contested.values()) if self.contested else set()


def _handovers(
    scan: FolderScan,
    trusted: dict[str, str],
    lead_revoked: frozenset[str] = frozenset(),
    direct: frozenset[str] = frozenset(),
) -> KeyChanges:
    """Hand-overs signed by the old key and countersigned by the new one. A key handed over
    is revoked from then on (its owner moved on, or it was copied); a key handed over to two
    different keys was surely copied, and neither new key is trusted through it. A key the
    lead revoked hands over to nobody. Trust follows a chain: old -> newer -> newest.

    The lead's word and this person's own settle a key handed over twice: a new key the lead
    revoked is no candidate, and of those left, the one this person trusts themselves (having
    checked it with its owner) is the owner's."""
    offers: dict[str, set[str]] = {}
    for file in _signed(scan, "keys"):
        info = file.info
        if (
            isinstance(info, KeyHandover)
            and file.key == info.authorKey
            and file.key != info.newKey
            and file.key not in lead_revoked
            and countersigned(info)
        ):
            offers.setdefault(file.key, set()).add(info.newKey)
    settled: dict[str, set[str]] = {}
    for old, news in offers.items():
        left = news - lead_revoked
        if len(left) > 1 and len(left & direct) == 1:
            left = left & direct
        settled[old] = left
    contested = {old: news for old, news in settled.items() if len(news) > 1}
    successor = {old: next(iter(news)) for old, news in settled.items() if len(news) == 1}
    vouched: dict[str, tuple[str, str]] = {}
    known = dict(trusted)
    changed = True
    while changed:
        changed = False
        for old, new in successor.items():
            if old in known and new not in known:
                known[new] = known[old]
                vouched[new] = (old, known[old])
                changed = True
    return KeyChanges(vouched, successor, frozenset(offers) | lead_revoked, contested)


def _lead_chain(lead: str, successor: dict[str, str]) -> list[str]:
    """The lead's key and each key it handed over to, in turn (the last is the lead now)."""
    chain = [lead] if lead else []
    while chain and chain[-1] in successor and successor[chain[-1]] not in chain:
        chain.append(successor[chain[-1]])
    return chain


def _usage(
    scan: FolderScan, counted: set[str], person_of: dict[str, str]
) -> tuple[dict[tuple[str, str], TeamUsage], int]:
    """Each trusted person's latest counts, added up per tool: one person per trusted key (a
    key and the one it handed over to are one person, `person_of`). Counts signed by any other
    key are left out, and counted as left out."""
    latest: dict[str, SharedFile] = {}
    ignored: set[str] = set()
    for file in _signed(scan, "usage"):
        if file.key not in counted:
            ignored.add(file.key)
            continue
        person = person_of.get(file.key, file.key)
        if person not in latest or when(file.created) > when(latest[person].created):
            latest[person] = file
    totals: dict[tuple[str, str], TeamUsage] = {}
    for file in latest.values():
        counts = file.info
        if not isinstance(counts, UsageCounts):
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
    return totals, len(ignored)


def _withdrawn(
    scan: FolderScan, same_person: dict[str, str], revoked: set[str]
) -> dict[tuple[str, str], str]:
    """(author key, tool) -> the latest time its author withdrew it (signed by that key, or by
    a key it handed over to; never by a revoked key, which a thief may hold)."""
    out: dict[tuple[str, str], str] = {}
    for file in _signed(scan, "withdrawn"):
        info = file.info
        if info is None or getattr(info, "authorKey", None) != file.key or not file.tool:
            continue
        if file.key in revoked:
            continue
        for key in {file.key, same_person.get(file.key, file.key)}:
            pair = (key, file.tool)
            if pair not in out or when(info.created) > when(out[pair]):
                out[pair] = info.created
    return out


def _reviewed(scan: FolderScan, reviewers: set[str] | None) -> dict[str, set[str]]:
    """File digest -> the keys that accepted that version (a review), from `reviewers`
    (None: anyone signed)."""
    out: dict[str, set[str]] = {}
    for file in _signed(scan, "reviews"):
        info = file.info
        if isinstance(info, Review) and (reviewers is None or file.key in reviewers):
            out.setdefault(info.file, set()).add(file.key)
    return out


@dataclass
class _Looks:
    """The distinct names (by their look) one key signed under, indexed so that what a tool's
    name does not look like is found without comparing every pair (one key may sign under
    thousands of names)."""

    ordered: list[str] = field(default_factory=list)  # one spelling per look, sorted
    by_form: dict[str, set[str]] = field(default_factory=dict)  # a folded form -> spellings

    def others(self, name: str, most: int) -> tuple[tuple[str, ...], int]:
        """Up to `most` of the names that do not look like `name`, and how many there are."""
        alike = set().union(*(self.by_form.get(f, set()) for f in names.folds(name)))
        shown: list[str] = []
        for other in self.ordered:
            if len(shown) == most:
                break
            if other not in alike:
                shown.append(other)
        return tuple(shown), len(self.ordered) - len(alike)  # every alike one is in `ordered`


def _names_by_key(scan: FolderScan) -> dict[str, _Looks]:
    """Each signing key and the distinct names (by their look) it signed under."""
    spelled: dict[str, dict[frozenset[str], str]] = {}
    for file in scan.files:
        if file.verdict == "signed" and file.author:
            spelled.setdefault(file.key, {}).setdefault(names.folds(file.author), file.author)
    out: dict[str, _Looks] = {}
    for key, by_look in spelled.items():
        looks = _Looks(sorted(by_look.values()))
        for forms, spelling in by_look.items():
            for form in forms:
                looks.by_form.setdefault(form, set()).add(spelling)
        out[key] = looks
    return out


@dataclass
class _Context:
    """What the whole folder says, worked out once per view, that each tool is judged by."""

    d: Decisions
    me: set[str]
    trusted: dict[str, str]  # key -> name: trusted, or vouched for by a trusted key
    same_person: dict[str, str]  # a key -> the key it handed over to, or from
    policy: Policy | None
    publishers: set[str] | None
    reviewers: set[str]
    reviewed: dict[str, set[str]]
    off: set[tuple[str, str]]
    off_steps: set[str]  # steps turned off for the team, under any name
    usage: dict[tuple[str, str], TeamUsage]
    withdrawn: dict[tuple[str, str], str]
    by_key_names: dict[str, _Looks]
    known: dict[str, str]  # the names this person knows, by key (look-alikes of these)
    reviewed_versions: dict[tuple[str, str], int]
    by_team_name: dict[tuple[str, str], Installed]  # (author key, shared name) -> here
    by_version: dict[str, Installed]  # the file a tool here came from -> it
    revoked: set[str]  # keys that sign nothing new
    disputed: set[str]  # keys a copied key was handed over to, as well as another
    lead_revoked: frozenset[str]  # keys the lead revoked: what they signed stops, even here
    person_of: dict[str, str]  # a key -> the first key of the same person


def _context(scan: FolderScan, d: Decisions, view: TeamView) -> _Context:
    me = ({d.mine} if d.mine else set()) | set(d.former)
    base = {**d.trusted, **{k: d.my_name for k in me}}
    direct = d.direct & frozenset(d.trusted)
    keys = _handovers(scan, base, direct=direct)
    chain = _lead_chain(d.lead, keys.successor)
    rules = in_force(scan.files, chain)
    policy, view.policies, view.rules = rules.policy, rules.policies, rules
    lead = chain[-1] if chain else ""
    lead_revoked = frozenset(policy.revokedKeys) - me - set(chain) if policy else frozenset()
    if lead_revoked:
        keys = _handovers(scan, base, lead_revoked, direct)
    view.lead_revoked, view.chain = set(lead_revoked), chain
    view.vouched, view.revoked, view.contested = keys.vouched, set(keys.revoked), keys.contested
    view.handed = dict(keys.successor)
    # A revoked key, or one a copied key handed over to, signs, vouches and counts for nothing.
    out = set(keys.revoked | keys.suspect) - me
    trusted = {
        k: name
        for k, name in {**d.trusted, **{n: v[1] for n, v in keys.vouched.items()}}.items()
        if k not in out
    }
    same_person = {**keys.successor, **{new: old for new, (old, _n) in keys.vouched.items()}}
    view.policy = policy
    counted = set(trusted) | me
    publishers = set(policy.publishers) - out if policy and policy.publishers is not None else None
    if publishers is not None:
        # The lead's own tools are the team's under any list of theirs, from each of the keys
        # the lead has had (a tool shared before the lead moved keys included).
        publishers |= set(chain)
    # With the lead's list of who may share, only those people (and this person) are the
    # team in the counts: someone trusted one to one still counts for nothing there.
    in_counts = counted & publishers | me if publishers is not None else counted
    usage, view.usage_ignored = _usage(scan, in_counts, _first_keys(view.vouched))
    # Who may be the second reviewer: those allowed to share, or, with no such list, the
    # lead alone (never "anyone": then every member would count as the second person).
    if policy is None:
        reviewers = counted
    else:
        reviewers = (publishers if publishers is not None else set()) | ({lead} - {""})
    return _Context(
        d=d,
        me=me,
        trusted=trusted,
        same_person=same_person,
        policy=policy,
        publishers=publishers,
        reviewers=reviewers - out,
        reviewed=_reviewed(scan, reviewers - out),
        off={(t.sharedBy, t.tool) for t in policy.turnedOff} if policy else set(),
        off_steps={t.steps for t in policy.turnedOff if t.steps} if policy else set(),
        lead_revoked=lead_revoked,
        usage=usage,
        withdrawn=_withdrawn(scan, same_person, out),
        by_key_names=_names_by_key(scan),
        known={**trusted, **({k: d.my_name for k in me} if d.my_name else {})},
        reviewed_versions=_reviewed_versions(scan, counted),
        by_team_name={(i.key, i.shared_as): i for i in d.installed},
        by_version={i.version: i for i in d.installed},
        revoked=out,
        disputed=keys.suspect - me,
        person_of={**_first_keys(view.vouched)},
    )


def with_kept(scan: FolderScan, kept: list[SharedFile]) -> FolderScan:
    """The folder as it is, plus the signed documents this app saw there before and keeps
    (team/trust.py): a rule, a withdrawal, a hand-over or a review deleted from the folder
    still counts, so deleting one file never undoes a decision."""
    if not scan.reachable:
        return scan
    present = {f.name for f in scan.files}
    extra = [f for f in kept if f.name not in present]
    return dataclasses.replace(scan, files=[*scan.files, *extra]) if extra else scan


def team_view(scan: FolderScan, d: Decisions) -> TeamView:
    view = TeamView(reachable=scan.reachable, arriving=scan.arriving, links=list(scan.links))
    if not scan.reachable:
        return view
    c = _context(scan, d, view)
    groups: dict[tuple[str, str], list[SharedFile]] = {}
    for file in scan.of("tools"):
        if file.verdict == "changed":
            view.tools.append(TeamTool("changed", file, file.tool, "", ""))
            continue
        if not file.tool:
            continue  # not one valid tool: nothing to offer or count (a stray file)
        # An unsigned file has no author to group its versions by: each is its own.
        group = (file.key, file.tool) if file.key else (f"unsigned:{file.digest}", file.tool)
        groups.setdefault(group, []).append(file)
    for (_group, name), files in sorted(groups.items(), key=lambda g: (g[0][1], g[0][0])):
        item = _judge(c, view, name, files)
        view.tools.append(item)
        here = item.installed
        if here is not None and item.state == "withdrawn" and here.held != "withdrawn":
            view.withdraw.append(item)
        if here is not None and item.state == "turned_off" and here.held != "team_off":
            view.turn_off.append(item)
    off_installed = {
        (t.key, t.installed.shared_as)
        for t in view.tools
        if t.state == "turned_off" and t.installed
    }
    # Back on only by the lead's word: not because the tool's file left the folder.
    view.turn_back = [
        i
        for i in d.installed
        if i.held == "team_off"
        and (i.key, i.shared_as) not in off_installed
        and (i.key, i.shared_as) not in c.off
        and not (i.does and i.does in c.off_steps)
    ]
    # A key the lead revoked stops every tool it signed, whenever it was accepted; one the lead
    # no longer revokes comes back for the person to review.
    view.revoke_here = [i for i in d.keyed if i.key in c.lead_revoked and i.held != "key_revoked"]
    view.unrevoke_here = [
        i for i in d.keyed if i.held == "key_revoked" and i.key not in c.lead_revoked
    ]
    names = {**c.trusted, **{k: d.my_name or "You" for k in c.me}}
    if c.policy is not None and view.chain:
        names.setdefault(view.chain[-1], c.policy.author)
    now = d.now or time.time()
    view.freshness = freshness(scan, d.lead, set(view.rules.leads), c.me, c.policy, names, now)
    signers = Signers(
        # Who each key belonged to, a revoked one too (its owner is named, as its owner's
        # old key, not trusted for what it signs now).
        names={**d.trusted, **{k: v[1] for k, v in view.vouched.items()}, **c.trusted},
        me=frozenset(c.me),
        lead_revoked=c.lead_revoked,
        handed=dict(view.handed),
        contested=dict(view.contested),
        leads=frozenset(view.chain),
    )
    view.audit = history(scan, signers, replaced_at(scan, c.lead_revoked, view.chain))
    return view


def _installed(c: _Context, latest: SharedFile, name: str) -> Installed | None:
    if not latest.key:
        # An unsigned file is this person's only as that very file (anyone can use a name).
        return c.by_version.get(latest.digest)
    return c.by_team_name.get((latest.key, name)) or c.by_team_name.get(
        (c.same_person.get(latest.key, ""), name)
    )


def _judge(c: _Context, view: TeamView, name: str, files: list[SharedFile]) -> TeamTool:
    """One shared tool's latest version, and what it is for this person."""
    latest = _latest(files)
    key = latest.key
    here = _installed(c, latest, name)
    is_trusted = bool(key) and key in c.trusted
    shown = c.trusted.get(key, latest.author) if key else ""
    looks_key = names.same_as_any(latest.author, {k: v for k, v in c.known.items() if k != key})
    if key and c.same_person.get(key) and looks_key == c.same_person.get(key):
        looks_key = ""
    other_names: tuple[str, ...] = ()
    other_count = 0
    looks = c.by_key_names.get(key) if key and not is_trusted else None
    if looks is not None:
        other_names, other_count = looks.others(latest.author, OTHER_NAMES_SHOWN)
    # The newest version known: seen here before, or accepted by someone this person trusts
    # (a newcomer then never takes an older one for the newest, either).
    seen_version = (
        max(c.d.seen.get((key, name), 0), c.reviewed_versions.get((key, name), 0)) if key else 0
    )
    if key and latest.version > c.d.seen.get((key, name), 0):
        view.seen[(key, name)] = (latest.version, latest.digest)
    state = _state(c, latest, files, name, here, is_trusted, seen_version)
    return TeamTool(
        state=state,
        file=latest,
        tool=name,
        author=shown,
        key=key,
        trusted=is_trusted,
        named_in_file=latest.author if key and latest.author != shown else "",
        impostor_of=key_id(looks_key) if looks_key and not is_trusted else "",
        looks_like=c.known.get(looks_key, "") if looks_key and not is_trusted else "",
        other_names=other_names,
        other_count=other_count,
        installed=here,
        usage=c.usage.get((key, name), TeamUsage()) if key else TeamUsage(),
        have_as=c.d.have.get(latest.definition, "") if here is None else "",
        newer_seen=seen_version if state == "older" else 0,
        vouched_by=view.vouched[key][0] if key in view.vouched else "",
    )


def _state(
    c: _Context,
    latest: SharedFile,
    files: list[SharedFile],
    name: str,
    here: Installed | None,
    is_trusted: bool,
    seen_version: int,
) -> State:
    key, d = latest.key, c.d
    stopped = c.withdrawn.get((key, name)) if key else None
    if stopped is not None and when(stopped) >= when(latest.created):
        return "withdrawn"  # this person's own too, once they withdrew it
    if (
        (key and (key, name) in c.off)
        or (latest.steps and latest.steps in c.off_steps)
        or (latest.does and latest.does in c.off_steps)
    ):
        return "turned_off"  # what it does, under another name or wording, is the same tool
    if key and key in c.lead_revoked:
        return "lead_revoked"  # accepted before or not: the key counts for nothing now
    if key and key in c.me:
        return "mine"
    if key and key in c.disputed and here is None:
        return "disputed"
    if key and key in c.revoked and here is None:
        return "revoked"
    if key and latest.version < seen_version:
        return "older"
    if here is not None:
        newer = (
            here.version != latest.digest
            and latest.digest not in d.accepted
            and (latest.version, when(latest.created)) > _installed_order(here, files)
        )
        return "update" if newer and is_trusted else "current"
    if latest.digest in d.declined or latest.digest in d.accepted:
        # Turned down, or accepted once and removed from the library since: not new.
        return "declined"
    if c.publishers is not None and key not in c.publishers:
        return "not_allowed"
    if (
        c.policy is not None
        and c.policy.secondReview
        and key
        and not _second_review_done(latest, c.reviewed, d.mine, c.reviewers, c.person_of)
    ):
        return "awaiting_review"
    if d.have.get(latest.definition):
        return "current"
    if not key:
        return "unsigned"
    return "new" if is_trusted else "untrusted"


def _first_keys(vouched: dict[str, tuple[str, str]]) -> dict[str, str]:
    """Each vouched key -> the earliest key of the same person (a chain of hand-overs)."""
    out: dict[str, str] = {}
    for new in vouched:
        first, seen = new, {new}
        while first in vouched and vouched[first][0] not in seen:
            first = vouched[first][0]
            seen.add(first)
        out[new] = first
    return out


def _reviewed_versions(scan: FolderScan, counted: set[str]) -> dict[tuple[str, str], int]:
    """(author key, tool) -> the highest version someone this person trusts accepted. A
    review counts only for a version that exists: the tool file it names, signed by that
    author, with that number (a review cannot make up "version 1000000000")."""
    versions = {
        f.digest: (f.key, f.tool, f.version) for f in scan.of("tools") if f.verdict == "signed"
    }
    out: dict[tuple[str, str], int] = {}
    for file in _signed(scan, "reviews"):
        info = file.info
        if not isinstance(info, Review) or file.key not in counted:
            continue
        named = versions.get(info.file) or _carried(info)
        if named is None or named[:2] != (info.sharedBy, info.tool) or not named[2]:
            continue
        pair = (info.sharedBy, info.tool)
        out[pair] = max(out.get(pair, 0), named[2])
    return out


@functools.lru_cache(maxsize=4096)
def _carried_file(file: str, shared: str) -> tuple[str, str, int] | None:
    data = shared.encode("utf-8")
    if content_name(data, "tools").split(".", 1)[0] != file:
        return None
    found = read_file("tools", content_name(data, "tools"), data)
    return (found.key, found.tool, found.version) if found.verdict == "signed" else None


def _carried(review: Review) -> tuple[str, str, int] | None:
    """The version a review carries with it (the reviewed file's signed bytes), checked: its
    author's signature, and the very file the review names. None when it carries none."""
    return _carried_file(review.file, review.shared) if review.shared else None


def _installed_order(here: Installed, files: list[SharedFile]) -> tuple[int, object]:
    mine = next((f for f in files if f.digest == here.version), None)
    return (mine.version if mine else 0, when(here.created))


def _second_review_done(
    file: SharedFile,
    reviewed: dict[str, set[str]],
    mine: str,
    reviewers: set[str],
    person_of: dict[str, str],
) -> bool:
    """Someone other than its author (and none of the author's other keys) accepted this
    version, or this person may review it."""
    author = person_of.get(file.key, file.key)
    if {k for k in reviewed.get(file.digest, set()) if person_of.get(k, k) != author}:
        return True
    return bool(mine) and mine in reviewers and person_of.get(mine, mine) != author
