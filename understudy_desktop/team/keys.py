"""The person's signing key: made the first time they share, kept in the operating system's
keyring where one works, otherwise in the data folder, readable by them alone (0600).

One key per data folder (a data folder is one person's): the keyring entry is named after the
folder, so two people on one computer, or a test's two app instances, never share a key. The
public half is not secret and is remembered in the settings, so that telling "my files" from a
colleague's never needs the keyring.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from understudy_desktop import APP_NAME
from understudy_desktop.atomic_file import write_atomically

log = logging.getLogger(__name__)
KEY_FILE = "team-signing.key"
KEYRING_SERVICE = f"{APP_NAME} signing key"


def _entry_name(data_dir: Path) -> str:
    return hashlib.sha256(str(data_dir.resolve()).encode("utf-8")).hexdigest()[:16]


def _from_hex(text: str | None) -> Ed25519PrivateKey | None:
    if not text:
        return None
    try:
        raw = bytes.fromhex(text.strip())
        return Ed25519PrivateKey.from_private_bytes(raw) if len(raw) == 32 else None
    except ValueError:
        return None


class KeyStore:
    """Where this person's private key lives; `where` says which, for the Settings window."""

    def __init__(self, data_dir: Path, use_keyring: bool = True) -> None:
        self._data_dir = data_dir
        self._use_keyring = use_keyring
        self.where = ""

    def load_or_create(self) -> Ed25519PrivateKey:
        found = self._from_keyring() or self._from_file()
        if found is not None:
            return found
        key = Ed25519PrivateKey.generate()
        text = key.private_bytes_raw().hex()
        if not self._to_keyring(text):
            try:
                write_atomically(
                    self._data_dir / KEY_FILE, text.encode("ascii"), mode=0o600, replace=False
                )
            except FileExistsError:
                kept = self._from_file()
                if kept is not None:
                    return kept  # another start made one a moment ago: theirs wins
                # A damaged key file signs nothing: replace it, or every start would make
                # (and forget) a new key, and colleagues would see a stranger in this name.
                write_atomically(self._data_dir / KEY_FILE, text.encode("ascii"), mode=0o600)
            self.where = "file"
        return key

    def replace(self, key: Ed25519PrivateKey) -> None:
        """Keep `key` instead of the one kept now (a key brought from another computer, or
        a new one this person moved to). OSError when it cannot be kept."""
        text = key.private_bytes_raw().hex()
        if self._to_keyring(text):
            # The file fallback, if any, must not bring the old key back on a later start.
            with contextlib.suppress(FileNotFoundError):
                (self._data_dir / KEY_FILE).unlink()
            return
        write_atomically(self._data_dir / KEY_FILE, text.encode("ascii"), mode=0o600)
        self.where = "file"

    # --- the keyring -------------------------------------------------------------------------
    def _keyring_usable(self) -> bool:
        if not self._use_keyring:
            return False
        try:
            import keyring

            # The fail and null backends (priority 0 and below) stand for "no keyring here".
            return float(getattr(keyring.get_keyring(), "priority", 0)) > 0
        except Exception as exc:  # a broken desktop session must not stop sharing
            log.info("no usable keyring: %s", exc)
            return False

    def _from_keyring(self) -> Ed25519PrivateKey | None:
        if not self._keyring_usable():
            return None
        try:
            import keyring

            key = _from_hex(keyring.get_password(KEYRING_SERVICE, _entry_name(self._data_dir)))
        except Exception as exc:
            log.info("the keyring could not be read: %s", exc)
            return None
        if key is not None:
            self.where = "keyring"
        return key

    def _to_keyring(self, text: str) -> bool:
        if not self._keyring_usable():
            return False
        try:
            import keyring

            name = _entry_name(self._data_dir)
            keyring.set_password(KEYRING_SERVICE, name, text)
            # Read it back: a keyring that accepts and forgets would lose the key.
            if keyring.get_password(KEYRING_SERVICE, name) != text:
                return False
        except Exception as exc:
            log.info("the keyring could not keep the key: %s", exc)
            return False
        self.where = "keyring"
        return True

    # --- the file fallback -------------------------------------------------------------------
    def _from_file(self) -> Ed25519PrivateKey | None:
        try:
            text = (self._data_dir / KEY_FILE).read_text(encoding="ascii")
        except OSError:
            return None
        key = _from_hex(text)
        if key is not None:
            self.where = "file"
        return key
