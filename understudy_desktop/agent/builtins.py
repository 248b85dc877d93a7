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
    return {str(t["name"]): t for t in raw["tools"]}
