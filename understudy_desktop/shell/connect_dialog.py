"""Help › Connect an agent…: the exact configuration to paste into an MCP client."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtGui import QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from understudy_desktop.agent.launch import relay_command
from understudy_desktop.shell.screen_fit import fit_to_screen


def client_snippets(data_dir: Path, url: str, token: str) -> dict[str, str]:
    command, *args = relay_command(data_dir)
    desktop = {"mcpServers": {"understudy": {"command": command, "args": args}}}
    toml_args = ", ".join(json.dumps(a) for a in args)
    return {
        "Claude Desktop": json.dumps(desktop, indent=2),
        "Claude Code": "claude mcp add --scope user understudy -- "
        + " ".join(json.dumps(p) if " " in p else p for p in [command, *args]),
        "Codex": f"[mcp_servers.understudy]\ncommand = {json.dumps(command)}\nargs = [{toml_args}]",
        "Other (HTTP)": (
            f"URL: {url}\nHeader: Authorization: Bearer {token}\n\n"
            "The address and token change each time Understudy starts; the clients above "
            "find them by themselves."
        ),
    }


# Per client: where the configuration goes, and how to see that it worked.
GUIDES = {
    "Claude Desktop": (
        "In Claude Desktop: Settings › Developer › Edit Config opens its configuration file. "
        "Paste this into it (if it already lists servers, add the understudy entry beside "
        "them), save, then quit Claude Desktop completely and start it again.",
        "To check: in a new chat, the tools button lists understudy.",
    ),
    "Claude Code": (
        "Run this once in a terminal. --scope user makes Understudy available in every "
        "project, not only the folder you are in. Then start a new Claude Code session.",
        "To check: run claude mcp list in a terminal; understudy shows as connected.",
    ),
    "Codex": (
        "Add this to Codex's configuration file (config.toml in the .codex folder of your "
        "home folder), then start Codex again.",
        "To check: type /mcp in a Codex session; understudy is listed with its tools.",
    ),
    "Other (HTTP)": (
        "For a client that connects to an address itself: give it this address and header.",
        "To check: the status bar here says an agent is connected once it calls.",
    ),
}


class ConnectAgentDialog(QDialog):
    def __init__(self, snippets: dict[str, str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect an agent")
        fit_to_screen(self, 720, 420)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Paste this into your AI client's settings. The client then sees the tools you "
            "teach Understudy, and starts Understudy when it is not running."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("Client")
        mono = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        for name, text in snippets.items():
            page = QWidget()
            box = QVBoxLayout(page)
            where, check = GUIDES.get(name, ("", ""))
            if where:
                said = QLabel(where)
                said.setWordWrap(True)
                box.addWidget(said)
            editor = QPlainTextEdit(text)
            editor.setReadOnly(True)
            editor.setFont(mono)
            editor.setAccessibleName(f"Configuration for {name}")
            box.addWidget(editor)
            row = QHBoxLayout()
            if check:
                checking = QLabel(check)
                checking.setWordWrap(True)
                row.addWidget(checking, 1)
            else:
                row.addStretch(1)
            copy = QPushButton("Copy")
            copy.setAccessibleName(f"Copy the configuration for {name}")
            copy.clicked.connect(lambda _=False, t=text, b=copy: self._copy(t, b))
            row.addWidget(copy)
            box.addLayout(row)
            self.tabs.addTab(page, name)
        layout.addWidget(self.tabs)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    @staticmethod
    def _copy(text: str, button: QPushButton) -> None:
        QGuiApplication.clipboard().setText(text)
        button.setText("Copied")
