"""The helpdesk's sign-in secret (an RT token, a Zendesk API token, a Freshdesk API key).

Kept in the operating system's keyring where one works, otherwise in a file in the data
folder that only this person can read (0600). Never in the database, a pack, the log or an
error: what the rest of the app holds is the connection's settings (address, queue, email)
and a `Secret` whose repr hides it.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
from pathlib import Path

from understudy_desktop import APP_NAME
from understudy_desktop.atomic_file import write_atomically
from understudy_desktop.redact import Secret

log = logging.getLogger(__name__)

KEYRING_SERVICE = f"{APP_NAME} helpdesk"
FILE = "helpdesk-secret.json"


class Credentials:
    """One secret per data folder and helpdesk address; `where` says where it is kept."""

    def __init__(self, data_dir: Path, use_keyring: bool = True) -> None:
        self._data_dir = data_dir
        self._use_keyring = use_keyring
        self.where = ""

    def _entry(self, address: str) -> str:
        seed = f"{self._data_dir.resolve()}\n{address.strip().lower()}"
        return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:24]

    def load(self, address: str) -> Secret | None:
        found = self._from_keyring(address)
        if found is None:
            found = self._from_file(address)
        return Secret(found) if found is not None else None

    def save(self, address: str, secret: str) -> None:
        """Keep `secret` for `address`; OSError when it cannot be kept anywhere."""
        secret = Secret(secret)
        if self._to_keyring(address, secret):
            self._drop_from_file(address)
            return
        kept = self._file()
        kept[self._entry(address)] = secret
        self._write_file(kept)
        self.where = "file"

    def forget(self, address: str) -> None:
        if self._keyring_usable():
            with contextlib.suppress(Exception):
                import keyring

                keyring.delete_password(KEYRING_SERVICE, self._entry(address))
        self._drop_from_file(address)

    # --- the keyring -------------------------------------------------------------------
    def _keyring_usable(self) -> bool:
        if not self._use_keyring:
            return False
        try:
            import keyring

            # The fail and null backends (priority 0 and below) stand for "no keyring here".
            return float(getattr(keyring.get_keyring(), "priority", 0)) > 0
        except Exception as exc:
            log.info("no usable keyring: %s", type(exc).__name__)
            return False

    def _from_keyring(self, address: str) -> str | None:
        if not self._keyring_usable():
            return None
        try:
            import keyring

            found = keyring.get_password(KEYRING_SERVICE, self._entry(address))
        except Exception as exc:
            log.info("the keyring could not be read: %s", type(exc).__name__)
            return None
        if found:
            self.where = "keyring"
        return found or None

    def _to_keyring(self, address: str, secret: str) -> bool:
        if not self._keyring_usable():
            return False
        try:
            import keyring

            keyring.set_password(KEYRING_SERVICE, self._entry(address), secret)
            # A keyring that accepts and forgets would lose the sign-in: read it back.
            if keyring.get_password(KEYRING_SERVICE, self._entry(address)) != secret:
                return False
        except Exception as exc:
            log.info("the keyring could not keep the sign-in: %s", type(exc).__name__)
            return False
        self.where = "keyring"
        return True

    # --- the file fallback -----------------------------------------------------------------
    def _file(self) -> dict[str, str]:
        try:
            kept = json.loads((self._data_dir / FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return {}
        return {str(k): str(v) for k, v in kept.items()} if isinstance(kept, dict) else {}

    def _write_file(self, kept: dict[str, str]) -> None:
        path = self._data_dir / FILE
        write_atomically(path, json.dumps(kept).encode("utf-8"), mode=0o600)
        os.chmod(path, 0o600)  # an older file's looser mode is not kept

    def _from_file(self, address: str) -> str | None:
        found = self._file().get(self._entry(address))
        if found:
            self.where = "file"
        return found or None

    def _drop_from_file(self, address: str) -> None:
        kept = self._file()
        if kept.pop(self._entry(address), None) is not None:
            if kept:
                self._write_file(kept)
            else:
                with contextlib.suppress(FileNotFoundError):
                    (self._data_dir / FILE).unlink()
