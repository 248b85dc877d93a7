"""The lead's side of freshness (team/freshness.py has the member's): what the lead's app
confirms, and when it signs a new confirmation. Pure, so the schedule can be tested with a
clock of the test's own.

A confirmation names the rules in force and every rules file, withdrawal and key hand-over
the lead's app holds from someone who counts: the lead, anyone the lead trusts, and anyone
who shared a signed tool into the folder (so a colleague's withdrawal the lead never
reviewed is named too). Throwaway keys that shared nothing are left out, so a flood of
their files cannot make every confirmation huge. A new one is signed when what it would
name changes, and otherwise once a renewDivisor-th of its lifetime has passed, so members
see a fresh one long before the last runs out."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from understudy_desktop.rules import rules
from understudy_desktop.team.documents import Confirmation, Policy, when
from understudy_desktop.team.folder import FolderScan, SharedFile
from understudy_desktop.team.freshness import NAMED_KINDS, confirmations

_FRESH = rules().teamFreshness


@dataclass(frozen=True)
class Wanted:
    """What the lead's next confirmation says."""

    rules: str  # the digest of the rules file in force ('' none)
    rules_sequence: int
    named: tuple[str, ...]  # sorted digests
    lifetime_s: int


def wanted(
    scan: FolderScan, policy: Policy | None, policies: list[SharedFile], counted: set[str]
) -> Wanted:
    """The confirmation the lead's app would sign now, from the folder and what it kept."""
    authors = {f.key for f in scan.files if f.kind == "tools" and f.verdict == "signed" and f.key}
    keys = counted | authors
    files = [
        f
        for f in scan.files
        if f.kind in NAMED_KINDS and f.verdict == "signed" and f.key in keys and f.info is not None
    ]
    # Rules and hand-overs first, then the newest withdrawals, if ever there are more than
    # one confirmation may name.
    files.sort(key=lambda f: (f.kind == "withdrawn", -when(f.created).timestamp(), f.name))
    named = tuple(sorted({f.digest for f in files[: _FRESH.namedMost]}))
    in_force = next(
        (f for f in policies if policy is not None and f.info is policy),
        None,
    )
    return Wanted(
        rules=in_force.digest if in_force is not None else "",
        rules_sequence=policy.sequence if policy is not None else 0,
        named=named,
        lifetime_s=_FRESH.lifetime(policy.confirmFor if policy is not None else None),
    )


def newest_own(scan: FolderScan, mine: set[str]) -> SharedFile | None:
    found = confirmations(scan, mine)
    return found[0] if found else None


def due(newest: SharedFile | None, want: Wanted, now: float) -> bool:
    """Should the lead's app sign a new confirmation now?"""
    if newest is None or not isinstance(newest.info, Confirmation):
        return True
    info = newest.info
    if (info.rules, tuple(sorted(info.named))) != (want.rules, want.named):
        return True
    signed = when(info.created).timestamp()
    lasts = when(info.expires).timestamp() - signed
    if abs(lasts - want.lifetime_s) > 1:
        return True  # the lead chose another lifetime since
    return now - signed >= want.lifetime_s / _FRESH.renewDivisor


def next_due_s(newest: SharedFile | None, want: Wanted, now: float) -> float:
    """Seconds until the schedule asks for a new confirmation (0: now)."""
    if newest is None or not isinstance(newest.info, Confirmation):
        return 0.0
    signed = when(newest.info.created).timestamp()
    return max(0.0, signed + want.lifetime_s / _FRESH.renewDivisor - now)


def outdated_own(scan: FolderScan, mine: set[str]) -> list[SharedFile]:
    """This person's confirmations beyond the newest keptPerSigner: removed from the folder
    (a confirmation an app kept is replaced by a newer one, never brought back)."""
    return confirmations(scan, mine)[_FRESH.keptPerSigner :]


def moment(now: float) -> datetime:
    return datetime.fromtimestamp(now, UTC)
