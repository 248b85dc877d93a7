"""File › Import pack… / Export pack… (and drops and the command line): the flows, on the Qt
thread. Reading and checking happen before anything changes. The import dialog's Import
button is the person's approval (it grants through the consent ledger, like the approval
dialog); the library then adds every tool of the pack in one transaction, or none."""

from __future__ import annotations

import dataclasses
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QFileDialog, QWidget

from understudy_desktop.consent.ledger import ConsentLedger, Grant, command_line_grant
from understudy_desktop.consent.manifest import IMPORT_PACK
from understudy_desktop.library.library import Library, LibraryError, import_args
from understudy_desktop.library.model import Origin, TaughtTool, shown_name
from understudy_desktop.library.refs import apply_mapping, missing_references
from understudy_desktop.packs.adding import named_here, over_cap, tools_to_import
from understudy_desktop.packs.export import (
    PACK_SUFFIX,
    ExportError,
    build_pack,
    definitions_of,
    pack_bytes,
)
from understudy_desktop.packs.importer import (
    ImportPlan,
    PackError,
    parse_pack,
    plan_import,
    read_pack_bytes,
)
from understudy_desktop.queue_io import write_atomically
from understudy_desktop.rules import rules
from understudy_desktop.shell.pack_dialogs import ExportPackDialog, ImportPackDialog, Mapping
from understudy_desktop.shell.save_places import save_start
from understudy_desktop.store.settings import AUTHOR_NAME, Settings
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.provenance import Provenance, provenance_of
from understudy_desktop.team.signing import check
from understudy_desktop.team.trust import TeamDecisions
from understudy_desktop.text import count_of, file_name_words

log = logging.getLogger(__name__)
PACK_FILTER = "Tool Packs (*.understudy-pack.json *.json)"


class PackActions(QObject):
    imported = Signal(list)
    accepted_from_team = Signal(object)  # the Provenance of a shared version now accepted
    import_failed = Signal(str)
    exported = Signal(str)
    export_failed = Signal(str)

    def __init__(
        self,
        window: QWidget,
        library: Library,
        ledger: ConsentLedger,
        show_problem: Callable[[str, str], None],
        notify: Callable[[str], None],
        settings: Settings | None = None,
        known: Callable[[], dict[str, list[dict[str, str]]]] = lambda: {},
        decisions: TeamDecisions | None = None,
        identity: Identity | None = None,
    ) -> None:
        super().__init__(window)
        self._window = window
        self._library = library
        self._ledger = ledger
        self._show_problem = show_problem
        self._notify = notify
        self._settings = settings
        self._known = known  # the people and templates on the queue now
        self._decisions = decisions  # whom this person trusts (signed packs)
        self._identity = identity  # signs what this person exports

    # --- import ---------------------------------------------------------------------------
    def choose_import(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self._window, "Import Tool Pack", "", PACK_FILTER)
        if path:
            self.import_pack(Path(path), confirm=True)

    def import_pack(self, path: Path, confirm: bool, replace: bool = False) -> None:
        """Import after the preview's Import button, or, with confirm=False, because the
        person started Understudy with --yes on this file (their command is the approval)."""
        try:
            data = read_pack_bytes(path)
        except PackError as exc:
            self._fail(str(exc))
            return
        # A name that is not UTF-8 on disk is shown and kept readable everywhere after.
        self.import_data(data, file_name_words(path.name), confirm, replace)

    def provenance(self, data: bytes, author: str) -> Provenance:
        trusted = self._decisions.trusted() if self._decisions is not None else {}
        return provenance_of(check(data), author, trusted)

    def import_data(
        self,
        data: bytes,
        filename: str,
        confirm: bool,
        replace: bool = False,
        source: Provenance | None = None,
    ) -> None:
        """Check the signature, read, plan, preview, import. `source` comes from the team
        library (with the update it is, if any); a file's own is worked out here."""
        checked = check(data)
        if checked.verdict == "changed":
            self._fail(
                f"Changed after signing: {filename} is not the file its author signed, so it "
                "was not imported. Nothing was changed. Ask the person who shared it to share "
                "it again."
            )
            return
        try:
            pack = parse_pack(data, filename)
            origin = self._provenance_and_origin(pack, data, filename, source)
            existing = {t.name for t in self._library.tools()}
            plan = plan_import(pack, filename, self._library.catalogue, existing)
        except PackError as exc:
            self._fail(str(exc))
            return
        # A pack file only: a shared version from the team folder is accepted as it is (its
        # acceptance is recorded), even when the library has its tool already.
        plan, same = self._without_what_is_here(plan) if source is None else (plan, [])
        if not plan.definitions:
            # Nothing new in it: said, not offered as New with "import under new names".
            listed = ", ".join(f"“{shown_name(n)}”" for n in same)
            self._notify(f"You have {listed} already, as {filename} has it. Nothing to import.")
            self.imported.emit([])
            return
        self._preview_and_import(plan, filename, confirm, replace, *origin)

    def _without_what_is_here(self, plan: ImportPlan) -> tuple[ImportPlan, list[str]]:
        """The plan less the tools the library has already, exactly as the pack has them."""
        same = [
            d.name
            for d in plan.definitions
            if (t := self._library.get(d.name)) is not None
            and _without_names(t.definition) == _without_names(d.stored())
        ]
        if not same:
            return plan, []
        kept = dataclasses.replace(
            plan,
            definitions=[d for d in plan.definitions if d.name not in same],
            clashes=[c for c in plan.clashes if c not in same],
            notes=[
                *plan.notes,
                "You have "
                + ", ".join(f"“{shown_name(n)}”" for n in same)
                + " already, exactly as it is here: not imported again.",
            ],
        )
        return kept, same

    def _provenance_and_origin(
        self, pack: dict[str, Any], data: bytes, filename: str, source: Provenance | None
    ) -> tuple[Provenance, Origin]:
        provenance = source or self.provenance(data, str(pack.get("author", "")))
        shared_as = str(pack["tools"][0]["name"]) if provenance.team_file else ""
        if provenance.update_of:
            # An update takes the place of the tool accepted before, under its name here.
            pack["tools"][0]["name"] = provenance.update_of
        origin = Origin(
            by="team" if provenance.team_file else "pack",
            pack=filename,
            author=str(pack.get("author", "")),
            key=provenance.key,
            shared_as=shared_as,
            version=provenance.team_file.split(".", 1)[0],
            created=provenance.created,
        )
        return provenance, origin

    def _preview_and_import(
        self,
        plan: ImportPlan,
        filename: str,
        confirm: bool,
        replace: bool,
        provenance: Provenance,
        origin: Origin,
    ) -> None:
        existing = {t.name for t in self._library.tools()}
        catalogue = self._library.catalogue
        known = self._known()
        plan.definitions = named_here(plan.definitions, catalogue, known)

        def variant(
            replace_clashes: bool, mapping: Mapping | None = None
        ) -> tuple[list[TaughtTool], list[str], dict[str, Any]]:
            mapped = apply_mapping(plan.definitions, catalogue, mapping or {})
            tools, replacing = tools_to_import(
                plan, existing, replace_clashes, filename, mapped, origin
            )
            return tools, replacing, import_args(tools, replacing)

        problem = over_cap(plan, self._library.active_count())
        if problem:
            self._fail(f"{filename} was not imported. Nothing was changed.\n{problem}")
            return
        if not confirm:
            tools, replacing, args = variant(replace or bool(provenance.update_of))
            # Accepting a team tool without the preview (its caller approved) trusts its
            # signer as the preview would; a pack file given with --yes trusts nobody.
            trust = provenance if provenance.team_file else None
            grant = command_line_grant(IMPORT_PACK.name, args)
            self._carry_out(tools, replacing, grant, filename, trust)
            return
        dialog = ImportPackDialog(
            plan,
            filename,
            self._ledger,
            lambda r, m: variant(r, m)[2],
            catalogue,
            missing_references(plan.definitions, catalogue, known),
            known,
            self._window,
            provenance,
        )
        if dialog.exec() != QDialog.DialogCode.Accepted:
            self.import_failed.emit("cancelled")
            return
        tools, replacing, args = variant(dialog.replace_clashes, dialog.mapping)
        granted = self._ledger.consume(IMPORT_PACK.name, args)
        if granted is None:
            self._fail(f"{filename} was not imported: the approval did not match. Try again.")
            return
        self._carry_out(tools, replacing, granted, filename, provenance)

    def _carry_out(
        self,
        tools: list[TaughtTool],
        replacing: list[str],
        grant: Grant,
        filename: str,
        trust: Provenance | None,
    ) -> None:
        """Import. A person who clicked Import on a signed pack from a key they did not trust
        yet has trusted it (the preview said so): that is written in the import's own
        transaction, so a crash leaves both or neither."""
        decisions = self._decisions
        trusting = trust if trust is not None and trust.asks_trust else None
        shared = trust if trust is not None and trust.team_file else None

        def also(conn: sqlite3.Connection) -> None:
            if trusting is not None:
                TeamDecisions.write_trust(conn, trusting.key, trusting.author)
            if shared is not None:
                # Accepted, in the same transaction: never offered as new again.
                TeamDecisions.write_accepted(
                    conn, shared.team_file.split(".", 1)[0], shared.key, shared.shared_as
                )

        def done(err: LibraryError | None) -> None:
            if err is not None:
                self._fail(f"{filename} was not imported. Nothing was changed.\n{err.message}")
                return
            if trusting is not None and decisions is not None:
                decisions.trusted_now(trusting.key, trusting.author)
            if shared is not None and decisions is not None:
                decisions.accepted_now(shared.team_file.split(".", 1)[0])
            names = [t.name for t in tools]
            if trust is not None and trust.team_file:
                self._notify(f"Accepted {filename}. It is in your library now.")
            else:
                self._notify(f"Imported {count_of(len(names), 'tool')} from {filename}.")
            self.imported.emit(names)
            if shared is not None:
                self.accepted_from_team.emit(shared)

        self._library.import_tools(
            tools, replacing, grant, done, also if trusting or shared else None
        )

    def _fail(self, message: str) -> None:
        self._show_problem("This Tool Pack could not be imported", message)
        self.import_failed.emit(message)

    # --- export ---------------------------------------------------------------------------
    def choose_export(self) -> None:
        tools = self._library.tools()
        if not tools:
            self._show_problem("Nothing to export", "Teach and publish a tool first.")
            return
        dialog = ExportPackDialog(tools, self.author(), self._window)
        if dialog.exec() != QDialog.DialogCode.Accepted or not dialog.chosen():
            return
        self.set_author(dialog.author.text())
        path, _ = QFileDialog.getSaveFileName(
            self._window, "Export Tool Pack", save_start(f"tools{PACK_SUFFIX}"), PACK_FILTER
        )
        if path:
            self.export_pack(Path(path), dialog.chosen())

    def export_pack(self, path: Path, names: list[str], author: str | None = None) -> None:
        chosen = [t for n in names if (t := self._library.get(n)) is not None]
        try:
            definitions = definitions_of(chosen)
            pack = build_pack(definitions, self._library.catalogue, author or self.author())
            data = self._identity.sign(pack) if self._identity is not None else pack_bytes(pack)
            write_atomically(path, data)
        except (ExportError, OSError) as exc:
            self._show_problem("The Tool Pack was not saved", str(exc))
            self.export_failed.emit(str(exc))
            return
        self._notify(f"Saved {count_of(len(chosen), 'tool')} to {path.name}.")
        self.exported.emit(str(path))

    # --- the person's name, as colleagues see it on their packs ----------------------------
    def author(self) -> str:
        name = self._settings.get(AUTHOR_NAME, "") if self._settings is not None else ""
        return str(name or "")

    def set_author(self, name: str) -> None:
        if self._settings is not None and name.strip():
            self._settings.set(AUTHOR_NAME, name.strip()[: rules().limits.authorName])


def _without_names(definition: Any) -> Any:
    """A definition without the names its people and templates carry (`ref`): the library
    adds them on import from the queue's names, so a tool is the same tool without them."""
    if isinstance(definition, dict):
        return {k: _without_names(v) for k, v in definition.items() if k != "ref"}
    if isinstance(definition, list):
        return [_without_names(v) for v in definition]
    return definition
