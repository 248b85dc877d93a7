"""The rules the page and the shell share (budgets, names, the schema lint's keywords, the cap,
the approval hold), read from web_assets/data/rules.json: one file, so the two sides cannot
drift apart. The page imports the same file."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict

from understudy_desktop.paths import web_assets_dir


class Budgets(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: int
    description: int
    paramDescription: int  # noqa: N815 (the file's own key)
    output: int
    title: int
    paramName: int  # noqa: N815


class Limits(BaseModel):
    """How much a file or a request may hold (rules.json, limits)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    shownText: int  # noqa: N815 (the file's own keys)
    longText: int  # noqa: N815
    commandId: int  # noqa: N815
    stepFields: int  # noqa: N815
    toolSteps: int  # noqa: N815
    recordingSteps: int  # noqa: N815
    authorName: int  # noqa: N815
    personName: int  # noqa: N815
    packCommands: int  # noqa: N815
    appName: int  # noqa: N815
    appVersion: int  # noqa: N815
    timestamp: int
    teamVersion: int  # noqa: N815
    ticketBody: int  # noqa: N815 (characters of a helpdesk ticket's text kept here)
    selectionTickets: int  # noqa: N815 (tickets one run on the person's selection may take)


def identifier(budget: int) -> re.Pattern[str]:
    """1 to `budget` lower-case letters, digits or _, starting with a letter: the one shape of
    a tool's, a question's and a command's name (js/teach/compile.js derives the same)."""
    return re.compile(f"^[a-z][a-z0-9_]{{0,{budget - 1}}}$")


class SchemaLintRules(BaseModel):
    model_config = ConfigDict(frozen=True)

    dialect: str
    forbidden: tuple[str, ...]
    keywords: frozenset[str]
    subschemaKeywords: tuple[str, ...]  # noqa: N815


class ListedSchemaOmits(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    keywords: tuple[str, ...]


class PageAsks(BaseModel):
    """How much the console page may ask of the shell (rules.json, pageAsks)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    perSecond: float  # noqa: N815 (the file's own keys)
    burst: float
    bytesPerSecond: float  # noqa: N815
    burstBytes: float  # noqa: N815
    waiting: int
    messageBytes: int  # noqa: N815


class TeamFreshness(BaseModel):
    """How long the team lead's confirmation of the rules lasts (rules.json, teamFreshness)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    defaultSeconds: int  # noqa: N815 (the file's own keys)
    minSeconds: int  # noqa: N815
    maxSeconds: int  # noqa: N815
    renewDivisor: int  # noqa: N815
    arrivalGraceSeconds: float  # noqa: N815
    keptPerSigner: int  # noqa: N815
    namedMost: int  # noqa: N815

    def lifetime(self, chosen: int | None) -> int:
        """How long a confirmation lasts: the lead's choice within the bounds, else the
        default."""
        if chosen is None:
            return self.defaultSeconds
        return max(self.minSeconds, min(self.maxSeconds, chosen))


class Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    budgets: Budgets
    limits: Limits
    pageAsks: PageAsks  # noqa: N815
    reservedPrefix: str  # noqa: N815
    maxTaughtTools: int  # noqa: N815
    approvalHoldSeconds: float  # noqa: N815
    consentTtlSeconds: float  # noqa: N815
    teamFreshness: TeamFreshness  # noqa: N815
    schemaLint: SchemaLintRules  # noqa: N815
    listedSchemaOmits: ListedSchemaOmits  # noqa: N815

    @property
    def tool_name(self) -> re.Pattern[str]:
        return identifier(self.budgets.name)

    @property
    def param_name(self) -> re.Pattern[str]:
        return identifier(self.budgets.paramName)

    @property
    def command_id(self) -> re.Pattern[str]:
        return identifier(self.limits.commandId)


def listed_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A taught tool's schema as agents read it: without the keywords that only narrow what
    is accepted (rules.json, listedSchemaOmits). Calls are checked against the whole schema.
    The page applies the same rule (js/teach/listing.js)."""
    omit = set(rules().listedSchemaOmits.keywords)

    def lean(node: Any) -> Any:
        if not isinstance(node, dict):
            return node
        out = {k: v for k, v in node.items() if k not in omit}
        if isinstance(out.get("properties"), dict):
            out["properties"] = {k: lean(v) for k, v in out["properties"].items()}
        if "items" in out:
            out["items"] = lean(out["items"])
        return out

    result: dict[str, Any] = lean(schema)
    return result


@cache
def rules() -> Rules:
    path = web_assets_dir() / "data" / "rules.json"
    return Rules.model_validate(json.loads(path.read_text(encoding="utf-8")))
