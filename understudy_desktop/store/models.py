"""The files' shapes. Each carries fileVersion; older versions are migrated on load."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

FILE_VERSION = 1


class StoredTool(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fileVersion: Literal[1] = 1  # noqa: N815 (the file's own key)
    name: str = Field(min_length=1, max_length=64)
    revision: int = Field(ge=0)
    definition: dict[str, Any]
    approved: dict[str, Any]
    status: Literal["active", "disabled", "needs_review"]
    author: str
    createdAt: str  # noqa: N815
    stats: dict[str, Any] = Field(default_factory=dict)
    askEveryTime: bool = False  # noqa: N815
    reviewReason: str | None = None  # noqa: N815
    repairedBy: str | None = None  # noqa: N815
    note: str | None = None


class StoredRecording(BaseModel):
    model_config = ConfigDict(extra="forbid")

    fileVersion: Literal[1] = 1  # noqa: N815
    id: str = Field(min_length=1, max_length=80)
    revision: int = Field(ge=0, default=0)
    name: str
    createdAt: str  # noqa: N815
    steps: list[dict[str, Any]]


def migrate(raw: dict[str, Any]) -> dict[str, Any]:
    """Bring an older file up to FILE_VERSION. Version 0 (before revisions) had no
    fileVersion and no revision; it starts at revision 0."""
    version = raw.get("fileVersion", 0)
    if version == 0:
        raw = {**raw, "fileVersion": 1, "revision": int(raw.get("revision", 0))}
    return raw
