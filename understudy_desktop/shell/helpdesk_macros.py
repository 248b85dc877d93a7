"""File › Tools from helpdesk macros…: the connected helpdesk's macros (Zendesk) or canned
responses (Freshdesk), each shown with what it would do as a tool and what it leaves out, in
words. Make a tool… puts one to the person in the approval dialog, like any other tool."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.helpdesk.macros import MacroTool
from understudy_desktop.shell.plain_label import plain_label
from understudy_desktop.text import isolated

MAX_SHOWN = 200


def macro_words(tool: MacroTool) -> str:
    lines = [isolated(tool.title)]
    if tool.does:
        lines.append("It will " + "; ".join(tool.does) + ".")
    else:
        lines.append("Nothing in it is something Understudy can do.")
    if tool.left_out:
        lines.append("Left out: " + "; ".join(tool.left_out) + ".")
    return "\n".join(lines)


class MacrosDialog(QDialog):
    def __init__(
        self,
        title: str,
        tools: list[MacroTool],
        make: Callable[[MacroTool, Callable[[str], None]], None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Tools from {title} macros")
        self.setMinimumSize(560, 320)
        self.make = make
        layout = QVBoxLayout(self)
        intro = plain_label(
            f"Your team's {title} macros, as tools for one ticket. Each needs your approval "
            "before anyone can run it; what Understudy cannot do is left out, never guessed."
            if tools
            else f"{title} has no macros this account can see."
        )
        layout.addWidget(intro)
        holder = QWidget()
        rows = QVBoxLayout(holder)
        self.buttons: dict[str, QPushButton] = {}
        self.said: dict[str, QLabel] = {}
        for tool in tools[:MAX_SHOWN]:
            rows.addWidget(self._row(tool))
        rows.addStretch(1)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(holder)
        layout.addWidget(scroll)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        layout.addWidget(close)

    def _row(self, tool: MacroTool) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        words = plain_label(macro_words(tool))
        button = QPushButton("Make a tool…")
        button.setEnabled(tool.definition is not None)
        said = plain_label()
        self.buttons[tool.title] = button
        self.said[tool.title] = said

        def made(words: str) -> None:
            said.setText(words)

        button.clicked.connect(lambda: self.make(tool, made))
        column = QVBoxLayout()
        column.addWidget(words)
        column.addWidget(said)
        line.addLayout(column, 1)
        line.addWidget(button)
        return row


def publish_words(reply: dict[str, Any]) -> str:
    if reply.get("status") == "published":
        return "Approved: it is in your tools now."
    if reply.get("isError"):
        return str(reply.get("message") or "It was not made.")
    return "Not approved: nothing was made."
