"""The Import pack and Export pack dialogs. Names and descriptions from a file are shown as
plain text: a pack is a file from someone else."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval, consent_key
from understudy_desktop.consent.manifest import IMPORT_PACK
from understudy_desktop.packs.importer import ImportPlan

WHAT_GOES_IN = (
    "What goes in: each tool's name, description, steps and parameters, and the fixed values "
    "that are part of the routine (a template, a tag, a priority).\n"
    "What stays here: the values you recorded as examples, ticket ids, and anything customers "
    "wrote."
)


def _plain(text: str) -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    return label


class ImportPackDialog(QDialog):
    """The preview of a pack; its Import button is the person's approval of exactly the tools
    shown (and of replacing or renaming the clashes, as chosen)."""

    def __init__(
        self,
        plan: ImportPlan,
        filename: str,
        ledger: ConsentLedger,
        approval_args: Callable[[bool], dict[str, Any]],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self._ledger = ledger
        self._approval_args = approval_args
        self.setWindowTitle("Import Tool Pack")
        self.resize(640, 440)
        layout = QVBoxLayout(self)
        count = len(plan.definitions)
        who = f" from {plan.author}" if plan.author else ""
        layout.addWidget(
            _plain(
                f"{filename}{who} has {count} tool{'s' if count != 1 else ''}. Importing makes "
                f"{'them' if count != 1 else 'it'} available to you and to agents: clicking "
                "Import is your approval."
            )
        )
        self.tools = QListWidget()
        self.tools.setWordWrap(True)
        self.tools.setAccessibleName("Tools in the pack")
        for definition in plan.definitions:
            effect = (
                "reads only" if definition["annotations"]["readOnlyHint"] else "changes tickets"
            )
            item = QListWidgetItem(f"{definition['name']} — {definition['description']} ({effect})")
            self.tools.addItem(item)
        layout.addWidget(self.tools)
        for note in plan.notes:
            layout.addWidget(_plain(note))
        self.rename = QRadioButton()
        self.replace = QRadioButton()
        if plan.clashes:
            layout.addWidget(
                _plain("You already have tools with these names: " + ", ".join(plan.clashes) + ".")
            )
            self.rename.setText("Keep mine, and import theirs under new names")
            self.replace.setText("Replace mine with theirs")
            self.rename.setChecked(True)
            layout.addWidget(self.rename)
            layout.addWidget(self.replace)
        buttons = QDialogButtonBox()
        self.import_button = buttons.addButton("Import", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self._on_import)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def _on_import(self) -> None:
        # A person clicked Import for exactly these tools: the import's one grant.
        args = self._approval_args(self.replace_clashes)
        self._ledger.grant(DialogApproval(consent_key(IMPORT_PACK.name, args)))
        self.accept()

    @property
    def replace_clashes(self) -> bool:
        return self.replace.isChecked()


class ExportPackDialog(QDialog):
    def __init__(self, tools: list[dict[str, Any]], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export Tool Pack")
        self.resize(600, 420)
        layout = QVBoxLayout(self)
        layout.addWidget(_plain("Choose the tools to share:"))
        self.tools = QListWidget()
        self.tools.setWordWrap(True)
        self.tools.setAccessibleName("Tools to export")
        for tool in tools:
            item = QListWidgetItem(f"{tool['name']} — {tool['description']}")
            item.setData(Qt.ItemDataRole.UserRole, tool["name"])
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.tools.addItem(item)
        layout.addWidget(self.tools)
        layout.addWidget(_plain(WHAT_GOES_IN))
        buttons = QDialogButtonBox()
        self.export_button = buttons.addButton("Export…", QDialogButtonBox.ButtonRole.AcceptRole)
        buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def chosen(self) -> list[str]:
        names = []
        for i in range(self.tools.count()):
            item = self.tools.item(i)
            if item.checkState() == Qt.CheckState.Checked:
                names.append(str(item.data(Qt.ItemDataRole.UserRole)))
        return names
