"""A taught tool as the shell holds it: the approved definition and its approval in one
record, and its usage counts apart (so a run never touches what was approved)."""

from __future__ import annotations

import copy
import hashlib
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Literal

import rfc8785

from understudy_desktop.definition import Definition, readable
from understudy_desktop.rules import listed_schema

Status = Literal["active", "disabled", "needs_review"]
MadeBy = Literal["person", "agent", "pack", "team"]
HASHED_FIELDS = ("name", "title", "description", "inputSchema", "annotations", "steps")
PUBLIC_FIELDS = ("name", "title", "description", "inputSchema", "annotations")


def definition_hash(definition: dict[str, Any]) -> str:
    """SHA-256 over the RFC 8785 form of what was approved (the page computes the same)."""
    subset = {k: definition[k] for k in HASHED_FIELDS if k in definition}
    canonical: bytes = rfc8785.dumps(subset)
    return hashlib.sha256(canonical).hexdigest()


@dataclass(frozen=True)
class Origin:
    """Where a tool came from, for the library's "Made by" line, and, for a tool accepted from
    the team library, which shared tool and version it is (to offer its updates)."""

    by: MadeBy
    client: str = ""  # the agent that drafted it (MCP clientInfo name)
    pack: str = ""  # the pack file it was imported from
    author: str = ""  # the pack's author
    key: str = ""  # the author's signing key (hex), for a signed pack
    shared_as: str = ""  # its name in the team folder
    version: str = ""  # the digest of the team folder's file it came from
    created: str = ""  # when that version was shared (ISO 8601)

    def as_dict(self) -> dict[str, str]:
        return {
            "by": self.by,
            "client": self.client,
            "pack": self.pack,
            "author": self.author,
            "key": self.key,
            "sharedAs": self.shared_as,
            "version": self.version,
            "created": self.created,
        }

    @staticmethod
    def from_dict(raw: dict[str, Any]) -> Origin:
        by = raw.get("by")
        return Origin(
            by=by if by in ("person", "agent", "pack", "team") else "person",
            client=str(raw.get("client") or ""),
            pack=str(raw.get("pack") or ""),
            author=str(raw.get("author") or ""),
            key=str(raw.get("key") or ""),
            shared_as=str(raw.get("sharedAs") or ""),
            version=str(raw.get("version") or ""),
            created=str(raw.get("created") or ""),
        )


def shown_name(name: str, title: object = "") -> str:
    """What people see a tool called: its title in words, or, for a tool that has none (made
    before titles, or by an agent that gave none), its name with spaces for underscores. The
    name itself is for agents."""
    if isinstance(title, str) and title.strip():
        return " ".join(title.split())
    words = " ".join(name.replace("_", " ").replace("-", " ").split())
    return words[:1].upper() + words[1:] if words else "A tool"


@dataclass(frozen=True)
class TaughtTool:
    name: str  # the identifier agents call it by; people see shown_name
    definition: dict[str, Any]
    digest: str  # the approval: what the person approved hashes to this
    status: Status
    origin: Origin
    created_at: float
    approved_at: float
    ask_every_time: bool = False
    review_reason: str = ""
    note: str = ""
    seal: str = ""  # HMAC of (name, digest) under the user's key: the approval was made here
    # Why the team took it away, for a tool held back: "withdrawn" (its author withdrew it),
    # "team_off" (the team lead turned it off for the team); '' otherwise.
    held: str = ""

    @cached_property
    def parsed(self) -> Definition | None:
        """The definition read with the one Definition model (what a run executes), or None
        if what is stored does not fit it (a damaged or hand-edited row): such a tool is not
        the tool that was approved and does not run."""
        return readable(self.definition)

    @cached_property
    def intact(self) -> bool:
        """The definition still hashes to what was approved, and is a definition at all."""
        return definition_hash(self.definition) == self.digest and self.parsed is not None

    @property
    def callable(self) -> bool:
        return self.status == "active" and self.intact

    @property
    def input_schema(self) -> dict[str, Any]:
        schema = self.definition.get("inputSchema")
        return schema if isinstance(schema, dict) else {"type": "object"}

    @property
    def steps(self) -> list[dict[str, Any]]:
        steps = self.definition.get("steps")
        return steps if isinstance(steps, list) else []

    @property
    def shown_name(self) -> str:
        return shown_name(self.name, self.definition.get("title"))

    def public(self) -> dict[str, Any]:
        """What agents see: name, title, description, input schema, annotations."""
        return {k: copy.deepcopy(self.definition[k]) for k in PUBLIC_FIELDS if k in self.definition}

    def listed(self) -> dict[str, Any]:
        """What agents read in a tool list: public(), with the schema's narrowing keywords
        left out (rules.listed_schema); calls are still checked against the whole schema."""
        out = self.public()
        out["inputSchema"] = listed_schema(self.input_schema)
        return out

    def but(self, **changes: Any) -> TaughtTool:
        return replace(self, **changes)


@dataclass
class Usage:
    runs: int = 0
    successes: int = 0
    last_used: float | None = None
    last_failure: dict[str, Any] | None = field(default=None)

    def as_dict(self) -> dict[str, Any]:
        return {
            "runs": self.runs,
            "successes": self.successes,
            "lastUsed": self.last_used,
            "lastFailure": self.last_failure,
        }
