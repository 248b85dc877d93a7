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


def _spaces(text: str) -> str:
    """Invisible characters gone, every run of spaces (of any kind) one space, no ends."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc"))
    return " ".join(kept.split())


def _skeleton(text: str) -> str:
    return str(_CHECKER.getSkeleton(_ANY_CASE, text))


@lru_cache(maxsize=4096)
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
