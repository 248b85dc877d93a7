"""This person as an author: their signing key (made the first time they share) and the name
colleagues see. The public key is remembered in the settings, so telling this person's own
files apart never needs the keyring; the private key is read only to sign.

A key can be saved to a file protected by a passphrase and brought to a new computer, and a
person can move to a new key: the old key signs a hand-over naming the new one, so colleagues
who trust the old key trust the new one under the same name, with no warning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from understudy_desktop.atomic_file import write_atomically
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.keys import KeyStore
from understudy_desktop.team.signing import key_id, public_hex, sign

PUBLIC_KEY = "team_public_key"
FORMER_KEYS = "team_former_keys"  # this person's earlier public keys (their files stay theirs)
MIN_PASSPHRASE = 8
KEY_FILE_SUFFIX = ".understudy-key"


class KeyFileError(ValueError):
    """A key file could not be saved or used; str() is for a person."""


class Identity:
    def __init__(self, data_dir: Path, settings: Settings, use_keyring: bool = True) -> None:
        self._settings = settings
        self._store = KeyStore(data_dir, use_keyring)
        self._key: Ed25519PrivateKey | None = None

    @property
    def public_key(self) -> str:
        """'' until the first share."""
        return str(self._settings.get(PUBLIC_KEY, "") or "")

    @property
    def key_id(self) -> str:
        return key_id(self.public_key) if self.public_key else ""

    @property
    def kept_where(self) -> str:
        """ "keyring", "file", or '' before the key is first used in this run."""
        return self._store.where

    def _private(self) -> Ed25519PrivateKey:
        if self._key is None:
            self._key = self._store.load_or_create()
            public = public_hex(self._key)
            if public != self.public_key:
                self._settings.set(PUBLIC_KEY, public)
        return self._key

    def sign(self, document: dict[str, Any]) -> bytes:
        return sign(document, self._private())

    @property
    def former_keys(self) -> frozenset[str]:
        return frozenset(str(k) for k in self._settings.get(FORMER_KEYS, []) or [])

    # --- moving a key between computers -----------------------------------------------------
    def export_key(self, path: Path, passphrase: str) -> None:
        """Save the key to `path`, encrypted with `passphrase` (readable by this user only)."""
        if len(passphrase) < MIN_PASSPHRASE:
            raise KeyFileError(
                f"Choose a passphrase of at least {MIN_PASSPHRASE} characters: the file is "
                "only as safe as it is."
            )
        data = self._private().private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.BestAvailableEncryption(passphrase.encode("utf-8")),
        )
        try:
            write_atomically(path, data, mode=0o600)
        except OSError as exc:
            raise KeyFileError(
                f"The key could not be saved there ({exc.strerror or exc}). Nothing was changed."
            ) from exc

    def import_key(self, path: Path, passphrase: str) -> str:
        """Use the key saved in `path` from now on; returns its public key. The key used
        until now (if any) stays this person's, so their earlier files stay "shared by you"."""
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise KeyFileError(f"The file could not be read ({exc.strerror or exc}).") from exc
        if len(data) > 64 * 1024 or b"PRIVATE KEY" not in data:
            raise KeyFileError("This file is not a saved Understudy key. Nothing was changed.")
        try:
            key = serialization.load_pem_private_key(data, passphrase.encode("utf-8"))
        except (ValueError, TypeError) as exc:
            raise KeyFileError(
                "That passphrase does not open this key file. Nothing was changed."
            ) from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise KeyFileError("This file holds another kind of key. Nothing was changed.")
        self._switch_to(key)
        return self.public_key

    def new_key(self, author: str) -> bytes:
        """Move to a new key: returns the hand-over (signed by the old key, naming the new
        one) for the team folder. The old key's files stay this person's."""
        from understudy_desktop.team.documents import handover_document

        old = self._private()
        new = Ed25519PrivateKey.generate()
        handover = sign(handover_document(author, public_hex(old), new), old)
        self._switch_to(new)
        return handover

    def _switch_to(self, key: Ed25519PrivateKey) -> None:
        before = self.public_key
        public = public_hex(key)
        if before == public:
            return
        self._store.replace(key)
        if before:
            self._settings.set(FORMER_KEYS, sorted(self.former_keys | {before}))
        self._settings.set(PUBLIC_KEY, public)
        self._key = key
