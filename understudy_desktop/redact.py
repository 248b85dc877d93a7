"""The one place secrets are taken out of text that leaves the app's memory: every log record
(its message and its traceback, through `RedactingFormatter` on every handler) and any
exception text shown to a person (`redact`).

Two nets, because either alone has holes. The secrets this process has held (a helpdesk
token, wrapped in `Secret` wherever it is read or typed) are replaced wherever they appear,
also as Python's repr escapes them (a token with a zero-width space copied from chat shows
up as `\\u200b` inside a UnicodeEncodeError's repr) and as a URL would carry them. And what
looks like a credential whatever its value is masked: Authorization headers, `Bearer`/`Basic`/
`token` schemes, and key or token parameters in URLs and text.
"""

from __future__ import annotations

import logging
import re
import threading
import urllib.parse

MASK = "«hidden»"
# Shorter values are not searched for (they would match ordinary words); the patterns below
# still hide them where they sit in a credential's place.
MIN_LENGTH = 4

_lock = threading.Lock()
_known: set[str] = set()

_PATTERNS = (
    # Authorization: token abc / Bearer abc / Basic abc (and the same in a repr's quotes)
    re.compile(
        r"(?i)(authorization['\"]?\s*[:=,]\s*['\"]?)(?:(?:bearer|basic|token)\s+)?[^\s'\",}]+"
    ),
    re.compile(r"(?i)\b(bearer|basic)(\s+)[A-Za-z0-9._~+/=\\-]{6,}"),
    # RT's own scheme ("token 1-14-abc…"): a value with a digit in it, not the word in a
    # sentence
    re.compile(r"(?i)\b(token)(\s+)(?=[^\s'\",}]*\d)[^\s'\",}]{6,}"),
    # key=..., token=..., password=... in URLs, forms and messages
    re.compile(
        r"(?i)\b((?:api[_-]?)?(?:key|token|secret|password|passwd)['\"]?\s*[:=]\s*['\"]?)"
        r"[^\s&'\",}]+"
    ),
)


def _forms(value: str) -> set[str]:
    """The ways `value` can be written into text: as it is, as a repr escapes it, as JSON or a
    URL would carry it."""
    escaped = value.encode("unicode_escape").decode("ascii")
    forms = {value, escaped, repr(value)[1:-1], urllib.parse.quote(value, safe="")}
    forms.add(urllib.parse.quote_plus(value))
    return {f for f in forms if len(f) >= MIN_LENGTH}


def remember_secret(value: str) -> None:
    """From now on, `value` never leaves through a log or an error's words."""
    if len(value.strip()) < MIN_LENGTH:
        return
    with _lock:
        _known.update(_forms(value))
        _known.update(_forms(value.strip()))


def redact(text: str) -> str:
    """`text` with every known secret and every credential-shaped value masked."""
    with _lock:
        known = sorted(_known, key=len, reverse=True)
    for secret in known:
        if secret in text:
            text = text.replace(secret, MASK)
    text = _PATTERNS[0].sub(lambda m: m.group(1) + MASK, text)
    for scheme in _PATTERNS[1:3]:
        text = scheme.sub(lambda m: m.group(1) + m.group(2) + MASK, text)
    return _PATTERNS[3].sub(lambda m: m.group(1) + MASK, text)


class RedactingFormatter(logging.Formatter):
    """A formatter whose every line, traceback included, has been through `redact`."""

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


class Secret(str):
    """A str that never shows itself in a repr (logs and tracebacks print reprs), and that is
    remembered so that `redact` finds it in any other form."""

    def __new__(cls, value: str) -> Secret:
        remember_secret(value)
        return super().__new__(cls, value)

    def __repr__(self) -> str:
        return "Secret(…)"
