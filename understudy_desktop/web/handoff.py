"""One-time URLs through which Python hands large payloads (a 100k-ticket queue) to the page.

Splicing tens of megabytes into a runJavaScript string is slow and doubles memory; instead the
page fetches `understudy://app/_handoff/<token>` once and the bytes are forgotten.
"""

from __future__ import annotations

import secrets

HANDOFF_PREFIX = "/_handoff/"


class Handoff:
    def __init__(self) -> None:
        self._items: dict[str, tuple[bytes, str]] = {}

    def put(self, data: bytes, mime: str = "application/json") -> str:
        """Store bytes and return the path the page may fetch exactly once."""
        token = secrets.token_urlsafe(16)
        self._items[token] = (data, mime)
        return HANDOFF_PREFIX + token

    def take(self, path: str) -> tuple[bytes, str] | None:
        if not path.startswith(HANDOFF_PREFIX):
            return None
        return self._items.pop(path[len(HANDOFF_PREFIX) :], None)
