"""Understudy's own agent tools (list, draft, publish, run and revoke), as the shell lists
them: from web_assets/data/builtin_tools.json, a file on disk that no page script can touch.
The page registers the same definitions where it runs without the shell."""

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
    path = web_assets_dir() / "data" / "builtin_tools.json"
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {str(t["name"]): _listed(t) for t in raw["tools"]}


def _listed(tool: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in tool.items() if k != "argumentRules"}


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
