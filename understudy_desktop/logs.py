"""The app's log: a rotating file in the data folder's logs/ (Help › Show the log folder), and
a crash handler that writes an unexpected error's traceback there and tells the person where
it is, in plain words."""

from __future__ import annotations

import logging
import logging.handlers
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from understudy_desktop.paths import DataPaths, resolve_data_paths
from understudy_desktop.redact import RedactingFormatter

LOG_NAME = "understudy.log"
MAX_BYTES = 1_000_000
KEEP = 5
_folder: Path | None = None
log = logging.getLogger("understudy")


def configure_logging(paths: DataPaths, level: str = "INFO") -> Path:
    """Log to the console and to logs/understudy.log (five files of 1 MB at most)."""
    global _folder
    # A log that cannot be written (a full disk) must not print tracebacks of its own.
    logging.raiseExceptions = False
    root = logging.getLogger()
    root.setLevel(level)
    keep_libraries_quiet()
    console = logging.StreamHandler()
    # Every handler's text goes through the one redaction point (redact.py).
    console.setFormatter(RedactingFormatter("%(levelname)s %(name)s: %(message)s"))
    root.handlers = [console]
    try:
        paths.logs.mkdir(parents=True, exist_ok=True)
        file_handler = logging.handlers.RotatingFileHandler(
            paths.logs / LOG_NAME, maxBytes=MAX_BYTES, backupCount=KEEP, encoding="utf-8"
        )
    except OSError as exc:
        # A folder it may not write, or a full disk: the start itself says so in a dialog
        # (start_problems.py); until then the console is the log.
        log.warning("no log file in %s: %s", paths.logs, exc)
        return paths.logs / LOG_NAME
    _folder = paths.logs
    file_handler.setFormatter(RedactingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.handlers = [file_handler, console]
    return paths.logs / LOG_NAME


def keep_libraries_quiet() -> None:
    """The HTTP client says every request at INFO: each agent call through understudy-mcp and
    each helpdesk request would write a line, push what the log is for out of its five files,
    and cost the relay a file write per call. Its warnings still come through."""
    logging.getLogger("httpx2").setLevel(logging.WARNING)


def log_folder() -> Path:
    return _folder if _folder is not None else resolve_data_paths().logs


def crash_message(where: Path) -> str:
    return (
        "Something went wrong inside Understudy. Everything you saved is kept.\n\n"
        f"The details were written to {where}. If it happens again, send that file to "
        "whoever helps you with Understudy."
    )


def install_crash_handler(tell: Callable[[str], None]) -> None:
    """Unexpected errors (on any thread) are logged with their traceback, and `tell` shows
    the person a plain message once (it is called on whichever thread failed; the caller
    moves it to the GUI thread)."""
    told = threading.Event()

    def report(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        if issubclass(kind, KeyboardInterrupt):
            sys.__excepthook__(kind, exc, tb)
            return
        log.critical("unexpected error:\n%s", "".join(traceback.format_exception(kind, exc, tb)))
        if not told.is_set():
            told.set()
            tell(crash_message(log_folder() / LOG_NAME))

    def report_thread(args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            report(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = report
    threading.excepthook = report_thread
