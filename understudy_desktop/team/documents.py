"""The documents of the team folder besides packs: a withdrawal and a person's usage counts.
Typed with pydantic; a file that does not fit is ignored, never half-read."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

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
    author: str = Field(max_length=120)
    created: str = Field(max_length=40)
    tool: str = Field(min_length=1, max_length=200)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


class ToolCounts(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sharedBy: str = Field(pattern=HEX_KEY)  # noqa: N815 (the tool's author's key)
    tool: str = Field(min_length=1, max_length=200)
    runs: int = Field(ge=0, le=10**9)
    failures: int = Field(ge=0, le=10**9)
    lastUsed: str = Field(default="", max_length=10)  # noqa: N815 (a day: YYYY-MM-DD)


class UsageCounts(BaseModel):
    """One person's counts for team tools: numbers and days only, never ticket data."""

    model_config = ConfigDict(extra="forbid")

    usageVersion: Literal[1]  # noqa: N815
    author: str = Field(max_length=120)
    created: str = Field(max_length=40)
    tools: list[ToolCounts] = Field(max_length=500)
    authorKey: str = Field(pattern=HEX_KEY)  # noqa: N815
    signature: str


def withdrawal_document(author: str, tool: str) -> dict[str, Any]:
    return {"withdrawalVersion": 1, "author": author[:120], "created": now_iso(), "tool": tool}


def usage_document(author: str, counts: list[dict[str, Any]]) -> dict[str, Any]:
    return {"usageVersion": 1, "author": author[:120], "created": now_iso(), "tools": counts}


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
