"""The shell's answers in MCP's shapes: a listed tool, its hints, a call's result."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from understudy_desktop.agent import results
from understudy_desktop.error_codes import known


def mcp_annotations(webmcp: dict[str, Any]) -> types.ToolAnnotations | None:
    """WebMCP hints as MCP hints. Only what is known is said: MCP's defaults for an absent hint
    are the cautious ones (may change things, may reach outside), so a hint is never
    published as false just because nobody said otherwise."""
    read_only = True if webmcp.get("readOnlyHint") is True else None
    destructive = True if webmcp.get("consequentialHint") is True else None
    open_world = True if webmcp.get("untrustedContentHint") is True else None
    if read_only is None and destructive is None and open_world is None:
        return None
    return types.ToolAnnotations(
        read_only_hint=read_only, destructive_hint=destructive, open_world_hint=open_world
    )


def mcp_tool(tool: dict[str, Any]) -> types.Tool:
    return types.Tool(
        name=str(tool["name"]),
        title=str(tool.get("title") or "") or None,
        description=str(tool.get("description", "")),
        input_schema=tool.get("inputSchema") or {"type": "object"},
        annotations=mcp_annotations(tool.get("annotations") or {}),
    )


def mcp_result(reply: dict[str, Any]) -> types.CallToolResult:
    """A failure the tool reported (isError, a stable code) or its JSON answer."""
    if reply.get("isError") is True:
        return results.error_result(
            known(reply.get("code")) or results.TOOL_ERROR,
            str(reply.get("message") or "The tool failed."),
            reply,
        )
    return results.success_result(json.dumps(reply, separators=(",", ":"), ensure_ascii=False))
