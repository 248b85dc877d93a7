"""Tool results for agents: compact, within budget, and failures as isError with a code.

Failures are results, never protocol exceptions, so the model sees them and can recover.
Error texts name what went wrong (a field, a keyword, a tool) but never echo input values.
"""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types

from understudy_desktop.error_codes import ErrorCode, known
from understudy_desktop.rules import rules

# Characters of text an agent receives per call (Chrome's guidance), from rules.json.
OUTPUT_BUDGET = rules().budgets.output
ERROR_META_KEY = "understudy/error"

# The stable codes an agent can rely on (all of them: error_codes.py).
INVALID_INPUT = ErrorCode.INVALID_INPUT
NOT_FOUND = ErrorCode.NOT_FOUND
TIMEOUT = ErrorCode.TIMEOUT
CANCELLED = ErrorCode.CANCELLED
TOOL_ERROR = ErrorCode.TOOL_ERROR
BUSY = ErrorCode.BUSY
APPROVAL_CHANGED = ErrorCode.APPROVAL_CHANGED
UNAVAILABLE = ErrorCode.UNAVAILABLE


def error_result(
    code: ErrorCode, message: str, details: dict[str, Any] | None = None
) -> types.CallToolResult:
    text = fit(f"{code}: {message}")
    structured = {**(details or {}), "code": code, "message": message[:500]}
    structured.pop("isError", None)
    if len(json.dumps(structured)) > OUTPUT_BUDGET:
        structured = {"code": code, "message": message[:500]}
    return types.CallToolResult(
        content=[types.TextContent(text=text)],
        structured_content=structured,
        is_error=True,
        _meta={ERROR_META_KEY: {"code": code}},
    )


def fit(text: str, budget: int = OUTPUT_BUDGET) -> str:
    """Cut text to the budget with a notice saying how much was left out."""
    if len(text) <= budget:
        return text
    notice = f" … [cut: the result was {len(text):,} characters; the limit is {budget:,}]"
    return text[: budget - len(notice)] + notice


def success_result(raw: str) -> types.CallToolResult:
    """The page's tool answered `raw` (a string, usually JSON).

    Taught tools report failure by resolving `{"isError": true, "code": …}` (a rejected tool
    reaches agents only as an opaque UnknownError); that becomes an isError result here.
    """
    structured: dict[str, Any] | None = None
    try:
        parsed = json.loads(raw)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and parsed.get("isError") is True:
        # Only a code of ours reaches the agent: a page's answer may say anything.
        code = known(parsed.get("code")) or TOOL_ERROR
        return error_result(code, str(parsed.get("message") or "the tool failed"), parsed)
    if isinstance(parsed, dict) and len(raw) <= OUTPUT_BUDGET:
        structured = parsed
    return types.CallToolResult(
        content=[types.TextContent(text=fit(raw))],
        structured_content=structured,
        is_error=False,
    )
