"""Understudy's own agent tools (list, draft, publish or revoke, run), as the shell lists
them: from web_assets/data/builtin_tools.json, a file on disk that no page script can touch.
The page registers the same definitions where it runs without the shell.

understudy_revoke_tool is answered and not listed: asking the person to revoke a tool is
understudy_publish_tool's `revoke` now (one tool fewer for every agent to read in every
session), and an agent that learned the old name still gets its answer."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from understudy_desktop.paths import web_assets_dir

LIST_RECORDINGS = "understudy_list_recordings"
DRAFT_TOOL = "understudy_draft_tool"
PUBLISH_TOOL = "understudy_publish_tool"
RUN_TOOL = "understudy_run_tool"
REVOKE_TOOL = "understudy_revoke_tool"


@cache
def builtin_tools() -> dict[str, dict[str, Any]]:
    """Every built-in tool the shell answers, by name, as agents would read it."""
    path = web_assets_dir() / "data" / "builtin_tools.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {str(t["name"]): _shown(t) for t in raw["tools"]}


@cache
def listed_builtins() -> tuple[dict[str, Any], ...]:
    """The built-in tools agents are shown (not those kept only for agents that knew them)."""
    path = web_assets_dir() / "data" / "builtin_tools.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    return tuple(_shown(t) for t in raw["tools"] if t.get("listed", True) is not False)


def _shown(tool: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tool.items() if k not in ("argumentRules", "listed")}


@cache
def argument_schema(name: str) -> dict[str, Any] | None:
    """What a built-in tool's arguments are checked against: the lean schema agents read,
    and the file's argumentRules (unknown keys, patterns, budgets), both at once."""
    path = web_assets_dir() / "data" / "builtin_tools.json"
    for tool in json.loads(path.read_text(encoding="utf-8"))["tools"]:
        if tool["name"] == name:
            rules = tool.get("argumentRules")
            schema: dict[str, Any] = tool["inputSchema"]
            return {"allOf": [schema, rules]} if rules else schema
    return None
