"""Text rules the page's JavaScript model follows, so both models match tickets alike.

JavaScript's String.prototype.trim and the regular expression class \\s use ECMAScript's
WhiteSpace and LineTerminator sets, which differ from Python's str.strip (Python also strips
U+001C-U+001F and U+0085 and keeps U+FEFF). Lengths a result reports are JavaScript's, in
UTF-16 code units. Lower-casing is Unicode's default case conversion on both sides.
"""

from __future__ import annotations

import re

# ECMAScript WhiteSpace (TAB, VT, FF, SP, NBSP, ZWNBSP, every Zs) and LineTerminator (LF, CR,
# LS, PS). Zs as of Unicode 15: the characters below.
_JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009"
    "\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
_JS_SPACES = re.compile(f"[{re.escape(_JS_SPACE)}]+")


def js_trim(text: str) -> str:
    return text.strip(_JS_SPACE)


def js_lower(text: str) -> str:
    return text.lower()


def js_length(text: str) -> int:
    """The length JavaScript reports: UTF-16 code units (an emoji counts two)."""
    return len(text) + sum(1 for ch in text if ord(ch) > 0xFFFF)


def js_slice(text: str, end: int) -> str:
    """text.slice(0, end) in JavaScript's UTF-16 units (a pair cut in two keeps its half)."""
    if js_length(text) <= end:
        return text
    units = text.encode("utf-16-le", "surrogatepass")[: 2 * end]
    return units.decode("utf-16-le", "surrogatepass")


def haystack(ticket_id: str, subject: str, body: str, requester: str) -> str:
    """What a search looks in, as the page builds it (js/queue_state.js)."""
    return js_lower(f"{ticket_id}\n{subject}\n{body}\n{requester}")


def needle(text: str) -> str:
    return js_lower(js_trim(text))


def first_name(requester: str) -> str:
    """The requester's first name, for {{requester_first_name}} in a reply template."""
    name = js_trim(requester.split("<")[0])
    first = _JS_SPACES.split(name)[0] if name else ""
    # A requester given as a bare address (a Freshdesk export) is not greeted by it.
    return first if first and "@" not in first else "there"


def code_point_sorted(values: list[str]) -> list[str]:
    """Tags in code point order: what SQLite's BINARY collation gives and the page sorts by."""
    return sorted(values)
