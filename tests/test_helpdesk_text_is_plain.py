"""Text that comes from a helpdesk (a customer writes a ticket's subject; an administrator
names people and macros) is shown as plain text in every dialog and status line, with its
bidirectional controls made visible and the whole set apart: a `<b>` or `<img>` subject does
not render, a `<script>` subject does not vanish, and a right-to-left override cannot turn
"you set … meanwhile …" around to misstate whose value is whose."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel
from test_plain_words import widget_text

from understudy_desktop.helpdesk.base import Abilities
from understudy_desktop.helpdesk.macros import MacroTool
from understudy_desktop.helpdesk.tables import Choice, Left
from understudy_desktop.shell.helpdesk_choices import ChoicesDialog
from understudy_desktop.shell.helpdesk_dialog import abilities_words
from understudy_desktop.shell.helpdesk_macros import MacrosDialog
from understudy_desktop.text import FSI, PDI

HOSTILE = [
    ("<b>Refund</b> please", "<b>Refund</b> please"),
    ('<img src="x" onerror="alert(1)">Refund', '<img src="x" onerror="alert(1)">Refund'),
    ("<script>alert(1)</script>Refund", "<script>alert(1)</script>Refund"),
    ("Refund \u202eeulav ruoy", "Refund ⟨RLO⟩eulav ruoy"),
]


def labels_showing(widget, text: str) -> list[QLabel]:
    return [label for label in widget.findChildren(QLabel) if text in label.text()]


class Link(SimpleNamespace):
    """What the dialog asks of the connection: the helpdesk's name and the choices."""

    def choices(self):
        return self.found

    def left_notes(self):
        return getattr(self, "left", [])


@pytest.mark.parametrize(("subject", "shown"), HOSTILE)
def test_a_subject_from_the_helpdesk_is_plain_text_set_apart(qtbot, subject, shown):
    choice = Choice("RT-7", subject, "assignee", "rt:alice", "rt:\u202ebob")
    dialog = ChoicesDialog(Link(title="Request Tracker", found=[choice]), {"rt:alice": "Alice"})
    qtbot.addWidget(dialog)
    [label] = labels_showing(dialog, "RT-7")
    assert label.textFormat() == Qt.TextFormat.PlainText
    words = label.text()
    assert f"“{FSI}{shown}{PDI}”" in words, "the subject is all there, as written, set apart"
    # Whose value is whose stays in its order, whatever the values hold.
    assert words.index("you set the assignee to") < words.index("meanwhile in Request Tracker")
    assert f"{FSI}Alice{PDI}" in words and f"{FSI}rt:⟨RLO⟩bob{PDI}" in words
    assert "\u202e" not in words


@pytest.mark.parametrize(("subject", "shown"), HOSTILE)
def test_a_ticket_that_left_is_told_in_plain_text_set_apart(qtbot, subject, shown):
    note = Left("RT-9", subject, "moved", 1)
    dialog = ChoicesDialog(Link(title="Request Tracker", found=[], left=[note]), {})
    qtbot.addWidget(dialog)
    [label] = labels_showing(dialog, "RT-9")
    assert label.textFormat() == Qt.TextFormat.PlainText
    words = label.text()
    assert f"“{FSI}{shown}{PDI}” was moved to another queue in Request Tracker" in words
    assert "\u202e" not in words


def test_macro_names_and_the_account_are_plain_text_too(qtbot):
    tool = MacroTool("<b>Close</b> \u202eit", "close_it", None, ["close the ticket"], [])
    dialog = MacrosDialog("Zendesk", [tool], lambda _tool, _said: None)
    qtbot.addWidget(dialog)
    [label] = labels_showing(dialog, "Close")
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert label.text().startswith(f"{FSI}<b>Close</b> ⟨RLO⟩it{PDI}")
    assert "<b>Close</b>" in widget_text(dialog)
    said = abilities_words("Zendesk", Abilities("<i>agent</i>\u202e", True, ("status",)))
    assert said.startswith(f"Connected to {FSI}<i>agent</i>⟨RLO⟩{PDI}.")
