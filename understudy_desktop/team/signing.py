"""Signatures on shared files (tool packs, withdrawals, usage counts): Ed25519 over the RFC 8785
canonical JSON of the document without its `signature` field.

A signed file is stored in exactly its canonical form, so the check is on the bytes as well as
on the meaning: a file whose bytes are not the canonical form of what they say (an added space,
an escape written another way, a byte-order mark) is "changed after signing", just like one
whose content no longer matches the signature. No byte of a signed file can change and still
verify (tests/test_team_signing.py checks this with hypothesis).

Keys and signatures are written as lowercase hex, and read back only if writing them again
gives the same text: one value, one spelling.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal

import rfc8785
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

SIGNATURE = "signature"
AUTHOR_KEY = "authorKey"
Verdict = Literal["signed", "unsigned", "changed"]


def _key_digest(public_hex: str) -> str:
    try:
        raw = bytes.fromhex(public_hex)
    except ValueError:
        raw = public_hex.encode("utf-8")
    return hashlib.sha256(raw).hexdigest().upper()


def key_id(public_hex: str) -> str:
    """A key's short name in sentences: "3F2A 91C0 7B1E 0D44", the first 64 bits of the
    SHA-256 of its 32 bytes (far beyond making another key with the same id by trying)."""
    digest = _key_digest(public_hex)[:16]
    return " ".join(digest[i : i + 4] for i in range(0, 16, 4))


def fingerprint(public_hex: str) -> str:
    """What two people compare, by phone or side by side, before trusting a key: all of the
    SHA-256, in 16 groups of four."""
    digest = _key_digest(public_hex)
    return " ".join(digest[i : i + 4] for i in range(0, 64, 4))


def public_hex(key: Ed25519PrivateKey) -> str:
    return key.public_key().public_bytes_raw().hex()


def canonical(document: dict[str, Any]) -> bytes:
    encoded: bytes = rfc8785.dumps(document)
    return encoded


def sign(document: dict[str, Any], key: Ed25519PrivateKey) -> bytes:
    """The file's bytes: `document` with this key as its author key, signed, canonical."""
    body = {k: v for k, v in document.items() if k != SIGNATURE}
    body[AUTHOR_KEY] = public_hex(key)
    signature = key.sign(canonical(body)).hex()
    return canonical({**body, SIGNATURE: signature})


@dataclass(frozen=True)
class Checked:
    """What a file's signature says: signed (by `key`), unsigned, or changed after signing."""

    verdict: Verdict
    document: dict[str, Any] | None  # None when the bytes are not a JSON object at all
    key: str = ""  # the author's public key (hex), when signed

    @property
    def key_id(self) -> str:
        return key_id(self.key) if self.key else ""


def _strict_hex(text: Any, size: int) -> bytes | None:
    if not isinstance(text, str) or len(text) != size * 2:
        return None
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        return None
    return raw if raw.hex() == text else None


def check(data: bytes) -> Checked:
    """Read `data` as a possibly signed document. Never raises on bad input."""
    try:
        document = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        # RecursionError: nesting deeper than Python's parser goes; such a file is no pack.
        return Checked("changed" if b'"' + SIGNATURE.encode() + b'"' in data else "unsigned", None)
    if not isinstance(document, dict):
        return Checked("unsigned", None)
    if SIGNATURE not in document:
        return Checked("unsigned", document)
    changed = Checked("changed", document)
    signature = _strict_hex(document.get(SIGNATURE), 64)
    public = _strict_hex(document.get(AUTHOR_KEY), 32)
    if signature is None or public is None:
        return changed
    try:
        if canonical(document) != data:
            return changed
        body = {k: v for k, v in document.items() if k != SIGNATURE}
        Ed25519PublicKey.from_public_bytes(public).verify(signature, canonical(body))
    except (
        InvalidSignature,
        ValueError,
        TypeError,
        RecursionError,
        rfc8785.CanonicalizationError,
    ):
        return changed
    return Checked("signed", document, public.hex())
