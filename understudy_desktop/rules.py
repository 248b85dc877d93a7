"""The rules the page and the shell share (budgets, names, the schema lint's keywords, the cap,
the approval hold), read from web_assets/data/rules.json: one file, so the two sides cannot
drift apart. The page imports the same file."""

from __future__ import annotations

import json
import re
from functools import cache

from pydantic import BaseModel, ConfigDict

from understudy_desktop.paths import web_assets_dir


class Budgets(BaseModel):
    model_config = ConfigDict(frozen=True)

    name: int
    description: int
    paramDescription: int  # noqa: N815 (the file's own key)
    output: int
    title: int


class SchemaLintRules(BaseModel):
    model_config = ConfigDict(frozen=True)

    dialect: str
    forbidden: tuple[str, ...]
    keywords: frozenset[str]
    subschemaKeywords: tuple[str, ...]  # noqa: N815


class Rules(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    budgets: Budgets
    toolName: str  # noqa: N815
    paramName: str  # noqa: N815
    reservedPrefix: str  # noqa: N815
    maxTaughtTools: int  # noqa: N815
    approvalHoldSeconds: float  # noqa: N815
    consentTtlSeconds: float  # noqa: N815
    schemaLint: SchemaLintRules  # noqa: N815

    @property
    def tool_name(self) -> re.Pattern[str]:
        return re.compile(self.toolName)

    @property
    def param_name(self) -> re.Pattern[str]:
        return re.compile(self.paramName)


@cache
def rules() -> Rules:
    path = web_assets_dir() / "data" / "rules.json"
    return Rules.model_validate(json.loads(path.read_text(encoding="utf-8")))
