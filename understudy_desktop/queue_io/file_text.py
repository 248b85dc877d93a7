"""A queue file's bytes as text: the size limit, the encoding, the line endings, its date."""

from __future__ import annotations

import codecs
import io
import os
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

import charset_normalizer

from understudy_desktop.queue_io.columns import format_utc
from understudy_desktop.queue_io.errors import cannot_open

MAX_FILE_BYTES: Final = 200 * 1024 * 1024
# Excel on Western-European Windows writes cp1252; charset-normalizer often ranks a Baltic or
# Central-European code page just above it on short files, which garbles accents.
_PREFERRED_LEGACY: Final = ("cp1252",)
_LEGACY_TOLERANCE: Final = 0.1

_ENCODING_LABELS: Final[dict[str, str]] = {
    "utf-8": "UTF-8",
    "utf-16-le": "UTF-16",
    "utf-16-be": "UTF-16",
    "utf-16": "UTF-16",
    "utf-32-le": "UTF-32",
    "utf-32-be": "UTF-32",
    "utf-32": "UTF-32",
    "ascii": "ASCII",
    "cp1252": "Windows-1252",
    "cp1250": "Windows-1250",
    "cp1251": "Windows-1251",
    "iso8859-1": "Latin-1",
    "iso8859-15": "Latin-9",
    "mac-roman": "Mac Roman",
    "cp932": "Shift-JIS",
    "shift_jis": "Shift-JIS",
}


def encoding_label(encoding: str) -> str:
    return _ENCODING_LABELS.get(encoding, encoding.upper())


def read_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if path.is_dir():
            cannot_open(path, "This is a folder, not a file.")
        if size > MAX_FILE_BYTES:
            cannot_open(
                path,
                f"The file is too large ({size / 1024 / 1024:.0f} MB); the limit is "
                f"{MAX_FILE_BYTES // 1024 // 1024} MB. Export fewer tickets at a time.",
            )
        data = path.read_bytes()
    except FileNotFoundError:
        cannot_open(path, "The file was not found. It may have been moved, renamed or deleted.")
    except PermissionError:
        cannot_open(path, "You do not have permission to read this file.")
    except OSError as exc:
        cannot_open(path, f"The file could not be read ({exc.strerror or exc}).")
    if not data:
        cannot_open(path, "The file is empty.")
    return data


_BOMS: Final = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)


def decode(path: Path, data: bytes) -> tuple[str, str, bool]:
    """Return (text, codec name, had BOM)."""
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return decoded(data[len(bom) :], encoding), encoding, True
            except UnicodeDecodeError as exc:
                cannot_open(
                    path,
                    f"The file says it is {encoding_label(encoding)} text, but it is damaged "
                    f"near byte {exc.start}. Export it again from your helpdesk.",
                )
    try:
        return decoded(data, "utf-8"), "utf-8", False
    except UnicodeDecodeError:
        pass
    results = list(charset_normalizer.from_bytes(data))
    if results:
        best = results[0]
        for match in results:
            if (
                match.encoding in _PREFERRED_LEGACY
                and match.chaos <= best.chaos + _LEGACY_TOLERANCE
            ):
                best = match
                break
        encoding = codecs.lookup(best.encoding).name
        try:
            return data.decode(encoding), encoding, False
        except UnicodeDecodeError:
            pass
    cannot_open(
        path,
        "We could not work out how the text in this file is encoded. In your spreadsheet "
        'program, save it again as "CSV UTF-8" and open that copy.',
    )


# Bytes decoded, or characters split into lines, per call: one call over a whole 50 MB export
# holds the interpreter (every thread waits, the window's too) for a tenth of a second or more;
# a quarter of a megabyte takes a millisecond or two.
SLICE = 1 << 18


def decoded(data: bytes, encoding: str) -> str:
    """`data.decode(encoding)`, a slice at a time; an error's `start` counts from the start."""
    decoder = codecs.getincrementaldecoder(encoding)()
    pieces = []
    for at in range(0, len(data), SLICE):
        try:
            pieces.append(decoder.decode(data[at : at + SLICE], final=at + SLICE >= len(data)))
        except UnicodeDecodeError as exc:
            raise UnicodeDecodeError(
                exc.encoding, data, at + exc.start, at + exc.end, exc.reason
            ) from None
    return "".join(pieces)


def physical_lines(text: str) -> list[str]:
    """The text's lines with their endings, as `io.StringIO(text, newline="").readlines()`
    gives them (a line ends at \n, \r\n or \r), split a slice at a time. A slice is cut
    just after a \n, which never parts a \r\n."""
    lines: list[str] = []
    start = 0
    while start < len(text):
        cut = text.find("\n", start + SLICE)
        end = len(text) if cut == -1 else cut + 1
        lines.extend(io.StringIO(text[start:end], newline="").readlines())
        start = end
    return lines


_LEADING_SPACE = re.compile(r"\s*")


def first_character(text: str) -> str:
    """The first character that is not white space ("" if none), found without copying the
    text (`text.lstrip()` would copy all 50 MB of it in one call)."""
    space = _LEADING_SPACE.match(text)
    start = space.end() if space else 0
    return text[start : start + 1]


def line_layout(text: str) -> tuple[str, bool]:
    """The file's line ending and whether it ends with one."""
    first = text.find("\n")
    if first > 0 and text[first - 1] == "\r":
        newline = "\r\n"
    elif first == -1 and "\r" in text:
        newline = "\r"
    else:
        newline = "\n"
    return newline, text.endswith(("\n", "\r"))


def file_time(path: Path) -> str:
    try:
        return format_utc(
            datetime.fromtimestamp(os.stat(path).st_mtime, UTC).replace(microsecond=0)
        )
    except OSError:
        return format_utc(datetime.now(UTC).replace(microsecond=0))
