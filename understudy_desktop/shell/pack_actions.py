"""File › Import pack… / Export pack… (and drops and the command line): the flows, on the Qt
thread. Reading and checking happen before anything changes; the page publishes last."""

from __future__ import annotations

import getpass
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from understudy_desktop.consent.approvals import ApprovalStore, definition_hash
from understudy_desktop.packs.catalogue import Catalogue
from understudy_desktop.packs.export import PACK_SUFFIX, ExportError, build_pack, pack_bytes
from understudy_desktop.packs.importer import (
    ImportPlan,
    PackError,
    parse_pack,
    plan_import,
    read_pack_bytes,
    renamed,
)
from understudy_desktop.queue_io import write_atomically
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, ImportPackDialog
from understudy_desktop.web.console_link import CallResult, ConsoleLink

log = logging.getLogger(__name__)
PACK_FILTER = "Tool Packs (*.understudy-pack.json *.json)"


def looks_like_pack(path: Path) -> bool:
    if path.name.endswith(PACK_SUFFIX):
        return True
    try:
        head = path.open("rb").read(4096)
    except OSError:
        return False
    return b'"packVersion"' in head


class PackActions(QObject):
    imported = Signal(list)
    import_failed = Signal(str)
    exported = Signal(str)
    export_failed = Signal(str)

    def __init__(
        self,
        window: QWidget,
        link: ConsoleLink,
        approvals: ApprovalStore,
        show_problem: Callable[[str, str], None],
        notify: Callable[[str], None],
    ) -> None:
        super().__init__(window)
        self._window = window
        self._link = link
        self._approvals = approvals
        self._show_problem = show_problem
        self._notify = notify

    # --- import ---------------------------------------------------------------------------
    def choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._window, "Import Tool Pack", "", PACK_FILTER)
        if path:
            self.import_pack(Path(path), confirm=True)

    def import_pack(self, path: Path, confirm: bool, replace: bool = False) -> None:
        try:
            pack = parse_pack(read_pack_bytes(path), path.name)
        except PackError as exc:
            self._fail(str(exc))
            return

        def with_catalogue(catalogue_answer: CallResult) -> None:
            if not catalogue_answer.ok or not isinstance(catalogue_answer.value, dict):
                self._fail("The console is not ready; try again in a moment.")
                return
            catalogue = Catalogue.from_page(catalogue_answer.value)

            def with_tools(tools_answer: CallResult) -> None:
                existing = tools_answer.value if isinstance(tools_answer.value, dict) else {}
                try:
                    plan = plan_import(pack, path.name, catalogue, set(existing))
                except PackError as exc:
                    self._fail(str(exc))
                    return
                replace_clashes = replace
                if confirm:
                    dialog = ImportPackDialog(plan, path.name, self._window)
                    if dialog.exec() != QDialog.DialogCode.Accepted:
                        self.import_failed.emit("cancelled")
                        return
                    replace_clashes = dialog.replace_clashes
                self._carry_out(plan, set(existing), replace_clashes, path.name)

            self._link.call("toolDefinitions", [], with_tools)

        self._link.call("catalogue", [], with_catalogue)

    def _carry_out(
        self, plan: ImportPlan, existing: set[str], replace: bool, filename: str
    ) -> None:
        definitions = [dict(d) for d in plan.definitions]
        taken = set(existing) | {d["name"] for d in definitions}
        replacing: list[str] = []
        for definition in definitions:
            definition["_from"] = definition["name"]
        for definition in definitions:
            if definition["name"] in plan.clashes:
                if replace:
                    replacing.append(definition["name"])
                else:
                    definition["name"] = renamed(definition["name"], taken)
                    taken.add(definition["name"])
        for definition in definitions:
            origin = definition.pop("_from")
            if origin != definition["name"]:
                plan.hold_back = {
                    (definition["name"] if k == origin else k): v for k, v in plan.hold_back.items()
                }
        hashes = [definition_hash(d) for d in definitions]
        previous = {d["name"]: self._approvals.get(d["name"]) for d in definitions}
        # The person's import is the approval: records for exactly these definitions.
        for definition, digest in zip(definitions, hashes, strict=True):
            self._approvals.record(definition["name"], digest)

        def done(result: CallResult) -> None:
            if result.ok and isinstance(result.value, list):
                names = [str(n) for n in result.value]
                for name, reason in plan.hold_back.items():
                    self._link.call("markNeedsReview", [name, reason], lambda _r: None)
                self._notify(f"Imported {len(names)} tool(s) from {filename}.")
                self.imported.emit(names)
                return
            # Nothing was published: take the approvals back.
            for name, record in previous.items():
                if record is None:
                    self._approvals.forget(name)
                else:
                    self._approvals.record(name, record.hash, record.ask_every_time)
            self._fail(f"{filename} was not imported. Nothing was changed.\n{result.error}")

        self._link.call("importTools", [definitions, hashes, replacing], done)

    def _fail(self, message: str) -> None:
        self._show_problem("This Tool Pack could not be imported", message)
        self.import_failed.emit(message)

    # --- export ---------------------------------------------------------------------------
    def choose_export(self) -> None:
        def with_tools(answer: CallResult) -> None:
            tools = answer.value if answer.ok and isinstance(answer.value, dict) else {}
            if not tools:
                self._show_problem("Nothing to export", "Teach and publish a tool first.")
                return
            listed = [t["definition"] for t in tools.values()]
            dialog = ExportPackDialog(listed, self._window)
            if dialog.exec() != QDialog.DialogCode.Accepted or not dialog.chosen():
                return
            path, _ = QFileDialog.getSaveFileName(
                self._window, "Export Tool Pack", f"tools{PACK_SUFFIX}", PACK_FILTER
            )
            if path:
                self.export_pack(Path(path), dialog.chosen())

        self._link.call("toolDefinitions", [], with_tools)

    def export_pack(self, path: Path, names: list[str], author: str | None = None) -> None:
        def with_catalogue(catalogue_answer: CallResult) -> None:
            catalogue = Catalogue.from_page(catalogue_answer.value or {})

            def with_tools(answer: CallResult) -> None:
                tools: dict[str, Any] = answer.value if isinstance(answer.value, dict) else {}
                chosen = [tools[n]["definition"] for n in names if n in tools]
                try:
                    data = pack_bytes(build_pack(chosen, catalogue, author or _author()))
                    write_atomically(path, data)
                except (ExportError, OSError) as exc:
                    self._show_problem("The Tool Pack was not saved", str(exc))
                    self.export_failed.emit(str(exc))
                    return
                self._notify(f"Saved {len(chosen)} tool(s) to {path.name}.")
                self.exported.emit(str(path))

            self._link.call("toolDefinitions", [], with_tools)

        self._link.call("catalogue", [], with_catalogue)


def _author() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""
