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
from dataclasses import dataclass, field
from typing import Any

import rfc8785

from understudy_desktop.rules import rules

CONSENT_TTL_S = rules().consentTtlSeconds


def consent_key(action: str, args: Mapping[str, Any]) -> str:
    canonical: bytes = rfc8785.dumps(dict(args))
    return hashlib.sha256(action.encode("utf-8") + b"\x00" + canonical).hexdigest()


@dataclass(frozen=True)
class DialogApproval:
    """Proof that a person clicked Approve in the dialog for exactly this key."""

    key: str


_SEAL = object()


@dataclass(frozen=True)
class Grant:
    """What a consumed consent hands to the code that carries the action out: the proof that
    a person approved exactly this action with exactly these arguments. Only this module
    makes one (when a dialog's consent is consumed, or for the person's own --yes on the
    command line); the library refuses to change anything without a Grant that covers it."""

    action: str
    key: str
    via: str  # "dialog" or "command line"
    _seal: object = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self._seal is not _SEAL:
            raise TypeError("only the consent ledger can make a Grant")

    def covers(self, action: str, args: Mapping[str, Any]) -> bool:
        return action == self.action and consent_key(action, args) == self.key


def command_line_grant(action: str, args: Mapping[str, Any]) -> Grant:
    """The person started Understudy with --yes for this one file: their command is the
    approval (used by unattended imports; never reachable from the page or an agent)."""
    return Grant(action, consent_key(action, args), "command line", _SEAL)


class ConsentLedger:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._granted: dict[str, float] = {}  # key -> expiry

    def grant(self, approval: DialogApproval) -> None:
        if not isinstance(approval, DialogApproval):
            raise TypeError("only the consent dialog can grant a consent")
        self._granted[approval.key] = self._clock() + CONSENT_TTL_S

    def consume(self, action: str, args: Mapping[str, Any]) -> Grant | None:
        """A Grant exactly once per approval, and only before it expires."""
        return self.consume_key(action, consent_key(action, args))

    def consume_key(self, action: str, key: str) -> Grant | None:
        """consume() for a caller that already holds the key (a guessed key fails harmlessly)."""
        expiry = self._granted.pop(key, None)
        if expiry is None or self._clock() >= expiry:
            return None
        return Grant(action, key, "dialog", _SEAL)

    def pending(self) -> int:
        now = self._clock()
        return sum(1 for expiry in self._granted.values() if now < expiry)
