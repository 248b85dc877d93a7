"""Is the team lead's word reaching this computer? TUF's timestamp and snapshot roles, for a
folder that a sync service carries and that any member can filter.

Remembering what was seen (team/trust.py) stops a rule from being undone, but cannot tell a
member what they have *not* seen: a copy of the folder that stops receiving the lead's new
rules and withdrawals (two ignore lines on a peer in between) looks exactly like a quiet
week. So the lead's app signs a confirmation on a schedule and whenever what it names
changes (team/confirming.py): it expires, and it names the rules in force and every rules
file, withdrawal and key hand-over the lead counts. Here, a member whose newest confirmation
has expired, or names a file that has not reached them within the time a sync service may
take, is told so, and the lead's rules say what team tools do meanwhile.

Pure: computed from the folder (with what this app kept) and a clock, so tests feed it both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Literal

from understudy_desktop.rules import rules
from understudy_desktop.team.documents import Confirmation, Policy, when
from understudy_desktop.team.folder import FolderScan, SharedFile

State = Literal[
    "no_lead",  # this person follows no team lead: nothing to confirm
    "lead",  # this person is the lead: their own app confirms
    "pending",  # the lead's first files arrived a moment ago; a confirmation may follow
    "fresh",  # confirmed, in time, and every file it names is here
    "never",  # following a lead, but no confirmation of theirs has ever reached this app
    "expired",  # the newest confirmation has run out
    "missing",  # the newest confirmation names files that have not reached this copy
]
STALE: frozenset[State] = frozenset({"never", "expired", "missing"})
_FRESH = rules().teamFreshness
NAMED_KINDS = ("policy", "withdrawn", "keys")  # what a confirmation names (its snapshot)


@dataclass(frozen=True)
class Freshness:
    state: State
    by: str = ""  # the lead's name, as this person knows their key
    key: str = ""  # the key that signed the newest confirmation
    confirmed_at: str = ""  # when that confirmation was signed (ISO 8601)
    expires: str = ""  # when it runs out
    missing_rules: bool = False  # it names rules that have not reached this copy
    missing_other: int = 0  # and this many withdrawals or hand-overs
    pause: bool = False  # the lead's rules pause team tools while it is not fresh
    file: str = ""  # the newest confirmation's file name

    @property
    def stale(self) -> bool:
        return self.state in STALE

    @property
    def paused(self) -> bool:
        """Team tools do not run now: the lead asked for that while their word is unproven."""
        return self.stale and self.pause


def confirmations(scan: FolderScan, signers: set[str]) -> list[SharedFile]:
    """The signed confirmations of these keys, newest first."""
    found = [
        f
        for f in scan.files
        if f.kind == "confirmed"
        and f.verdict == "signed"
        and isinstance(f.info, Confirmation)
        and f.key == f.info.authorKey
        and f.key in signers
    ]
    found.sort(key=lambda f: (f.info.sequence, when(f.created), f.name), reverse=True)
    return found


def newest_by_signer(files: list[SharedFile]) -> dict[str, SharedFile]:
    """Each signer's confirmation with the highest number (files come newest first)."""
    out: dict[str, SharedFile] = {}
    for file in files:
        out.setdefault(file.key, file)
    return out


def runs_out(info: Confirmation) -> datetime:
    """When a confirmation stops counting: what it says, and never later than the longest a
    lead may choose after it was signed (a key that signs "until 2999" proves nothing)."""
    return min(when(info.expires), when(info.created) + timedelta(seconds=_FRESH.maxSeconds))


def freshness(
    scan: FolderScan,
    following: str,
    leads: set[str],
    me: set[str],
    policy: Policy | None,
    names: dict[str, str],
    now: float,
) -> Freshness:
    """What this app can say of the lead's word now. `following` is the key this person chose
    to follow ('' none); `leads` the keys whose confirmations count (the lead's key now); `me`
    this person's keys; `names` how this person knows each key."""
    if not following:
        return Freshness("no_lead")
    if leads & me:
        return Freshness("lead")
    pause = policy is not None and policy.whenUnconfirmed == "pause"
    newest = newest_by_signer(confirmations(scan, leads))
    if not newest:
        # Nothing confirmed yet: a moment's grace after the lead's first files arrived (their
        # confirmation is on its way), then the same warning as for a confirmation run out.
        heard = [f.seen for f in scan.files if f.key in leads and f.seen]
        if heard and now - min(heard) < _FRESH.arrivalGraceSeconds:
            return Freshness("pending")
        lead = next(iter(sorted(leads)), following)
        return Freshness("never", by=names.get(lead, ""), key=lead, pause=pause)
    present = {f.digest for f in scan.files}
    moment = datetime.fromtimestamp(now, UTC)
    latest = max(newest.values(), key=lambda f: when(f.created))
    live = [f for f in newest.values() if runs_out(f.info) >= moment]
    base = Freshness(
        "fresh",
        by=names.get(latest.key, latest.author),
        key=latest.key,
        confirmed_at=latest.info.created,
        expires=latest.info.expires,
        pause=pause,
        file=latest.name,
    )
    if not live:
        return replace(base, state="expired")
    missing_rules, missing_other = False, 0
    for file in live:
        if now - (file.seen or now) < _FRESH.arrivalGraceSeconds:
            continue  # its files may still be on their way
        info = file.info
        if info.rules and info.rules not in present:
            missing_rules = True
        missing_other += sum(1 for d in info.named if d not in present and d != info.rules)
    if missing_rules or missing_other:
        return replace(
            base, state="missing", missing_rules=missing_rules, missing_other=missing_other
        )
    return base


def until_it_changes(fresh: Freshness, scan: FolderScan | None, now: float) -> float:
    """Seconds until the clock alone may change what this app says: the confirmation in
    force runs out, or a grace ends. Looked at again at the folder's next poll after that."""
    if fresh.state in ("pending", "fresh") and scan is not None:
        ends = [runs_out(f.info).timestamp() for f in confirmations(scan, {fresh.key}) if f.info]
        graces = [f.seen + _FRESH.arrivalGraceSeconds for f in scan.files if f.seen]
        upcoming = [t for t in [*ends, *graces] if t > now]
        return min(upcoming, default=now + 3600.0) - now
    return 3600.0
