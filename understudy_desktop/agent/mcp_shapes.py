"""The shell's answers in MCP's shapes: a listed tool, its hints, a call's result."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from understudy_desktop.agent import results
from understudy_desktop.error_codes import known

# WebMCP's untrustedContentHint says the tool's output holds data the page's author does not
# vouch for (here, customer text). MCP has no such hint: openWorldHint says whether a tool
# reaches outside entities, another question, and one no console tool answers by reaching
# anything beyond the queue. So it travels in _meta, under the shell's own prefix (as the
# error code does in results.py), said only when true.
UNTRUSTED_CONTENT_META_KEY = "understudy/untrustedContentHint"


def mcp_annotations(webmcp: dict[str, Any]) -> types.ToolAnnotations | None:
    """WebMCP hints as MCP hints, where MCP has the same notion. Only what is known is said:
    MCP's defaults for an absent hint are the cautious ones (may change things, may reach
    outside), so a hint is never published as false just because nobody said otherwise."""
    read_only = True if webmcp.get("readOnlyHint") is True else None
    destructive = True if webmcp.get("consequentialHint") is True else None
    if read_only is None and destructive is None:
        return None
    return types.ToolAnnotations(read_only_hint=read_only, destructive_hint=destructive)


def mcp_meta(webmcp: dict[str, Any]) -> dict[str, Any] | None:
    """What a WebMCP hint says that no MCP hint does."""
    if webmcp.get("untrustedContentHint") is True:
        return {UNTRUSTED_CONTENT_META_KEY: True}
    return None


def mcp_tool(tool: dict[str, Any]) -> types.Tool:
    hints = tool.get("annotations") or {}
    return types.Tool(
        name=str(tool["name"]),
        title=str(tool.get("title") or "") or None,
        description=str(tool.get("description", "")),
        input_schema=tool.get("inputSchema") or {"type": "object"},
        annotations=mcp_annotations(hints),
        _meta=mcp_meta(hints),
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
