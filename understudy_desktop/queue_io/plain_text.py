"""Cells as a person means them: a body written in HTML read as the text it shows, the words
exports use for "nobody has this ticket", and, on the way out, a cell a spreadsheet would run
as a formula written so that it stays text."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser
from typing import Final

# Tags that end a line of text where they stand (the rest only style what is inside them).
_BREAKS: Final = frozenset(
    {"br", "p", "div", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre",
     "ul", "ol", "table", "hr"}
)  # fmt: skip
_SKIPPED: Final = frozenset({"script", "style", "head", "title"})
_HTML: Final = re.compile(
    r"<(?:br|p|div|span|a|b|i|strong|em|ul|ol|li|table|tr|td|font)\b[^>]*>", re.I
)

NOBODY: Final = frozenset(
    {"no agent", "unassigned", "nobody", "none", "no one", "-", "--", "—", "n/a", "na",
     "not assigned"}
)  # fmt: skip


def means_nobody(name: str) -> bool:
    return " ".join(name.casefold().split()) in NOBODY


def looks_like_html(text: str) -> bool:
    return "<" in text and _HTML.search(text) is not None


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIPPED:
            self._skip += 1
        elif tag in _BREAKS:
            self.parts.append("\n")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BREAKS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED:
            self._skip = max(0, self._skip - 1)
        elif tag in _BREAKS and tag != "br":
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.parts.append(data)


def html_to_text(markup: str) -> str:
    """The text an HTML body shows: line breaks where blocks end, entities decoded, no tags,
    at most one blank line in a row."""
    parser = _Text()
    parser.feed(markup)
    parser.close()
    text = html.unescape("".join(parser.parts)).replace("\xa0", " ")
    lines = [line.rstrip() for line in text.splitlines()]
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    return "\n".join(out).strip("\n")


# A cell starting with one of these is run as a formula by spreadsheets (OWASP, "CSV
# Injection"); a leading single quote makes it text, and is not shown.
FORMULA_START: Final = ("=", "+", "-", "@", "\r")


def defused(cell: str) -> str:
    """A cell for a CSV file that a spreadsheet shows as the text it is. A cell already made
    safe by a leading tab (how some helpdesks export such text) is kept exactly as it was."""
    # A tab is not among the starts: such a cell is kept as it came.
    if cell.startswith(FORMULA_START) and len(cell) > 1:
        return "'" + cell
    return cell
