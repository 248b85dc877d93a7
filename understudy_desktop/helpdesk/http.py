"""The one HTTP client every adapter uses: its timeouts, and the helpdesk's refusals turned
into the errors of base.py in words a person can act on.

Nothing here logs a request's headers or puts them in an error: they carry the credentials.
"""

from __future__ import annotations

import email.utils
import logging
import time
from typing import Any

import httpx2

from understudy_desktop.helpdesk.base import (
    GoneError,
    HelpdeskError,
    NotAllowedError,
    RefusedError,
    SignInError,
    UnreachableError,
)

log = logging.getLogger(__name__)

TIMEOUT = httpx2.Timeout(20.0, connect=5.0)
# A helpdesk that asks for a longer pause than this is treated as unreachable for now; the
# outbox tries again on its own schedule rather than hold a thread for an hour.
MAX_WAIT_S = 300.0


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Retry-After as seconds from now: either a number of seconds or an HTTP date."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        moment = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, moment.timestamp() - (time.time() if now is None else now))


class Http:
    """Requests to one helpdesk: `title` names it in errors ("Zendesk did not answer"), and
    `where`, if given, what the connection works on ("in the queue “General”"), so that a
    refusal of the account says where it may not act."""

    def __init__(
        self,
        base_url: str,
        title: str,
        headers: dict[str, str],
        auth: tuple[str, str] | None = None,
        transport: httpx2.BaseTransport | None = None,
        where: str = "",
    ) -> None:
        self.title = title
        self.where = where
        self._client = httpx2.Client(
            base_url=base_url,
            headers=headers,
            auth=auth,
            timeout=TIMEOUT,
            transport=transport,
            follow_redirects=False,
        )

    def close(self) -> None:
        self._client.close()

    def call(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
        ok: tuple[int, ...] = (200, 201),
    ) -> httpx2.Response:
        """The response when its status is in `ok`; a HelpdeskError otherwise."""
        try:
            response = self._client.request(method, path, json=json, params=params, headers=headers)
        except httpx2.TimeoutException:
            raise UnreachableError(f"{self.title} did not answer in time.") from None
        except httpx2.TransportError as exc:
            log.info("%s unreachable: %s", self.title, type(exc).__name__)
            raise UnreachableError(f"{self.title} could not be reached.") from None
        if response.status_code in ok:
            if response.status_code in (200, 201):  # a 412 or a 400 says its own thing
                _readable(response, self.title)
            return response
        raise self.error(response)

    def error(self, response: httpx2.Response) -> HelpdeskError:
        status = response.status_code
        said = _said(response)
        if status == 429 or status == 503:
            wait = retry_after(response.headers.get("retry-after"))
            if wait is not None and wait > MAX_WAIT_S:
                wait = MAX_WAIT_S
            return UnreachableError(f"{self.title} asked to wait a moment.", wait, "busy")
        if status == 401:
            return SignInError(f"{self.title} did not accept the sign-in details.")
        if status == 403:
            where = f" {self.where}" if self.where else ""
            return NotAllowedError(f"{self.title} does not let this account do that{where}.")
        if status == 404:
            return GoneError(f"{self.title} does not have that ticket (any more).")
        if status >= 500:
            return UnreachableError(
                f"{self.title} had a problem of its own ({status}).", why="trouble"
            )
        return RefusedError(f"{self.title} refused the change{': ' + said if said else '.'}")


def _readable(response: httpx2.Response, title: str) -> None:
    """Every API these adapters use answers JSON. Anything else with a 200 (a proxy's page, a
    single sign-on's login form, a cut-off body) means the helpdesk is not really answering:
    wait and try again, as when it cannot be reached, rather than read it as an answer."""
    try:
        response.json()
    except ValueError:
        kind = response.headers.get("content-type", "").split(";")[0] or "nothing"
        log.info("%s answered %s with %s, not its API's JSON", title, response.url.path, kind)
        raise UnreachableError(
            f"{title} answered with a page that is not its own (a sign-in page, or a network "
            "proxy's).",
            why="unreadable",
        ) from None


def _said(response: httpx2.Response) -> str:
    """The helpdesk's own short message, if it gave one (never more than a line)."""
    try:
        body = response.json()
    except ValueError:
        return ""
    text = ""
    if isinstance(body, dict):
        for key in ("message", "description", "error", "details"):
            value = body.get(key)
            if isinstance(value, str) and value.strip():
                text = value
                break
            if isinstance(value, dict) and isinstance(value.get("message"), str):
                text = value["message"]
                break
        errors = body.get("errors")
        if not text and isinstance(errors, list) and errors and isinstance(errors[0], dict):
            text = str(errors[0].get("message") or "")
    return " ".join(text.split())[:200]
