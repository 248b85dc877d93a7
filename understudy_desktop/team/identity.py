"""This person as an author: their signing key (made the first time they share) and the name
colleagues see. The public key is remembered in the settings, so telling this person's own
files apart never needs the keyring; the private key is read only to sign."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from understudy_desktop.store.settings import Settings
from understudy_desktop.team.keys import KeyStore
from understudy_desktop.team.signing import key_id, public_hex, sign

PUBLIC_KEY = "team_public_key"


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
