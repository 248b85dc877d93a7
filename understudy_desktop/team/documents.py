"""The documents of the team folder besides packs: a withdrawal, a person's usage counts, a
review (a member accepted a shared version), a key hand-over (an author's new key, vouched for
by their earlier one) and the team lead's policy. Typed with pydantic; a file that does not fit
is ignored, never half-read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from understudy_desktop.rules import rules

_LIMITS = rules().limits
AUTHOR = _LIMITS.authorName  # a person's name as their colleagues see it
HEX_KEY = r"^[0-9a-f]{64}$"


def now_iso() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


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
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


class KeyHandover(BaseModel):
    """An author moves to a new key (a new computer, a key thought lost): signed by the old
    key, so whoever trusts the old one trusts the new one under the same name, unwarned."""

    model_config = ConfigDict(extra="forbid")

    handoverVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=AUTHOR)
    created: str = Field(max_length=_LIMITS.timestamp)
    newKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815 (the old key, which signs)
    signature: str


class TurnedOff(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sharedBy: str = Field(pattern=HEX_KEY)  # noqa: N815
    tool: str = Field(min_length=1, max_length=_LIMITS.shownText)


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
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


def review_document(
    author: str, tool: str, shared_by: str, file: str, version: int = 0
) -> dict[str, Any]:
    return {
        "reviewVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "tool": tool,
        "sharedBy": shared_by,
        "file": file,
        "version": version,
    }


def handover_document(author: str, new_key: str) -> dict[str, Any]:
    return {
        "handoverVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "newKey": new_key,
    }


def policy_document(
    author: str,
    sequence: int,
    publishers: list[str] | None,
    second_review: bool,
    turned_off: list[tuple[str, str]],
) -> dict[str, Any]:
    document: dict[str, Any] = {
        "policyVersion": 1,
        "author": author[:AUTHOR],
        "created": now_iso(),
        "sequence": sequence,
        "secondReview": second_review,
        "turnedOff": [{"sharedBy": k, "tool": t} for k, t in turned_off],
    }
    if publishers is not None:
        document["publishers"] = sorted(set(publishers))
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
