"""Text from outside (file names, pack authors, ticket fields) shown as it is meant to be read.

Bidirectional control characters can make "Invoice\\u202egpj.exe" read as "Invoice exe.jpg".
They are shown as visible marks instead, so a person sees what the text really holds. The page
does the same (js/ui/dom.js)."""

from __future__ import annotations

import os
import re

BIDI_CONTROLS = {
    "\u061c": "ALM",
    "\u200e": "LRM",
    "\u200f": "RLM",
    "\u202a": "LRE",
    "\u202b": "RLE",
    "\u202c": "PDF",
    "\u202d": "LRO",
    "\u202e": "RLO",
    "\u2066": "LRI",
    "\u2067": "RLI",
    "\u2068": "FSI",
    "\u2069": "PDI",
}
_CONTROLS = re.compile("[" + "".join(BIDI_CONTROLS) + "]")


def visible_controls(text: str) -> str:
    return _CONTROLS.sub(lambda m: f"⟨{BIDI_CONTROLS[m.group(0)]}⟩", text)


FSI, PDI = "\u2068", "\u2069"


def isolated(text: str) -> str:
    """Outside text inside a sentence of ours: its controls made visible, and the whole set
    apart as a first-strong isolate, so a right-to-left name or subject cannot reorder the
    words around it ("you set … meanwhile …" stays in its order)."""
    return f"{FSI}{visible_controls(text)}{PDI}"


def file_name_words(name: str) -> str:
    """A file's name as text that can be shown and stored: a name that is not UTF-8 on disk
    (Python keeps its odd bytes as lone surrogates, which no database or JSON file takes)
    has each odd byte shown as U+FFFD instead."""
    return os.fsencode(name).decode("utf-8", errors="replace")


def count_of(count: int, thing: str) -> str:
    """A count in words, with its noun right: "1 tool", "2 tools", "7,600 tickets"."""
    return f"{count:,} {thing}{'' if count == 1 else 's'}"
