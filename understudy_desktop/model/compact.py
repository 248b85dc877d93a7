"""A result kept inside the output budget by trimming its lists and long texts, never by
cutting JSON: the page's compact() (js/teach/runner.js), step for step, so an agent gets the
same answer from the desktop app and from the page in a plain browser."""

from __future__ import annotations

import copy
import json
from typing import Any

from understudy_desktop.model.text import js_length, js_slice
from understudy_desktop.rules import rules

LONG_TEXT = 200


def json_length(value: Any) -> int:
    """len(JSON.stringify(value)) in JavaScript: UTF-16 units of the compact JSON."""
    return js_length(json.dumps(value, separators=(",", ":"), ensure_ascii=False))


def compact(result: Any, budget: int | None = None) -> Any:
    limit_of = rules().budgets.output if budget is None else budget
    out = copy.deepcopy(result)
    limit = 20
    while json_length(out) > limit_of and limit >= 0:
        out = copy.deepcopy(result)
        _trim(out, limit)
        limit -= 5
    return out


def _trim(node: Any, limit: int) -> None:
    if isinstance(node, dict):
        for key, value in list(node.items()):
            if isinstance(value, list) and len(value) > limit:
                node[key] = value[:limit]
                node[f"{key}_more"] = len(value) - limit
            elif isinstance(value, str) and js_length(value) > LONG_TEXT:
                node[key] = js_slice(value, LONG_TEXT) + "…"
            elif isinstance(value, dict | list):
                _trim(value, limit)
    elif isinstance(node, list):
        # An array's own entries are trimmed alike; the page's "<index>_more" note on an array
        # is not part of its JSON, so there is none here either.
        for index, value in enumerate(node):
            if isinstance(value, list) and len(value) > limit:
                node[index] = value[:limit]
            elif isinstance(value, str) and js_length(value) > LONG_TEXT:
                node[index] = js_slice(value, LONG_TEXT) + "…"
            elif isinstance(value, dict | list):
                _trim(value, limit)
