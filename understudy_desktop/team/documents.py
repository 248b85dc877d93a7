"""The documents of the team folder besides packs: a withdrawal, a person's usage counts, a
review (a member accepted a shared version), a key hand-over (an author's new key, vouched for
by their earlier one) and the team lead's policy. Typed with pydantic; a file that does not fit
is ignored, never half-read."""

from __future__ import annotations

import contextlib
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any, Literal

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from understudy_desktop.rules import rules
from understudy_desktop.team.signing import canonical

_LIMITS = rules().limits
_FRESHNESS = rules().teamFreshness
AUTHOR = _LIMITS.authorName  # a person's name as their colleagues see it
HEX_KEY = r"^[0-9a-f]{64}$"
HexKey = Annotated[str, Field(pattern=HEX_KEY)]
SHARED_IN_REVIEW = 64 * 1024  # a one-tool pack is a few KB


def iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def now_iso() -> str:
    return iso(datetime.now(UTC))


def when(iso: str) -> datetime:
    """The moment an ISO time names; the distant past when it names none (sorts first)."""
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return datetime.min.replace(tzinfo=UTC)
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


class Withdrawal(BaseModel):
    """The author of a shared tool takes it back: every version shared before `created`."""

    model_config = ConfigDict(extra="forbid")

    withdrawalVersion: Literal[1]  # noqa: N815 (the file's own key)
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    tool: str = Field(min_length=1, max_length=_LIMITS.shownText)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


class ToolCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sharedBy: str = Field(pattern=HEX_KEY)  # noqa: N815 (the tool's author's key)
    tool: str = Field(min_length=1, max_length=_LIMITS.shownText)
    runs: int = Field(ge=0, le=10**9)
    failures: int = Field(ge=0, le=10**9)
    lastUsed: str = Field(default="", max_length=10)  # noqa: N815 (a day: YYYY-MM-DD)


class UsageCounts(BaseModel):
    """One person's counts for team tools: numbers and days only, never ticket data."""

    model_config = ConfigDict(extra="forbid")

    usageVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    tools: list[ToolCounts] = Field(max_length=500)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


def withdrawal_document(author: str, tool: str) -> dict[str, Any]:
    return {"withdrawalVersion": 1, "author": author[:AUTHOR], "created": now_iso(), "tool": tool}


def usage_document(author: str, counts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"usageVersion": 1, "author": author[:AUTHOR], "created": now_iso(), "tools": counts}


def as_withdrawal(document: dict[str, Any] | None) -> Withdrawal | None:
    try:
        return Withdrawal.model_validate(document)
    except ValidationError:
        return None


def as_usage(document: dict[str, Any] | None) -> UsageCounts | None:
    try:
        return UsageCounts.model_validate(document)
    except ValidationError:
        return None


class Review(BaseModel):
    """A member accepted one shared version of a tool after looking at it: the audit's
    "accepted", and the second review a team policy may ask for."""

    model_config = ConfigDict(extra="forbid")

    reviewVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    tool: str = Field(min_length=1, max_length=_LIMITS.shownText)
    sharedBy: str = Field(pattern=HEX_KEY)  # noqa: N815 (the tool's author's key)
    file: str = Field(pattern=r"^[0-9a-f]{64}$")  # the version reviewed: its file's digest
    version: int = Field(default=0, ge=0, le=10**9)  # and its number (0: none)
    # The reviewed file itself (its author's signed bytes, as text): the version it names can
    # be checked even once that file is gone from the folder. Absent from older reviews.
    shared: str | None = Field(default=None, max_length=SHARED_IN_REVIEW)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


class KeyHandover(BaseModel):
    """An author moves to a new key (a new computer, a key that may have been copied): signed
    by the old key, and countersigned by the new one (`newKeySignature` over
    handover_statement), so nobody can hand their key over to someone else's. Whoever trusts
    the old key trusts the new one under the same name, unwarned; the old key is revoked."""

    model_config = ConfigDict(extra="forbid")

    handoverVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    newKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    newKeySignature: str = Field(default="", pattern=r"^([0-9a-f]{128})?$")  # noqa: N815
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815 (the old key, which signs)
    signature: str


def handover_statement(old_key: str, new_key: str) -> bytes:
    """What the new key signs to accept a hand-over: the two keys, in order."""
    return canonical({"understudyHandover": 1, "from": old_key, "to": new_key})


def countersigned(handover: KeyHandover) -> bool:
    """Did the new key itself agree to take this hand-over?"""
    try:
        public = Ed25519PublicKey.from_public_bytes(bytes.fromhex(handover.newKey))
        public.verify(
            bytes.fromhex(handover.newKeySignature),
            handover_statement(handover.authorKey, handover.newKey),
        )
    except (ValueError, InvalidSignature):
        return False
    return True


class TurnedOff(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sharedBy: str = Field(pattern=HEX_KEY)  # noqa: N815
    tool: str = Field(min_length=1, max_length=_LIMITS.shownText)
    # What its steps and questions hash to: the same steps under another name stay off too.
    steps: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")


class Policy(BaseModel):
    """The team lead's rules for the folder, signed by the lead's key; each member chooses
    once to follow that key. The highest `sequence` the lead signed is the one in force."""

    model_config = ConfigDict(extra="forbid")

    policyVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    sequence: int = Field(ge=1, le=10**9)
    # Who may publish to the team (keys); None: anyone.
    publishers: list[str] | None = Field(default=None, max_length=500)
    # A second member must accept a version before the rest of the team is offered it.
    secondReview: bool = False  # noqa: N815
    turnedOff: list[TurnedOff] = Field(default_factory=list, max_length=2000)  # noqa: N815
    # Keys the lead revoked (a member's key that was copied, a member who left): they sign,
    # vouch and count for nothing, for every member who follows this lead.
    revokedKeys: list[HexKey] = Field(default_factory=list, max_length=2000)  # noqa: N815
    # How long each of the lead's confirmations lasts (seconds; None: rules.json's default),
    # and what members' apps do with team tools once none is in force: keep them running
    # with a warning, or pause them until the rules are confirmed again.
    confirmFor: int | None = Field(default=None, ge=1, le=10**9)  # noqa: N815
    whenUnconfirmed: Literal["keep", "pause"] = "keep"  # noqa: N815
    # Other leads (team/leads.py): their confirmations count too, and a new version of the
    # rules is in force once `threshold` of the leads (this one included) signed it.
    coLeads: list[HexKey] = Field(default_factory=list, max_length=20)  # noqa: N815
    threshold: int = Field(default=1, ge=1, le=21)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


class Confirmation(BaseModel):
    """TUF's timestamp and snapshot roles in one small document. The lead's app signs it on a
    schedule and whenever what it names changes: the rules in force (by their file), and every
    rules file, withdrawal and key hand-over it counts. A member whose newest confirmation has
    expired, or names a file their copy of the folder does not have, learns that something
    may be keeping the lead's word from them (a frozen or filtered copy of the folder)."""

    model_config = ConfigDict(extra="forbid")

    confirmationVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    expires: str = Field(max_length=_LIMITS.timestamp)
    # One more than the signer's last: the newest is the highest, whatever the dates say, and
    # an app never goes back to a lower one it saw replaced (TUF's version).
    sequence: int = Field(ge=1, le=10**12)
    rules: str = Field(default="", pattern=r"^([0-9a-f]{64})?$")  # the rules file in force
    rulesSequence: int = Field(default=0, ge=0, le=10**9)  # noqa: N815
    named: list[Annotated[str, Field(pattern=r"^[0-9a-f]{64}$")]] = Field(
        default_factory=list, max_length=_FRESHNESS.namedMost
    )
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


def confirmation_document(
    author: str,
    sequence: int,
    lifetime_s: int,
    rules_file: str,
    rules_sequence: int,
    named: list[str],
    now: datetime | None = None,
) -> dict[str, Any]:
    moment = now or datetime.now(UTC)
    return {
        "confirmationVersion": 1,
        "author": author[:AUTHOR],
        "created": iso(moment),
        "expires": iso(moment + timedelta(seconds=lifetime_s)),
        "sequence": sequence,
        "rules": rules_file,
        "rulesSequence": rules_sequence,
        "named": sorted(set(named))[: _FRESHNESS.namedMost],
    }


def as_confirmation(document: dict[str, Any] | None) -> Confirmation | None:
    found: Confirmation | None = _typed(Confirmation, document)
    return found


def review_document(
    author: str,
    tool: str,
    shared_by: str,
    file: str,
    version: int = 0,
    shared: bytes | None = None,
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "reviewVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "tool": tool,
        "sharedBy": shared_by,
        "file": file,
        "version": version,
    }
    if shared is not None and len(shared) <= SHARED_IN_REVIEW:
        # A signed file is canonical JSON, so UTF-8: one that is not is no such file.
        with contextlib.suppress(UnicodeDecodeError):
            document["shared"] = shared.decode("utf-8")
    return document


def handover_document(author: str, old_key: str, new_key: Ed25519PrivateKey) -> dict[str, Any]:
    """A hand-over from `old_key` (which signs the document) to `new_key`, countersigned."""
    new_public = new_key.public_key().public_bytes_raw().hex()
    return {
        "handoverVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "newKey": new_public,
        "newKeySignature": new_key.sign(handover_statement(old_key, new_public)).hex(),
    }


def policy_document(
    author: str,
    sequence: int,
    publishers: list[str] | None,
    second_review: bool,
    turned_off: list[tuple[str, str]] | list[tuple[str, str, str]],
    revoked_keys: list[str] | None = None,
    confirm_for: int | None = None,
    when_unconfirmed: str = "keep",
    co_leads: list[str] | None = None,
    threshold: int = 1,
) -> dict[str, Any]:
    off: list[dict[str, str]] = []
    for entry in turned_off:
        item = {"sharedBy": entry[0], "tool": entry[1]}
        if len(entry) > 2 and entry[2]:
            item["steps"] = entry[2]
        off.append(item)
    document: dict[str, Any] = {
        "policyVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "sequence": sequence,
        "secondReview": second_review,
        "turnedOff": off,
    }
    if revoked_keys:
        document["revokedKeys"] = sorted(set(revoked_keys))
    if publishers is not None:
        document["publishers"] = sorted(set(publishers))
    if confirm_for is not None:
        document["confirmFor"] = confirm_for
    if when_unconfirmed != "keep":
        document["whenUnconfirmed"] = when_unconfirmed
    if co_leads:
        document["coLeads"] = sorted(set(co_leads))
    if threshold != 1:
        document["threshold"] = threshold
    return document


def _typed(model: type[BaseModel], document: dict[str, Any] | None) -> Any:
    try:
        return model.model_validate(document)
    except ValidationError:
        return None


def as_review(document: dict[str, Any] | None) -> Review | None:
    found: Review | None = _typed(Review, document)
    return found


def as_handover(document: dict[str, Any] | None) -> KeyHandover | None:
    found: KeyHandover | None = _typed(KeyHandover, document)
    return found


def as_policy(document: dict[str, Any] | None) -> Policy | None:
    found: Policy | None = _typed(Policy, document)
    return found
