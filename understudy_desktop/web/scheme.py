"""The `understudy://app/` scheme that serves web_assets/ to the page.

A custom secure scheme gives the console a stable origin (so its IndexedDB survives restarts
without a fixed TCP port) and keeps every file the page can load inside web_assets/.
"""

from __future__ import annotations

import logging
import mimetypes
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from PySide6.QtCore import QBuffer, QByteArray, QObject, QUrl
from PySide6.QtWebEngineCore import (
    QWebEngineUrlRequestJob,
    QWebEngineUrlScheme,
    QWebEngineUrlSchemeHandler,
)

from understudy_desktop.web.handoff import Handoff

log = logging.getLogger(__name__)

SCHEME = "understudy"
HOST = "app"
ORIGIN = f"{SCHEME}://{HOST}"
START_URL = f"{ORIGIN}/index.html"

# Explicit types: the platform's mimetypes table differs between Linux, macOS and Windows,
# and a module script served as text/plain is refused by Chromium.
_MIME = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".woff2": "font/woff2",
    ".map": "application/json",
    ".txt": "text/plain; charset=utf-8",
}


def mime_type_for(path: Path) -> str:
    known = _MIME.get(path.suffix.lower())
    if known:
        return known
    guessed, _ = mimetypes.guess_type(path.name)
    return guessed or "application/octet-stream"


@dataclass(frozen=True)
class AssetResponse:
    """What the scheme answers: a file and its type, or an HTTP-style refusal."""

    status: int
    path: Path | None = None
    mime: str = ""


def resolve_asset(root: Path, raw_path: str) -> AssetResponse:
    """Map the URL path (still percent-encoded) to a file strictly inside `root`.

    Anything that could climb out (`..`, encoded `%2e%2e`, backslashes, NUL, absolute paths
    smuggled after decoding, symlinks pointing outside) is a 404, never an error page that
    tells the caller what exists.
    """
    decoded = unquote(raw_path)
    if "\x00" in decoded or "\\" in decoded:
        return AssetResponse(404)
    parts = PurePosixPath(decoded).parts
    rel = [p for p in parts if p != "/"]
    if not rel:
        rel = ["index.html"]
    if any(p in ("..", ".") or p.startswith("~") for p in rel):
        return AssetResponse(404)
    candidate = root.joinpath(*rel)
    try:
        resolved = candidate.resolve(strict=True)
    except (OSError, RuntimeError):
        return AssetResponse(404)
    if not resolved.is_relative_to(root.resolve()) or not resolved.is_file():
        return AssetResponse(404)
    return AssetResponse(200, resolved, mime_type_for(resolved))


def register_scheme() -> None:
    """Must run before QApplication exists, or Chromium treats the scheme as unknown."""
    scheme = QWebEngineUrlScheme(SCHEME.encode())
    scheme.setSyntax(QWebEngineUrlScheme.Syntax.Host)
    scheme.setFlags(
        QWebEngineUrlScheme.Flag.SecureScheme
        | QWebEngineUrlScheme.Flag.LocalScheme
        | QWebEngineUrlScheme.Flag.LocalAccessAllowed
        | QWebEngineUrlScheme.Flag.CorsEnabled
        | QWebEngineUrlScheme.Flag.FetchApiAllowed
    )
    QWebEngineUrlScheme.registerScheme(scheme)


class AssetSchemeHandler(QWebEngineUrlSchemeHandler):
    """Serves GET requests for understudy://app/… from web_assets/."""

    def __init__(self, root: Path, handoff: Handoff, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._root = root.resolve()
        self._handoff = handoff

    def requestStarted(self, job: QWebEngineUrlRequestJob) -> None:  # noqa: N802 (Qt name)
        url: QUrl = job.requestUrl()
        method = bytes(job.requestMethod().data()).decode("ascii", "replace")
        if url.host() != HOST or method not in ("GET", "HEAD"):
            log.warning("refused %s %s", method, url.toDisplayString())
            job.fail(QWebEngineUrlRequestJob.Error.RequestDenied)
            return
        raw = url.path(QUrl.ComponentFormattingOption.FullyEncoded)
        handed = self._handoff.take(raw)
        if handed is not None:
            self._reply(job, handed[0], handed[1])
            return
        answer = resolve_asset(self._root, raw)
        if answer.status != 200 or answer.path is None:
            log.info("not found: %s", url.toDisplayString())
            job.fail(QWebEngineUrlRequestJob.Error.UrlNotFound)
            return
        self._reply(job, answer.path.read_bytes(), answer.mime)

    @staticmethod
    def _reply(job: QWebEngineUrlRequestJob, data: bytes, mime: str) -> None:
        buffer = QBuffer(job)  # owned by the job, freed with it
        buffer.setData(QByteArray(data))
        job.reply(mime.encode(), buffer)
