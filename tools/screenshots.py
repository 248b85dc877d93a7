"""Take screenshots of the main window in a few states (offscreen), for review and the README.

Usage: .venv/bin/python tools/screenshots.py OUT_DIR
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if hasattr(os, "geteuid") and os.geteuid() == 0:
    os.environ["QTWEBENGINE_DISABLE_SANDBOX"] = "1"

from PySide6.QtCore import QEventLoop
from PySide6.QtWidgets import QApplication

from understudy_desktop.app import open_session, prepare_qt
from understudy_desktop.paths import DataPaths
from understudy_desktop.queue_io import preview_queue_file
from understudy_desktop.shell.queue_preview import QueuePreviewDialog
from understudy_desktop.web.js import js_call


def pump(app: QApplication, seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 20)


def main() -> int:
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "screenshots")
    out.mkdir(parents=True, exist_ok=True)
    prepare_qt()
    app = QApplication.instance() or QApplication([])
    with tempfile.TemporaryDirectory() as tmp:
        session = open_session(DataPaths(Path(tmp)))
        window = session.window
        window.resize(1440, 900)
        ready: list[bool] = []
        window.port.ready_changed.connect(ready.append)
        window.load_console()
        window.show()
        while not ready:
            pump(app, 0.05)

        def dispatch(command: str, payload: dict[str, object]) -> None:
            window.page.runJavaScript(
                js_call("window.understudyShell.api.dispatch", command, payload, "ui"), 0
            )

        dispatch("select_ticket", {"ticket_id": "T-1006"})
        dispatch("apply_template", {"ticket_id": "T-1006", "template_id": "refund_approved"})
        pump(app, 1.0)
        window.grab().save(str(out / "console.png"))

        dispatch("filter_tickets", {"text": "bank feed"})
        dispatch("select_ticket", {"ticket_id": "T-1003"})
        pump(app, 1.0)
        window.grab().save(str(out / "filtered.png"))

        fixture = Path(__file__).resolve().parent.parent / "tests/fixtures/queues"
        dialog = QueuePreviewDialog(preview_queue_file(fixture / "helpdesk_comma.csv"), window)
        dialog.show()
        pump(app, 0.5)
        dialog.grab().save(str(out / "open-queue-preview.png"))
        dialog.close()
        session.close()
    print(f"screenshots in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
