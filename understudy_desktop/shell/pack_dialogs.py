"""The Import pack and Export pack dialogs. Everything from a file (names, descriptions, the
author) is shown as plain text: a pack is a file from someone else, and what a tool does is
worded by the app from its steps, never taken from the pack's own description alone."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.approval import wording
from understudy_desktop.catalogue import Catalogue
from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval, consent_key
from understudy_desktop.consent.manifest import IMPORT_PACK
from understudy_desktop.definition import Definition
from understudy_desktop.library.model import TaughtTool, shown_name
from understudy_desktop.library.refs import Reference
from understudy_desktop.packs.importer import ImportPlan
from understudy_desktop.rules import rules
from understudy_desktop.shell.plain_label import plain_label
from understudy_desktop.shell.screen_fit import fit_to_screen
from understudy_desktop.team.provenance import Provenance
from understudy_desktop.text import visible_controls

WHAT_GOES_IN = (
    "What goes in: each tool's name, what it does and what it asks for, and the fixed values "
    "that are part of the routine (a person, a template, a tag, a priority).\n"
    "What stays here: the values you recorded as examples, ticket numbers, and anything "
    "customers wrote."
)
KEEP_NAME = "Keep “{name}” (the tool stops and says so until this queue has it)"
Mapping = dict[tuple[str, str], dict[str, str]]


def _plain(text: str, bold: bool = False) -> QLabel:
    return plain_label(visible_controls(text), bold=bold, selectable=True)


def day_words(iso: str) -> str:
    """ "1 Dec 2026" from the pack's ISO time; the text as given if it is not a time."""
    try:
        when = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return iso[:40]
    return f"{when.day} {when.strftime('%b %Y')}"


def changes_many(definition: Definition, catalogue: Catalogue) -> bool:
    """A tool that changes every ticket a search matches, not one ticket."""
    infos = [catalogue.commands.get(step.command) for step in definition.steps]
    return any(i is not None and i.set_based and i.mutates for i in infos)


def tool_card(definition: Definition, catalogue: Catalogue, held: str = "") -> QFrame:
    """One tool of a pack, as a person judges it: steps in words with their values, what it
    asks for, what it can change."""
    card = QFrame()
    card.setFrameShape(QFrame.Shape.StyledPanel)
    card.setAccessibleName(f"Tool {shown_name(definition.name, definition.title)}")
    layout = QVBoxLayout(card)
    # People read a tool by its name in words; its identifier is for agents.
    layout.addWidget(_plain(shown_name(definition.name, definition.title), bold=True))
    if changes_many(definition, catalogue):
        layout.addWidget(_plain("⚠ Changes many tickets at once: every ticket a search finds."))
    if held:
        layout.addWidget(_plain(f"Arrives turned off, for you to review: {held}"))
    for heading, text in wording.tool_sections(definition, catalogue):
        layout.addWidget(_plain(heading, bold=True))
        layout.addWidget(_plain(text))
    return card


class ImportPackDialog(QDialog):
    """The preview of a pack; its Import button is the person's approval of exactly the tools
    shown, with the people and templates mapped as chosen (and the clashes replaced or
    renamed, as chosen)."""

    def __init__(
        self,
        plan: ImportPlan,
        filename: str,
        ledger: ConsentLedger,
        approval_args: Callable[[bool, Mapping], dict[str, Any]],
        catalogue: Catalogue,
        missing: list[Reference] | None = None,
        known: dict[str, list[dict[str, str]]] | None = None,
        parent: QWidget | None = None,
        provenance: Provenance | None = None,
    ) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._approval_args = approval_args
        self._update = bool(provenance and provenance.update_of)
        self.setWindowTitle(
            "Review a shared tool" if provenance and provenance.team_file else "Import Tool Pack"
        )
        fit_to_screen(self, 720, 600)
        outer = QVBoxLayout(self)
        if provenance is not None and provenance.warning():
            # A known name with a new key is the first thing a person reads.
            outer.addWidget(_plain(provenance.warning(), bold=True))
        if provenance is not None:
            # Who it is from comes before what it does: signed, not signed, or refused.
            outer.addWidget(_plain(provenance.signature_line(), bold=True))
        outer.addWidget(_plain(self._heading(plan, filename, provenance)))
        if provenance is not None and provenance.trust_line():
            outer.addWidget(_plain(provenance.trust_line()))
        body = QWidget()
        layout = QVBoxLayout(body)
        if provenance is not None and provenance.old_definition is not None and plan.definitions:
            layout.addWidget(self._update_box(provenance, plan.definitions[0], catalogue))
        for definition in plan.definitions:
            layout.addWidget(
                tool_card(definition, catalogue, plan.hold_back.get(definition.name, ""))
            )
        for note in plan.notes:
            layout.addWidget(_plain(note))
        self.choices: dict[tuple[str, str], QComboBox] = {}
        if missing:
            layout.addWidget(self._mapping_form(missing, known or {}))
        layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(body)
        scroll.setAccessibleName("What the pack's tools do")
        outer.addWidget(scroll, 1)
        self.rename = QRadioButton()
        self.replace = QRadioButton()
        if plan.clashes and not self._update:
            outer.addWidget(
                _plain("You already have tools with these names: " + ", ".join(plan.clashes) + ".")
            )
            self.rename.setText("Keep mine, and import theirs under new names")
            self.replace.setText("Replace mine with theirs")
            self.rename.setChecked(True)
            outer.addWidget(self.rename)
            outer.addWidget(self.replace)
        buttons = QDialogButtonBox()
        self.import_button = buttons.addButton(
            self._import_words(provenance), QDialogButtonBox.ButtonRole.AcceptRole
        )
        cancel = buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        # Enter does not import: the safe choice is the default, as in the approval dialog.
        self.import_button.setAutoDefault(False)
        cancel.setDefault(True)
        buttons.accepted.connect(self._on_import)
        buttons.rejected.connect(self.reject)
        outer.addWidget(buttons)

    def _heading(self, plan: ImportPlan, filename: str, provenance: Provenance | None) -> str:
        count = len(plan.definitions)
        when = f" on {day_words(plan.created)}" if plan.created else ""
        button = self._import_words(provenance)
        if provenance is not None and provenance.team_file and count == 1:
            first = plan.definitions[0]
            tool = shown_name(first.name, first.title)
            if provenance.verdict != "signed":
                # No name at all: an unsigned file could say it is from anyone.
                return (
                    f"“{tool}” is in your team library, but nobody signed it: anyone with "
                    "access to the folder could have put it here. Read what it does: accepting "
                    f"makes it available to you and to agents, and clicking {button} is your "
                    "approval."
                )
            who = provenance.author or "Someone who gave no name"
            return (
                f"{who} shared “{tool}” with your team{when}. Read what it does: accepting "
                f"makes it available to you and to agents, and clicking {button} is your "
                "approval."
            )
        who = f", made by {plan.author}" if plan.author else ", made by someone who gave no name"
        if provenance is not None and provenance.verdict != "signed" and plan.author:
            who = f", which says it was made by {plan.author} (nobody signed it)"
        return (
            f"{filename}{who}{when}, has {count} tool{'s' if count != 1 else ''}. Read what "
            f"{'each one does' if count != 1 else 'it does'}: importing makes "
            f"{'them' if count != 1 else 'it'} available to you and to agents, and clicking "
            f"{button} is your approval."
        )

    @staticmethod
    def _import_words(provenance: Provenance | None) -> str:
        if provenance is None or not provenance.asks_trust:
            return "Accept" if provenance is not None and provenance.team_file else "Import"
        if provenance.new_key_for_known_name:
            return "Trust the new key and import"
        return f"Trust {provenance.author[:40] or 'this author'} and import"

    @staticmethod
    def _update_box(provenance: Provenance, new: Definition, catalogue: Catalogue) -> QWidget:
        box = QFrame()
        box.setFrameShape(QFrame.Shape.StyledPanel)
        layout = QVBoxLayout(box)
        old = provenance.old_definition
        since = f", shared {day_words(provenance.created)}" if provenance.created else ""
        layout.addWidget(
            _plain(
                f"An update to “{shown_name(provenance.update_of, old.title if old else '')}”, "
                f"which you accepted before. This version is from "
                f"{provenance.author or 'its author'}{since}. Old → new:",
                bold=True,
            )
        )
        for heading, text in wording.difference_sections(old, new, catalogue):
            layout.addWidget(_plain(heading, bold=True))
            layout.addWidget(_plain(text))
        return box

    def _mapping_form(
        self, missing: list[Reference], known: dict[str, list[dict[str, str]]]
    ) -> QWidget:
        box = QWidget()
        form = QFormLayout(box)
        form.addRow(
            _plain(
                "This pack names people or templates your queue does not have. Choose who or "
                "what each one means here:",
                bold=True,
            )
        )
        for ref in missing:
            combo = QComboBox()
            combo.setAccessibleName(f"{ref.name} on this queue")
            combo.addItem(visible_controls(KEEP_NAME.format(name=ref.name)), None)
            for item in known.get(ref.kind, []):
                combo.addItem(visible_controls(item["name"] or item["id"]), item)
            self.choices[ref.key] = combo
            form.addRow(_plain(f"{ref.name} →"), combo)
        return box

    def text_shown(self) -> str:
        """Every text the dialog shows, in order (tests and the plain-words check)."""
        parts = [label.text() for label in self.findChildren(QLabel)]
        for combo in self.findChildren(QComboBox):
            parts.extend(combo.itemText(i) for i in range(combo.count()))
        parts.extend(b.text() for b in self.findChildren(QRadioButton) if b.text())
        return "\n".join(parts)

    @property
    def mapping(self) -> Mapping:
        chosen: Mapping = {}
        for key, combo in self.choices.items():
            item = combo.currentData()
            if isinstance(item, dict):
                chosen[key] = {"id": str(item["id"]), "name": str(item["name"])}
        return chosen

    def _on_import(self) -> None:
        # A person clicked Import for exactly these tools: the import's one grant.
        args = self._approval_args(self.replace_clashes, self.mapping)
        self._ledger.grant(DialogApproval(consent_key(IMPORT_PACK.name, args)))
        self.accept()

    @property
    def replace_clashes(self) -> bool:
        return self._update or self.replace.isChecked()


class ExportPackDialog(QDialog):
    def __init__(
        self,
        tools: list[TaughtTool],
        author: str = "",
        parent: QWidget | None = None,
        title: str = "Export Tool Pack",
        button: str = "Export…",
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        fit_to_screen(self, 600, 460)
        layout = QVBoxLayout(self)
        layout.addWidget(_plain("Choose the tools to share:"))
        self.tools = QListWidget()
        self.tools.setWordWrap(True)
        self.tools.setAccessibleName("Tools to export")
        for tool in tools:
            what = tool.parsed.description if tool.parsed is not None else "cannot be read"
            item = QListWidgetItem(visible_controls(f"{tool.shown_name} — {what}"))
            item.setData(Qt.ItemDataRole.UserRole, tool.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.tools.addItem(item)
        layout.addWidget(self.tools)
        form = QFormLayout()
        self.author = QLineEdit(author)
        self.author.setMaxLength(rules().limits.authorName)
        self.author.setPlaceholderText("For example: Dana Ortiz")
        self.author.setAccessibleName("Your name")
        form.addRow("Your name:", self.author)
        layout.addLayout(form)
        layout.addWidget(
            _plain("Colleagues who import the pack see your name. It is remembered for next time.")
        )
        layout.addWidget(_plain(WHAT_GOES_IN))
        buttons = QDialogButtonBox()
        self.export_button = buttons.addButton(button, QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.author.textChanged.connect(self._update)
        self.tools.itemChanged.connect(self._update)
        self._update()

    def _update(self) -> None:
        self.export_button.setEnabled(bool(self.author.text().strip()) and bool(self.chosen()))

    def chosen(self) -> list[str]:
        names = []
        for i in range(self.tools.count()):
            item = self.tools.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                names.append(str(item.data(Qt.ItemDataRole.UserRole)))
        return names
