"""Which helpdesk, where, and as whom: a connection's settings, checked, and the adapter made
from them. The settings are not secret (they are stored with the queue); the sign-in secret
is kept apart (credentials.py)."""

from __future__ import annotations

import ipaddress
import unicodedata
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2

from understudy_desktop.helpdesk.base import Helpdesk, Kind
from understudy_desktop.redact import Secret

TITLES: dict[str, str] = {"rt": "Request Tracker", "zendesk": "Zendesk", "freshdesk": "Freshdesk"}
SECRET_WORDS: dict[str, str] = {"rt": "Auth token", "zendesk": "API token", "freshdesk": "API key"}


class SettingsError(ValueError):
    """A connection's settings that cannot work; str() is for a person."""


@dataclass(frozen=True)
class Settings:
    kind: Kind
    url: str
    queue: str = ""  # Request Tracker: which queue
    email: str = ""  # Zendesk: the agent the API token belongs to

    @property
    def title(self) -> str:
        return TITLES[self.kind]

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_dict(data: dict[str, Any]) -> Settings:
        kind = str(data.get("kind", ""))
        if kind not in TITLES:
            raise SettingsError("That is not a helpdesk Understudy can connect to.")
        return Settings(
            kind,  # type: ignore[arg-type]
            str(data.get("url", "")),
            str(data.get("queue", "")),
            str(data.get("email", "")),
        )


def checked(settings: Settings) -> Settings:
    """The settings with the address tidied, or SettingsError saying what to fix."""
    url = settings.url.strip()
    if not url:
        raise SettingsError(f"Type the address of your {settings.title}.")
    if "://" not in url:
        url = "https://" + url
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise SettingsError("The address should look like https://help.example.com.")
    if parts.scheme == "http" and not _is_local(parts.hostname):
        # The sign-in would cross the network in the clear.
        raise SettingsError(
            "Use an address starting with https:// (http:// only on this computer)."
        )
    if settings.kind == "rt" and not settings.queue.strip():
        raise SettingsError("Type the name of the Request Tracker queue to work on.")
    if settings.kind == "zendesk" and "@" not in settings.email:
        raise SettingsError("Type the email address you sign in to Zendesk with.")
    base = f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"
    return Settings(settings.kind, base, settings.queue.strip(), settings.email.strip())


def _is_local(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def clean_secret(settings: Settings, secret: str) -> Secret:
    """The sign-in secret as the helpdesk needs it, or SettingsError saying what to fix.
    Invisible characters that come along when a key is copied from chat or a web page (a
    zero-width space, a byte-order mark, a no-break space at either end) are dropped; any
    other character a key cannot have is refused in words, before it reaches a request
    header (where it would fail with the whole header in the error's text)."""
    words = SECRET_WORDS[settings.kind]
    kept = "".join(c for c in secret if unicodedata.category(c) != "Cf").strip(" \t\r\n\u00a0")
    if not kept:
        raise SettingsError(f"Paste the {words.lower()}.")
    if not all(33 <= ord(c) <= 126 for c in kept):
        raise SettingsError(
            f"The {words.lower()} has a character that a {words.lower()} cannot have (a space, "
            f"or a letter with an accent, for example). Copy it again from {settings.title} "
            "and paste it here."
        )
    return Secret(kept)


def make(
    settings: Settings, secret: str, transport: httpx2.BaseTransport | None = None
) -> Helpdesk:
    key = clean_secret(settings, secret)
    if settings.kind == "rt":
        from understudy_desktop.helpdesk.rt import RequestTracker

        return RequestTracker(settings.url, key, settings.queue, transport)
    if settings.kind == "zendesk":
        from understudy_desktop.helpdesk.zendesk import Zendesk

        return Zendesk(settings.url, settings.email, key, transport)
    from understudy_desktop.helpdesk.freshdesk import Freshdesk

    return Freshdesk(settings.url, key, transport)
