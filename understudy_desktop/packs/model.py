"""A Tool Pack's shape: its tools are `Definition`s (understudy_desktop/definition.py) and every
limit comes from rules.json. pack.schema.json is generated from these models
(packs/schema.py), so the file format is written once."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.json_schema import SkipJsonSchema

from understudy_desktop.definition import COMMAND_ID, Definition
from understudy_desktop.rules import rules

_RULES = rules()
_LIMITS = _RULES.limits


class PackApp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(max_length=_LIMITS.appName)
    version: str = Field(max_length=_LIMITS.appVersion)


class Pack(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        title="Understudy Tool Pack",
        json_schema_extra={
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": "https://understudy.invalid/schemas/understudy-pack-1.json",
        },
    )

    packVersion: Literal[1]  # noqa: N815 (the file's own keys)
    app: PackApp
    catalogueVersion: int = Field(ge=1)  # noqa: N815
    requiredCommandIds: list[str] = Field(  # noqa: N815
        max_length=_LIMITS.packCommands,
        json_schema_extra={"uniqueItems": True, "items": {"type": "string", "pattern": COMMAND_ID}},
    )
    commandSchemas: dict[str, dict[str, object]] = Field(  # noqa: N815
        default_factory=dict,
        description=(
            "The payload schema of each required command when the pack was made, for grading drift."
        ),
    )
    author: str = Field(max_length=_LIMITS.authorName)
    authorKey: Annotated[str, Field(pattern="^[0-9a-f]{64}$")] | SkipJsonSchema[None] = Field(  # noqa: N815
        default=None, description="The author's Ed25519 public key, when the pack is signed."
    )
    signature: Annotated[str, Field(pattern="^[0-9a-f]{128}$")] | SkipJsonSchema[None] = Field(
        default=None,
        description="Ed25519 over the RFC 8785 form of the pack without this field.",
    )
    created: str = Field(max_length=_LIMITS.timestamp, json_schema_extra={"format": "date-time"})
    teamVersion: Annotated[int, Field(ge=1, le=_LIMITS.teamVersion)] | SkipJsonSchema[None] = Field(  # noqa: N815
        default=None,
        description=(
            "In the team library: this version's number, one more than its author's previous"
            " share of the tool (signed with the rest)."
        ),
    )
    tools: list[Definition] = Field(min_length=1, max_length=_RULES.maxTaughtTools)
