"""The shell's answers in MCP's shapes: a listed tool, its hints, a call's result."""

from __future__ import annotations

import json
import re
from functools import cache
from typing import Any

import mcp_types as types

from understudy_desktop.agent import results
from understudy_desktop.catalogue import current_catalogue
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


# Every agent reads the whole list at the start of every session (bench/tool_list.py), so a
# field that only repeats another is left out of it. People see the full definition.
_WORD = re.compile(r"[^\W_]+")
_FILLER = frozenset({"a", "an", "and", "of", "or", "the", "to"})


def _words(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _FILLER]


def lean_title(title: str, description: str) -> str | None:
    """The title, unless every word of it is already in the description or is one a title
    suggested from the steps is made of ("Find, tag the matches and assign the matches"): the
    description says what the steps do. A person's own name for a tool seldom is."""
    said = _words(description) + _title_vocabulary()
    fresh = [w for w in _words(title) if not any(_same_stem(w, d) for d in said)]
    return title if title and fresh else None


@cache
def _title_vocabulary() -> list[str]:
    """The words titles suggested from the steps are made of, read once (every list needs
    them for every taught tool)."""
    return _words(current_catalogue().title_words())


def _same_stem(word: str, other: str) -> bool:
    """The same word, one cut short, or two forms of one (matches, matching)."""
    return other.startswith(word) or (len(word) >= 5 and word[:5] == other[:5])


def lean_inputs(schema: dict[str, Any]) -> dict[str, Any]:
    """The input schema without descriptions that only name the input and list its choices
    ("The status: new, open, pending, solved or closed." beside that enum)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    lean: dict[str, Any] = {}
    for name, spec in properties.items():
        choices = spec.get("enum") if isinstance(spec, dict) else None
        text = spec.get("description") if isinstance(spec, dict) else None
        if isinstance(choices, list) and isinstance(text, str):
            known = set(_words(name)) | {w for c in choices for w in _words(str(c))}
            if set(_words(text)) <= known:
                spec = {k: v for k, v in spec.items() if k != "description"}
        lean[name] = spec
    return {**schema, "properties": lean}


def mcp_tool(tool: dict[str, Any]) -> types.Tool:
    hints = tool.get("annotations") or {}
    description = str(tool.get("description", ""))
    return types.Tool(
        name=str(tool["name"]),
        title=lean_title(str(tool.get("title") or ""), description),
        description=description,
        input_schema=lean_inputs(tool.get("inputSchema") or {"type": "object"}),
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
