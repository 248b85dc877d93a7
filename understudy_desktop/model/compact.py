"""A result kept inside the output budget by trimming its lists and long texts, never by
cutting JSON: the page's compact() (js/teach/runner.js), step for step, so an agent gets the
same answer from the desktop app and from the page in a plain browser.

The page copies the whole result and measures its JSON at each try; a run over 100,000
tickets would copy and measure a list of 100,000 ids five times. Here a result is measured
only as far as it takes to know it is over budget, and each try builds only the trimmed copy.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from understudy_desktop.js_text import js_length, js_slice
from understudy_desktop.rules import rules

LONG_TEXT = 200


def json_length(value: Any) -> int:
    """len(JSON.stringify(value)) in JavaScript: UTF-16 units of the compact JSON."""
    return js_length(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def compact(result: Any, budget: int | None = None) -> Any:
    limit_of = rules().budgets.output if budget is None else budget
    if _fits(result, limit_of):
        return copy.deepcopy(result)
    out = result
    for limit in range(20, -1, -5):
        out = copy.deepcopy(_trimmed(result, limit))
        if _fits(out, limit_of):
            break
    return out


def _fits(value: Any, budget: int) -> bool:
    """json_length(value) <= budget, measured exactly only when it may be."""
    return not _surely_over(value, budget) and json_length(value) <= budget


def _surely_over(value: Any, budget: int) -> bool:
    """A lower bound of the JSON's length already passes `budget` (stops as soon as it does)."""
    seen = 0
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            seen += len(node) + 2
        elif isinstance(node, dict):
            seen += 2 + len(node)
            for key, item in node.items():
                seen += len(str(key)) + 3
                stack.append(item)
        elif isinstance(node, list):
            seen += 2 + max(0, len(node) - 1)
            stack.extend(node)
        else:
            seen += 1
        if seen > budget:
            return True
    return False


def _short(value: Any, limit: int) -> tuple[bool, Any]:
    """How the page's trim treats one entry: (True, the replacement) or (False, recurse)."""
    if isinstance(value, list) and len(value) > limit:
        return True, value[:limit]
    if isinstance(value, str) and js_length(value) > LONG_TEXT:
        return True, js_slice(value, LONG_TEXT) + "…"
    return False, value


def _trimmed(node: Any, limit: int) -> Any:
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        extra: dict[str, Any] = {}
        for key, value in node.items():
            replaced, short = _short(value, limit)
            out[key] = short if replaced else _trimmed(value, limit)
            if replaced and isinstance(value, list):
                extra[f"{key}_more"] = len(value) - limit
        # The page adds each "<key>_more" after the keys it had: in the JSON they come last.
        out.update(extra)
        return out
    if isinstance(node, list):
        # An array's own entries are trimmed alike; the page's "<index>_more" note on an
        # array is not part of its JSON, so there is none here either.
        items = []
        for value in node:
            replaced, short = _short(value, limit)
            items.append(short if replaced else _trimmed(value, limit))
        return items
    return node
