"""Render every screen a person meets, at 1400x900 and at 1024x640, into docs/screens/ (for
review, and for the user guide in the README). Runs the real app offscreen.

Usage: .venv/bin/python tools/screenshots.py [OUT_DIR] [--dark]
(--dark: the dark theme, into OUT_DIR/dark; the browser engine takes the theme once per
process, so each theme is its own run.)
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from harness import application, js, start_console, wait  # noqa: E402
from PySide6.QtWidgets import QApplication, QDialog, QMessageBox, QWidget  # noqa: E402

from understudy_desktop.app import Session  # noqa: E402
from understudy_desktop.consent.ledger import ConsentLedger  # noqa: E402
from understudy_desktop.library.refs import missing_references  # noqa: E402
from understudy_desktop.packs.importer import parse_pack, plan_import  # noqa: E402
from understudy_desktop.queue_io import preview_queue_file  # noqa: E402
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, ImportPackDialog  # noqa: E402
from understudy_desktop.shell.queue_preview import QueuePreviewDialog  # noqa: E402
from understudy_desktop.shell.settings_dialog import SettingsDialog  # noqa: E402
from understudy_desktop.store.database import Database  # noqa: E402
from understudy_desktop.store.settings import Settings  # noqa: E402
from understudy_desktop.team.folder import write_shared  # noqa: E402
from understudy_desktop.team.identity import Identity  # noqa: E402

SIZES = {"1400x900": (1400, 900), "1024x640": (1024, 640)}
FIXTURES = ROOT / "tests" / "fixtures"

TEACH = """(() => {
  const $ = (id) => document.getElementById(id);
  $('teach-button').click();
  $('row-T-1006').click();
  for (const [id, v] of [['assignee-select', 'priya'], ['priority-select', 'high'],
                         ['template-select', 'refund_approved']]) {
    const s = $(id); s.value = v; s.dispatchEvent(new Event('change'));
  }
  $('template-apply').click();
  $('teach-button').click();
  return true;
})()"""


def settle(app: QApplication, seconds: float = 0.6) -> None:
    import time

    end = time.monotonic() + seconds
    wait(app, lambda: time.monotonic() > end, seconds + 5)


def save(widget: QWidget, out: Path, name: str) -> None:
    widget.grab().save(str(out / f"{name}.png"))


def dialog_shot(
    app: QApplication, dialog: QDialog, out: Path, name: str, size: tuple[int, int]
) -> None:
    # A dialog is never bigger than the screen it opens on.
    dialog.resize(min(dialog.width(), size[0]), min(dialog.height(), size[1]))
    dialog.show()
    settle(app, 0.4)
    save(dialog, out, name)
    dialog.close()


def page(app: QApplication, session: Session, script: str) -> object:
    return js(app, session.window.page, script)


def pack_shots(app: QApplication, session: Any, out: Path, size: tuple[int, int]) -> None:
    """Exporting a pack, and a colleague's pack previewed before import."""
    window = session.window
    tools = session.library.tools()
    dialog_shot(app, ExportPackDialog(tools, "Dana Ortiz", window), out, "09-export", size)
    raw = json.loads((ROOT / "packs" / "refund-desk.understudy-pack.json").read_text())
    spec = raw["tools"][0]["steps"][1]["args"]["assignee"]
    spec.update(value="p-17", ref={"kind": "person", "name": "P. Raman"})
    raw["author"] = "Dana Ortiz"
    pack = parse_pack(json.dumps(raw).encode(), "refund-desk.understudy-pack.json")
    catalogue = session.library.catalogue
    plan = plan_import(pack, "refund-desk.understudy-pack.json", catalogue, set())
    assert window.keeper is not None
    known = window.keeper.known()
    preview = ImportPackDialog(
        plan,
        "refund-desk.understudy-pack.json",
        ConsentLedger(),
        lambda _r, _m: {},
        catalogue,
        missing_references(plan.definitions, catalogue, known),
        known,
        window,
    )
    dialog_shot(app, preview, out, "10-import-preview", size)


def colleague(root: Path) -> tuple[Database, Identity]:
    root.mkdir(parents=True, exist_ok=True)
    db = Database(root)
    return db, Identity(root, Settings(db), use_keyring=False)


def team_pack(
    author: str, description: str, assignee: str = "priya", days_ago: int = 0
) -> dict[str, Any]:
    pack = json.loads((FIXTURES / "packs" / "good.understudy-pack.json").read_text())
    pack["author"] = author
    moment = datetime.now(UTC) - timedelta(days=days_ago)
    pack["created"] = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    pack["tools"][0]["description"] = description
    pack["tools"][0]["steps"][1]["args"]["assignee"]["value"] = assignee
    return pack


def review_shot(
    app: QApplication, session: Any, item: Any, out: Path, name: str, size: tuple[int, int]
) -> None:
    """The review a person opens from the team window, photographed, then accepted."""

    def photograph(dialog: ImportPackDialog) -> int:
        dialog.resize(min(dialog.width(), size[0]), min(dialog.height(), size[1]))
        dialog.show()
        settle(app, 0.4)
        save(dialog, out, name)
        dialog.import_button.click()
        return int(dialog.result())

    original = ImportPackDialog.exec
    ImportPackDialog.exec = photograph  # type: ignore[method-assign]
    try:
        session.team.review(item)
    finally:
        ImportPackDialog.exec = original  # type: ignore[method-assign]


def team_shots(
    app: QApplication, session: Any, scratch: Path, out: Path, size: tuple[int, int]
) -> None:
    """A colleague's signed tool reviewed; the team window with an update, a new tool and an
    unsigned one; an update's old -> new; a known name with a new key; Settings."""
    # A neutral path: the team window shows the folder, and no machine's paths go in docs/.
    folder = Path(tempfile.gettempdir()) / "Support team library"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    team = session.team
    dana_db, dana = colleague(scratch / "dana")
    other_db, other = colleague(scratch / "other")
    try:
        team.set_author("Sam Lee")
        team.watcher.set_poll_ms(300)
        team.set_folder(folder)
        write_shared(
            folder,
            "tools",
            dana.sign(team_pack("Dana Ortiz", "Assign a refund ticket.", days_ago=3)),
        )
        wait(app, lambda: len(team.view.offered) == 1, 20)
        review_shot(app, session, team.view.offered[0], out, "13-team-review", size)
        wait(app, lambda: team.status == "Team library: nothing new", 20)

        update = team_pack("Dana Ortiz", "Assign a refund ticket to the team lead.", "aisha")
        write_shared(folder, "tools", dana.sign(update))
        unsigned = team_pack("Lee Chen", "Tag a ticket for the billing team.")
        unsigned["tools"][0]["name"] = "tag_for_billing"
        write_shared(folder, "tools", json.dumps(unsigned).encode())
        wait(app, lambda: len(team.view.offered) == 2, 20)
        dialog = session.window.team_menu.show_team()
        dialog.resize(min(dialog.width(), size[0]), min(dialog.height(), size[1]))
        settle(app)
        save(dialog, out, "14-team-library")
        history = dialog.show_history()
        history.resize(min(history.width(), size[0]), min(history.height(), size[1]))
        settle(app)
        save(history, out, "19-team-history")
        history.close()
        dialog.close()
        (item,) = [t for t in team.view.offered if t.state == "update"]
        review_shot(app, session, item, out, "15-team-update", size)

        impostor = team_pack("Dana Ortiz", "Assign every ticket to me.")
        impostor["tools"][0]["name"] = "assign_refund_fast"
        write_shared(folder, "tools", other.sign(impostor))
        wait(app, lambda: any(t.impostor_of for t in team.view.offered), 20)
        (item,) = [t for t in team.view.offered if t.impostor_of]
        original = ImportPackDialog.exec

        def photograph(dialog: ImportPackDialog) -> int:
            dialog_shot(app, dialog, out, "16-team-new-key-warning", size)
            return int(QDialog.DialogCode.Rejected)

        ImportPackDialog.exec = photograph  # type: ignore[method-assign]
        try:
            team.review(item)
        finally:
            ImportPackDialog.exec = original  # type: ignore[method-assign]
        settings = SettingsDialog(team, session.window)
        dialog_shot(app, settings, out, "17-settings", size)
        settings = SettingsDialog(team, session.window)
        settings.tabs.setCurrentIndex(3)
        dialog_shot(app, settings, out, "20-settings-team-lead", size)
        team.set_folder(None)
    finally:
        dana_db.close()
        other_db.close()
        shutil.rmtree(folder, ignore_errors=True)


def helpdesk_shots(
    app: QApplication, session: Any, rt: Any, out: Path, size: tuple[int, int]
) -> None:
    """Connecting to a Request Tracker, the connected queue, and a change to choose."""
    from helpdesk_helpers import make_desk

    from understudy_desktop.shell.helpdesk_choices import ChoicesDialog

    window = session.window
    page(app, session, "document.getElementById('library-panel').hidden = true; true")
    desk = make_desk(rt, tickets=4)
    dialog = window.helpdesk_menu.show_connect()
    dialog.kind.setCurrentIndex(dialog.kind.findData("rt"))
    dialog.address.setText(rt.web_url)
    dialog.queue.setText(desk.queue)
    dialog.secret.setText(rt.token)
    dialog.test_button.click()
    wait(app, lambda: dialog.said.text().startswith("Connected"), 30)
    dialog.resize(min(dialog.sizeHint().width(), size[0]), min(dialog.sizeHint().height(), size[1]))
    settle(app)
    save(dialog, out, "21-connect-helpdesk")
    dialog.connect_button.click()
    wait(app, lambda: dialog.result_state is not None, 60)
    first = f"RT-{desk.ids[0]}"
    wait(app, lambda: bool(page(app, session, f"!!document.getElementById('row-{first}')")), 30)
    rt.rest("PUT", f"ticket/{desk.ids[1]}", {"Priority": 50})  # a colleague, in RT
    change = {"ticket_id": f"RT-{desk.ids[1]}", "priority": "urgent"}
    page(
        app,
        session,
        f"window.understudyShell.api.dispatch('set_ticket_priority', {json.dumps(change)}); true",
    )
    notice = window.helpdesk_menu.notice
    wait(app, lambda: notice.text() == "1 change to choose", 30)
    page(app, session, f"document.getElementById('row-RT-{desk.ids[1]}').click(); true")
    settle(app)
    save(window, out, "22-connected-queue")
    people = {str(p["id"]): str(p["name"]) for p in session.helpdesk.people()}
    dialog_shot(
        app, ChoicesDialog(session.helpdesk, people, window), out, "23-changes-to-choose", size
    )


def asked_shot(
    app: QApplication, session: Session, out: Path, name: str, size: tuple[int, int]
) -> Any:
    """The question the shell asks next (its own dialog), fitted to the screen and saved;
    returned for the caller to answer."""
    gate = session.consent.gate
    wait(app, lambda: bool(gate.open_dialogs()), 20)
    dialog = gate.open_dialogs()[0]
    dialog.resize(min(dialog.width(), size[0]), min(dialog.height(), size[1]))
    settle(app)
    save(dialog, out, name)
    return dialog


SELECT_THREE = (
    "for (const b of document.querySelectorAll('button[aria-label^=\"Close\"]')) b.click();"
    " for (const id of ['T-1002', 'T-1003', 'T-1004']) document.getElementById('row-' + id)"
    ".dispatchEvent(new MouseEvent('click', {bubbles: true, ctrlKey: true})); true"
)


def selection_shots(app: QApplication, session: Session, out: Path, size: tuple[int, int]) -> None:
    """Three tickets selected, their tools listed, the shell's question before the run, and
    the window a long file open shows."""
    from understudy_desktop.queue_io.progress import ReadWatch
    from understudy_desktop.shell.open_progress import OpenProgress

    window = session.window
    page(app, session, SELECT_THREE)
    page(app, session, "document.getElementById('selection-run').click(); true")
    settle(app)
    save(window, out, "24-selection-tools")
    page(app, session, "document.querySelector('#selection-tools button').click(); true")
    asked_shot(app, session, out, "25-run-on-selection", size).reject_button.click()
    page(
        app, session, "document.dispatchEvent(new KeyboardEvent('keydown', {key: 'Escape'})); true"
    )
    watch = ReadWatch()
    watch.tickets = 42_500
    progress = OpenProgress("helpdesk export.csv", watch, window)
    progress.show()
    settle(app)
    save(progress, out, "26-opening-a-big-file")
    progress.finish()


def shoot(app: QApplication, out: Path, size: tuple[int, int], rt: Any = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_console(app, Path(tmp) / "data")
        window = session.window
        window.resize(*size)
        settle(app)
        save(window, out, "01-welcome")
        page(app, session, "document.getElementById('welcome-dismiss').click(); true")
        page(app, session, "document.getElementById('row-T-1006').click(); true")
        settle(app)
        save(window, out, "02-console")
        page(
            app,
            session,
            "document.dispatchEvent(new KeyboardEvent('keydown', {key: '?'})); true",
        )
        settle(app)
        save(window, out, "03-shortcuts")
        page(app, session, "document.getElementById('shortcuts-close').click(); true")

        page(app, session, TEACH)
        asked_shot(app, session, out, "18-keep-recording", size).approve_button.click()
        drafted = "Boolean(document.getElementById('draft-name'))"
        wait(app, lambda: bool(page(app, session, drafted)))
        settle(app)
        save(window, out, "04-make-a-tool")
        page(app, session, "document.getElementById('ask-assignee').click(); true")
        settle(app)
        save(window, out, "05-make-a-tool-choosing")
        page(app, session, "document.getElementById('ask-assignee').click(); true")
        page(app, session, "document.getElementById('draft-publish').click(); true")
        asked_shot(app, session, out, "06-approval-dialog", size).approve_button.click()
        wait(app, lambda: bool(session.library.tools()), 20)

        page(app, session, "document.getElementById('library-button').click(); true")
        settle(app)
        save(window, out, "07-library")
        page(
            app,
            session,
            "document.querySelector('[data-tool] .btn.primary').click(); true",
        )
        settle(app)
        save(window, out, "08-run-form")

        selection_shots(app, session, out, size)
        pack_shots(app, session, out, size)

        queue = preview_queue_file(FIXTURES / "queues" / "freshdesk_export.csv")
        dialog_shot(app, QueuePreviewDialog(queue, window), out, "11-open-helpdesk-file", size)

        window.show_about()
        settle(app)
        about = next(b for b in window.findChildren(QMessageBox) if b.isVisible())
        save(about, out, "12-about")
        about.close()
        team_shots(app, session, Path(tmp), out, size)
        if rt is not None:
            helpdesk_shots(app, session, rt, out, size)
        session.close()


def main() -> int:
    args = [a for a in sys.argv[1:] if a != "--dark"]
    out = Path(args[0]) if args else ROOT / "docs" / "screens"
    if "--dark" in sys.argv[1:]:
        os.environ["UNDERSTUDY_THEME"] = "dark"
        out = out / "dark"
    app = application()
    sys.path.insert(0, str(ROOT / "tests"))
    from rt_server import RTServer, rt_available

    with tempfile.TemporaryDirectory() as tmp:
        # The helpdesk screens need a Request Tracker (./run-tests installs it).
        rt = RTServer(Path(tmp) / "rt") if rt_available() else None
        if rt is not None:
            rt.start()
            for login, name in (("alice", "Alice Martin"), ("bob", "Bob Okafor")):
                rt.create_user(login, name, f"{login}@example.com")
        try:
            for name, size in SIZES.items():
                shoot(app, out / name, size, rt)
                print(f"wrote {out / name}")
        finally:
            if rt is not None:
                rt.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
