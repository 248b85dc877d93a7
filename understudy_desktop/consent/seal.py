"""The seal on an approval: HMAC-SHA256 of (tool name, definition hash) under a key kept
outside the data folder.

The database stores each tool's definition and the SHA-256 the person approved. Someone who
edits the database can change both together; the seal is what they cannot recompute without
the key, which lives in the user's configuration folder (mode 0600), not beside the data. So
an approval forged in a copied, restored or edited data folder is held back for review. The
key is per user and computer: a data folder moved to another computer keeps its tools, held
back until the person reviews them there.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import secrets
from pathlib import Path

from understudy_desktop.atomic_file import write_atomically

KEY_FILE = "approval-seal.key"
KEY_BYTES = 32


class ApprovalSeal:
    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the approval seal key is too short")
        self._key = key

    def seal(self, name: str, digest: str) -> str:
        message = name.encode("utf-8") + b"\x00" + digest.encode("ascii")
        return hmac.new(self._key, message, hashlib.sha256).hexdigest()

    def verify(self, name: str, digest: str, seal: str) -> bool:
        return hmac.compare_digest(self.seal(name, digest), seal)


def load_seal(key_dir: Path) -> ApprovalSeal:
    """The user's seal key, made the first time (owner-only from the first byte)."""
    path = key_dir / KEY_FILE
    try:
        key = bytes.fromhex(path.read_text(encoding="ascii").strip())
        if len(key) == KEY_BYTES:
            return ApprovalSeal(key)
    except (OSError, ValueError):
        pass
    key_dir.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(OSError):
        key_dir.chmod(0o700)
    key = secrets.token_bytes(KEY_BYTES)
    try:
        # Another start may have made one a moment ago: keep whichever landed first.
        write_atomically(path, key.hex().encode("ascii"), mode=0o600, replace=False)
    except FileExistsError:
        return load_seal(key_dir)
    return ApprovalSeal(key)
