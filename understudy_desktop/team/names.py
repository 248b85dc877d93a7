"""Telling names apart the way a reader would: two author names that look the same on screen
are the same name here, whatever code points they are made of.

A name is folded to its confusable skeleton (Unicode TR39, from ICU's spoof checker), with case
and spaces folded too: "Alice Novak", "alice  novak", "ALICE NOVAK" and the same with a
Cyrillic capital A (U+0410) all fold alike. Case folding and the skeleton do not commute ("I"
looks like "l" before folding, "i" does not after), so a name has two folds and two names are
alike when any of one's folds is one of the other's.
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

import icu

_CHECKER = icu.SpoofChecker()
# The skeleton type for "any script": what TR39 calls the whole-script/mixed-script skeleton.
_ANY_CASE = 0


# What shows as a blank: every space, and the blank-looking letters and symbols (the braille
# blank, the Hangul fillers) that are not spaces to Unicode.
_BLANK = icu.UnicodeSet("[[:White_Space:][\u2800\u3164\uffa0\u115f\u1160]]")
# What shows as nothing at all: default-ignorable code points, format and control characters.
_NOTHING = icu.UnicodeSet("[[:Default_Ignorable_Code_Point:][:Cf:][:Cc:]]")


# Canonical combining classes of marks drawn below or through a letter: overlay (1), attached
# below (202), below left (218), below (220), below right (222), double below (233).
_HARD_TO_SEE = frozenset({1, 202, 218, 220, 222, 233})


def _spaces(text: str) -> str:
    """Blank-looking characters one space, invisible ones gone, combining marks below or
    through a letter dropped (a dot or macron below is easy to miss; an accent above is a
    different name: Novák is not Novak), every run of blanks one space, no ends."""
    shown = "".join(" " if _BLANK.contains(c) else "" if _NOTHING.contains(c) else c for c in text)
    bare = "".join(
        c
        for c in unicodedata.normalize("NFD", shown)
        if unicodedata.combining(c) not in _HARD_TO_SEE
    )
    return " ".join(bare.split())


def one_line(text: str) -> str:
    """A name as a line of the history: control, format and bidi characters gone, any line
    break or blank one space (a name cannot start a line of its own, or reorder one)."""
    kept = "".join(
        " "
        if _BLANK.contains(c) or unicodedata.category(c) in ("Zl", "Zp")
        else ""
        if _NOTHING.contains(c)
        else c
        for c in text
    )
    return " ".join(kept.split())


def _skeleton(text: str) -> str:
    return str(_CHECKER.getSkeleton(_ANY_CASE, text))


@lru_cache(maxsize=1 << 16)  # a folder may hold thousands of names; each is a few hundred bytes
def folds(name: str) -> frozenset[str]:
    """The forms `name` is compared by."""
    plain = _spaces(unicodedata.normalize("NFKC", name))
    first = _spaces(_skeleton(plain.casefold()))
    second = _spaces(_skeleton(_skeleton(plain).casefold()))
    return frozenset({first, second})


def alike(a: str, b: str) -> bool:
    """The two names would pass for one another on screen."""
    return bool(folds(a) & folds(b))


def same_as_any(name: str, others: dict[str, str]) -> str:
    """The key of the first name in `others` (key -> name) that looks like `name`; ''."""
    mine = folds(name)
    for key, other in others.items():
        if mine & folds(other):
            return key
    return ""
