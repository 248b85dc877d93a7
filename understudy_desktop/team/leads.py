"""Who leads the team, and which rules are in force: TUF's root role, for a folder.

A member follows one key (the lead they chose, by invitation or in Settings). That key's
rules may name other leads (`coLeads`) and how many leads must sign a new version of the
rules (`threshold`). Each lead signs the same rules in a file of their own: the rules are the
same when everything but who signed them, and when, is the same (`body_of`). Versions are
walked up from the first: a version is in force once enough of the leads named by the
version before it signed it (TUF's root rotation: a new root is trusted on the word of the
old one), and then its own leads and threshold decide the next. Confirmations count from any
lead in force, so the team's word stays confirmed while one lead is away.

With no other leads this is what it always was: the highest number the lead's key signed.
Pure, like the inbox that uses it."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from understudy_desktop.team.documents import Policy, when
from understudy_desktop.team.folder import SharedFile
from understudy_desktop.team.signing import canonical

# What differs between two leads' files of the same rules.
_SIGNING_FIELDS = frozenset({"author", "created", "authorKey", "signature"})


def body_of(policy: Policy) -> str:
    """What the rules say, hashed: the same for every lead who signs them."""
    said = policy.model_dump(mode="json", exclude=set(_SIGNING_FIELDS))
    return hashlib.sha256(canonical(said)).hexdigest()


def co_sign_document(policy: Policy, author: str, created: str) -> dict[str, object]:
    """The same rules, for another lead to sign (the same body, their name and time)."""
    said = policy.model_dump(mode="json", exclude=set(_SIGNING_FIELDS))
    return {**said, "author": author, "created": created}


@dataclass(frozen=True)
class Waiting:
    """Newer rules some leads signed, not yet enough of them."""

    policy: Policy
    signed_by: frozenset[str]
    files: tuple[SharedFile, ...]


@dataclass(frozen=True)
class InForce:
    policy: Policy | None = None
    files: tuple[SharedFile, ...] = ()  # each lead's file of the rules in force
    leads: frozenset[str] = frozenset()  # whose confirmations count, who signs what is next
    threshold: int = 1  # how many of them a new version needs
    signed_by: frozenset[str] = frozenset()
    waiting: tuple[Waiting, ...] = ()
    policies: list[SharedFile] = field(
        default_factory=list
    )  # every signed rules file, newest first

    @property
    def file(self) -> SharedFile | None:
        return self.files[0] if self.files else None


def in_force(files: list[SharedFile], chain: list[str]) -> InForce:
    """The rules in force for someone following the lead whose keys are `chain` (oldest
    first; the newest of them that signed any rules is the lead's key now)."""
    signed = [
        f
        for f in files
        if f.kind == "policy"
        and f.verdict == "signed"
        and isinstance(f.info, Policy)
        and f.key == f.info.authorKey
    ]
    signed.sort(key=lambda f: (f.info.sequence, when(f.created), f.name), reverse=True)
    if not chain:
        return InForce(policies=signed)
    signers = {f.key for f in signed}
    root = next((k for k in reversed(chain) if k in signers), chain[-1])
    bodies: dict[str, list[SharedFile]] = {}
    for f in signed:
        bodies.setdefault(body_of(f.info), []).append(f)
    leads, threshold = frozenset({root}), 1
    current: list[SharedFile] = []
    for sequence in sorted({f.info.sequence for f in signed}):
        versions = [b for b in bodies.values() if b[0].info.sequence == sequence]
        for version in sorted(versions, key=lambda b: body_of(b[0].info)):
            by = {f.key for f in version} & leads
            if len(by) >= threshold:
                current = [f for f in version if f.key in leads]
                policy: Policy = version[0].info
                leads = frozenset({root, *policy.coLeads})
                threshold = max(1, min(policy.threshold, len(leads)))
                break
    if not current:
        return InForce(leads=leads, waiting=_waiting(bodies, leads, 0), policies=signed)
    policy = current[0].info
    current.sort(key=lambda f: (f.key != root, f.name))
    return InForce(
        policy=policy,
        files=tuple(current),
        leads=leads,
        threshold=threshold,
        signed_by=frozenset(f.key for f in current),
        waiting=_waiting(bodies, leads, policy.sequence),
        policies=signed,
    )


def _waiting(
    bodies: dict[str, list[SharedFile]], leads: frozenset[str], above: int
) -> tuple[Waiting, ...]:
    """Newer rules signed by a lead, which are not in force yet (not enough leads signed)."""
    out = []
    for version in bodies.values():
        by = frozenset(f.key for f in version) & leads
        if version[0].info.sequence > above and by:
            out.append(Waiting(version[0].info, by, tuple(f for f in version if f.key in by)))
    out.sort(key=lambda w: w.policy.sequence)
    return tuple(out)
