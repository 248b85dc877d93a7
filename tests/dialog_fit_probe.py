"""Run in its own process by tests/test_screen_fit.py, on an offscreen screen of a given size
(Qt takes the screen once per process): opens the app's dialogs and prints, for each, whether
it is within the screen and which of its words are cut short."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from PySide6.QtWidgets import QApplication
from test_screen_fit import FIXTURES, clipped, within

from understudy_desktop.app import open_session, prepare_qt
from understudy_desktop.approval.dialog import ConsentDialog, DialogText
from understudy_desktop.packs.importer import parse_pack, plan_import
from understudy_desktop.paths import DataPaths
from understudy_desktop.queue_io import preview_queue_file
from understudy_desktop.shell.connect_dialog import ConnectAgentDialog
from understudy_desktop.shell.helpdesk_choices import ChoicesDialog
from understudy_desktop.shell.helpdesk_dialog import HelpdeskDialog
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, ImportPackDialog
from understudy_desktop.shell.queue_preview import QueuePreviewDialog
from understudy_desktop.shell.settings_dialog import RulesDialog, SettingsDialog
from understudy_desktop.shell.team_dialog import TeamDialog

PACK = FIXTURES / "packs" / "good.understudy-pack.json"


def main() -> None:
    prepare_qt()
    app = QApplication([])
    with tempfile.TemporaryDirectory() as data:
        session = open_session(DataPaths(Path(data)), agent_port=None)
        window = session.window
        steps = "\n".join(f"{n}. Set the status of the ticket to pending." for n in range(1, 31))
        approval = DialogText(
            'Publish "escalate"',
            "It can change many tickets at once (every ticket a search matches).",
            "Claude Desktop",
            sections=(("What it does", steps),),
        )
        queue = preview_queue_file(FIXTURES / "queues" / "freshdesk_export.csv")
        catalogue = session.library.catalogue
        pack = parse_pack(PACK.read_bytes(), PACK.name)
        dialogs = {
            "queue preview": QueuePreviewDialog(queue, window),
            "helpdesk": HelpdeskDialog(session.helpdesk, window),
            "connect an agent": ConnectAgentDialog({"Claude Desktop": "{}"}, window),
            "approval": ConsentDialog(session.consent.gate.ledger, "k", approval, window),
            "settings": SettingsDialog(session.team, window),
            "team rules": RulesDialog(session.team, window),
            "team library": TeamDialog(session.team, lambda: None, window),
            "import a pack": ImportPackDialog(
                plan_import(pack, PACK.name, catalogue, set()),
                PACK.name,
                session.consent.gate.ledger,
                lambda _replace, _mapping: {},
                catalogue,
                parent=window,
            ),
            "export a pack": ExportPackDialog([], "Dana Ortiz", window),
            "changes to choose": ChoicesDialog(session.helpdesk, {}, window),
        }
        report = {}
        for name, dialog in dialogs.items():
            dialog.show()
            report[name] = {"within": within(dialog), "clipped": clipped(dialog)}
            dialog.close()
        print(json.dumps(report))
        session.close()
    del app


if __name__ == "__main__":
    main()
