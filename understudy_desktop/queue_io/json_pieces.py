"""`json.loads` for a big export, a ticket at a time.

`json.loads` over a 50 MB export is one call into C that holds the interpreter for half a
second, and every thread waits on it, the window's too. An export is a list of tickets, or an
object holding one: so the list (at the top, or a value of the top object) is read an item at
a time with the standard decoder's `raw_decode`, and everything else exactly as `json.loads`
reads it. The result, and the error for a text that is not JSON (its message and position in
the whole text), are those of `json.loads`.
"""

from __future__ import annotations

import json
import re
from typing import Any

_DECODER = json.JSONDecoder()
_SPACE = re.compile(r"[ \t\n\r]*")  # JSON's own white space


def loads(text: str) -> Any:
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", text, 0)
    value, end = _value(text, _skip(text, 0), 0)
    end = _skip(text, end)
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _skip(text: str, at: int) -> int:
    space = _SPACE.match(text, at)
    return space.end() if space else at


def _value(text: str, at: int, depth: int) -> tuple[Any, int]:
    """The value starting at `at` (white space skipped) and where it ends. Lists at the top or
    one level down are read an item at a time; the top object a member at a time."""
    opening = text[at : at + 1]
    if opening == "[" and depth <= 1:
        return _list(text, at + 1, depth)
    if opening == "{" and depth == 0:
        return _object(text, at + 1)
    return _DECODER.raw_decode(text, at)


def _list(text: str, at: int, depth: int) -> tuple[list[Any], int]:
    items: list[Any] = []
    at = _skip(text, at)
    if text.startswith("]", at):
        return items, at + 1
    while True:
        item, at = _value(text, at, depth + 1)
        items.append(item)
        ended, at = _past_separator(text, at, "]")
        if ended:
            return items, at


def _object(text: str, at: int) -> tuple[dict[str, Any], int]:
    members: dict[str, Any] = {}
    at = _skip(text, at)
    if text.startswith("}", at):
        return members, at + 1
    while True:
        if not text.startswith('"', at):
            raise json.JSONDecodeError(
                "Expecting property name enclosed in double quotes", text, at
            )
        key, at = _DECODER.raw_decode(text, at)
        at = _skip(text, at)
        if not text.startswith(":", at):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, at)
        members[key], at = _value(text, _skip(text, at + 1), 1)
        ended, at = _past_separator(text, at, "}")
        if ended:
            return members, at


def _past_separator(text: str, at: int, closing: str) -> tuple[bool, int]:
    """After an item of a list or object: past its comma and the space after it (False), or
    past the closing bracket (True)."""
    at = _skip(text, at)
    if text.startswith(",", at):
        return False, _skip(text, at + 1)
    if text.startswith(closing, at):
        return True, at + 1
    raise json.JSONDecodeError("Expecting ',' delimiter", text, at)
