"""A team lead's invitation: how a newcomer's first trust is not a guess (TUF ships its first
root with the client; here the lead hands it over, in person or by a channel the team
already trusts).

Anyone can sign rules under the name "Lee Park", so a list of names in the team folder is
no root of trust. The lead gives a newcomer a short code (80 bits of the SHA-256 of the
lead's key, in 16 letters and digits: making another key with the same code by trying keys
is out of reach), or a file that carries the whole key. The newcomer's app follows the key
the code or file names and no other.

Codes use Crockford's base 32 (no I, L, O or U), so a code read aloud or typed from paper is
read back the same: O is taken for 0, I and L for 1, case, spaces and dashes do not matter."""

from __future__ import annotations

import base64
import hashlib
import re
from dataclasses import dataclass
from typing import Any

from understudy_desktop.team.documents import AUTHOR, HEX_KEY, now_iso
from understudy_desktop.team.signing import check

CODE_LENGTH = 16  # characters, 5 bits each
EXAMPLE_CODE = "7K2M-Q9RB-X4TD-1VHE"  # the shape of one, for messages
SUFFIX = ".understudy-invitation"
MAX_FILE_BYTES = 16 * 1024
_CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_FROM_RFC4648 = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", _CROCKFORD)
_READ_AS = str.maketrans({"O": "0", "I": "1", "L": "1"})


class InvitationError(ValueError):
    """An invitation that cannot be used; str() is for a person."""


def code_of(public_hex: str) -> str:
    """The invitation code of a key: "7K2M-Q9RB-X4TD-1VHE"."""
    digest = hashlib.sha256(bytes.fromhex(public_hex)).digest()[:10]
    text = base64.b32encode(digest).decode("ascii").translate(_FROM_RFC4648)
    return "-".join(text[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def normal_code(typed: str) -> str | None:
    """A code as typed, in its one spelling ("7K2M-Q9RB-X4TD-1VHE"), or None if it is not one."""
    text = "".join(typed.split()).replace("-", "").upper().translate(_READ_AS)
    if len(text) != CODE_LENGTH or any(c not in _CROCKFORD for c in text):
        return None
    return "-".join(text[i : i + 4] for i in range(0, CODE_LENGTH, 4))


def matches(code: str, public_hex: str) -> bool:
    return bool(code) and normal_code(code) == code_of(public_hex)


@dataclass(frozen=True)
class Invitation:
    key: str  # the lead's public key (hex)
    name: str  # the name the lead gave


def invitation_document(name: str, public_hex: str) -> dict[str, Any]:
    return {
        "invitationVersion": 1,
        "author": name[:AUTHOR],
        "created": now_iso(),
        "code": code_of(public_hex),
    }


def read_invitation(data: bytes) -> Invitation:
    """The lead an invitation file names. Raises InvitationError in words."""
    if len(data) > MAX_FILE_BYTES:
        raise InvitationError("This file is too large to be an invitation. Nothing was changed.")
    checked = check(data)
    document = checked.document
    if checked.verdict == "changed":
        raise InvitationError(
            "This invitation was changed after your team lead made it, so it cannot be used. "
            "Ask them for a new one. Nothing was changed."
        )
    if (
        checked.verdict != "signed"
        or not isinstance(document, dict)
        or document.get("invitationVersion") != 1
    ):
        raise InvitationError("This file is not an Understudy invitation. Nothing was changed.")
    key = checked.key
    if re.fullmatch(HEX_KEY, key) is None or document.get("code") != code_of(key):
        raise InvitationError("This invitation does not hold together. Nothing was changed.")
    name = document.get("author")
    return Invitation(key, name[:AUTHOR] if isinstance(name, str) else "")
