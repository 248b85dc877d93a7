"""Typed models of a Tool Pack, validated after the shared JSON Schema (pack.schema.json)
has checked the file's shape; the rest of the import works on these, not on raw dicts."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class PackStep(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str
    args: dict[str, dict[str, Any]]


class PackTool(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    title: str = ""
    description: str
    inputSchema: dict[str, Any]  # noqa: N815 (the file's own key)
    annotations: dict[str, Any] | None = None  # ignored: recomputed on import
    steps: list[PackStep] = Field(min_length=1)


class PackApp(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    version: str


class Pack(BaseModel):
    model_config = ConfigDict(extra="forbid")

    packVersion: Literal[1]  # noqa: N815
    app: PackApp
    catalogueVersion: int  # noqa: N815
    requiredCommandIds: list[str]  # noqa: N815
    commandSchemas: dict[str, dict[str, Any]] = Field(default_factory=dict)  # noqa: N815
    author: str
    authorKey: str | None = None  # noqa: N815 (signed packs: team/signing.py)
    signature: str | None = None
    created: str
    teamVersion: int | None = Field(default=None, ge=1, le=10**9)  # noqa: N815 (team/)
    tools: list[PackTool] = Field(min_length=1, max_length=16)
