"""The consent ledger: in memory, single use, 120 seconds.

A consent is bound to one action and one set of arguments through
SHA-256(action NUL canonical(args)), canonical JSON per RFC 8785 (the `rfc8785` library), so
reordered keys are the same consent and any other argument is not. Nothing is written to
disk: yesterday's approval must not work today.

Granting needs a `DialogApproval`, which only the consent dialog's Approve handler creates
(tests/test_consent.py checks the source for any other grant call).
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import rfc8785

CONSENT_TTL_S = 120.0


def consent_key(action: str, args: Mapping[str, Any]) -> str:
    canonical: bytes = rfc8785.dumps(dict(args))
    return hashlib.sha256(action.encode("utf-8") + b"\x00" + canonical).hexdigest()


@dataclass(frozen=True)
class DialogApproval:
    """Proof that a person clicked Approve in the dialog for exactly this key."""

    key: str


class ConsentLedger:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._granted: dict[str, float] = {}  # key -> expiry

    def grant(self, approval: DialogApproval) -> None:
        if not isinstance(approval, DialogApproval):
            raise TypeError("only the consent dialog can grant a consent")
        self._granted[approval.key] = self._clock() + CONSENT_TTL_S

    def consume(self, action: str, args: Mapping[str, Any]) -> bool:
        """True exactly once per grant, and only before it expires."""
        key = consent_key(action, args)
        expiry = self._granted.get(key)
        if expiry is None:
            return False
        if self._clock() >= expiry:
            del self._granted[key]
            return False
        del self._granted[key]
        return True

    def consume_key(self, key: str) -> bool:
        """consume() for a caller that already holds the key (a guessed key fails harmlessly)."""
        expiry = self._granted.get(key)
        if expiry is None:
            return False
        del self._granted[key]
        return self._clock() < expiry

    def pending(self) -> int:
        now = self._clock()
        return sum(1 for expiry in self._granted.values() if now < expiry)
