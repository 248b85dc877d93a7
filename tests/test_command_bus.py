"""The command bus inside the real page: catalogue commands, click/dispatch parity, persistence."""

from __future__ import annotations

import json

from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest

from understudy_desktop.catalogue import current_catalogue

COMMANDS_VALID = [
    ("filter_tickets", {"text": "bank feed"}),
    ("get_ticket", {"ticket_id": "T-1006"}),
    ("list_templates", {}),
    ("list_assignees", {}),
    ("select_ticket", {"ticket_id": "T-1003"}),
    ("set_ticket_priority", {"ticket_id": "T-1003", "priority": "urgent"}),
    ("set_ticket_status", {"ticket_id": "T-1003", "status": "pending"}),
    ("set_ticket_assignee", {"ticket_id": "T-1003", "assignee": "priya"}),
    ("set_ticket_tags", {"ticket_id": "T-1003", "tags": ["bank-feed", "vip"]}),
    ("add_ticket_tag", {"ticket_id": "T-1003", "tag": "escalated"}),
    ("remove_ticket_tag", {"ticket_id": "T-1003", "tag": "vip"}),
    ("apply_template", {"ticket_id": "T-1003", "template_id": "bank_feed_reconnect"}),
    ("set_reply_draft", {"ticket_id": "T-1003", "text": "On it."}),
    ("tag_matching_tickets", {"tag": "bank-issue"}),
    ("untag_matching_tickets", {"tag": "bank-issue"}),
    ("set_matching_priority", {"priority": "high"}),
    ("set_matching_status", {"status": "open"}),
    ("assign_matching_tickets", {"assignee": "tomasz"}),
]

COMMANDS_INVALID = [
    ("filter_tickets", {"priority": "soonish"}, "invalid_payload"),
    ("get_ticket", {"ticket_id": "T-0000"}, "not_found"),
    ("list_templates", {"x": 1}, "invalid_payload"),
    ("list_assignees", {"x": 1}, "invalid_payload"),
    ("select_ticket", {"ticket_id": ""}, "invalid_payload"),
    ("set_ticket_priority", {"ticket_id": "T-1003"}, "invalid_payload"),
    ("set_ticket_status", {"ticket_id": "T-1003", "status": "asleep"}, "invalid_payload"),
    ("set_ticket_assignee", {"ticket_id": "T-1003", "assignee": "mallory"}, "not_found"),
    ("set_ticket_tags", {"ticket_id": "T-1003", "tags": "vip"}, "invalid_payload"),
    ("add_ticket_tag", {"ticket_id": "T-1003", "tag": "No Spaces"}, "invalid_payload"),
    ("remove_ticket_tag", {"tag": "vip"}, "invalid_payload"),
    ("apply_template", {"ticket_id": "T-1003", "template_id": "nope"}, "not_found"),
    ("set_reply_draft", {"ticket_id": "T-1003", "text": 5}, "invalid_payload"),
    ("tag_matching_tickets", {"tag": "A B"}, "invalid_payload"),
    ("untag_matching_tickets", {}, "invalid_payload"),
    ("set_matching_priority", {"priority": 3}, "invalid_payload"),
    ("set_matching_status", {"status": "gone"}, "invalid_payload"),
    ("assign_matching_tickets", {"assignee": "mallory"}, "not_found"),
]


def test_these_lists_cover_the_whole_catalogue():
    ids = set(current_catalogue().commands)
    assert {c for c, _ in COMMANDS_VALID} == ids
    assert {c for c, _, _ in COMMANDS_INVALID} == ids


def test_each_command_runs_in_the_page(console):
    for command, payload in COMMANDS_VALID:
        out = console.dispatch(command, payload)
        assert out["ok"], (command, out)
    ticket = console.dispatch("get_ticket", {"ticket_id": "T-1003"})["result"]
    assert ticket["priority"] == "high"  # set_matching_priority ran after set_ticket_priority
    assert ticket["assignee"] == "tomasz"
    assert ticket["reply_draft"] == "On it."
    assert "escalated" in ticket["tags"]


def test_each_invalid_command_is_refused_and_changes_nothing(console):
    before = console.api("exportQueue")
    for command, payload, code in COMMANDS_INVALID:
        out = console.dispatch(command, payload)
        assert not out["ok"], command
        assert out["error"]["code"] == code, (command, out["error"])
        assert out["error"]["message"]
    assert console.api("exportQueue") == before
    assert console.api_json("log") == []


def _center(console, selector: str) -> QPoint:
    rect = console.value(
        f"(() => {{ const r = document.querySelector({json.dumps(selector)})"
        ".getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })()"
    )
    return QPoint(int(rect[0]), int(rect[1]))


def _comparable(entry: dict) -> dict:
    # Who dispatched it, and how, differ by design; the command itself must not.
    return {
        k: v for k, v in entry.items() if k not in ("seq", "at", "source", "control", "provenance")
    }


def test_a_click_and_a_dispatch_make_the_same_log_entry(console_factory, tmp_path):
    clicked = console_factory(tmp_path / "clicked")
    target = clicked.window.view.focusProxy()
    # Real input events: a mouse click on the row, then the "p" shortcut and a typed "u"
    # on the priority control, exactly as a person at the keyboard would do it.
    QTest.mouseClick(target, Qt.MouseButton.LeftButton, pos=_center(clicked, "#row-T-1005"))
    clicked.qtbot.waitUntil(lambda: clicked.api_json("summary")["selected"] == "T-1005")
    QTest.keyClick(target, Qt.Key.Key_P)
    clicked.qtbot.waitUntil(lambda: clicked.js("document.activeElement.id") == "priority-select")
    QTest.keyClick(target, Qt.Key.Key_U)
    clicked.qtbot.waitUntil(lambda: len(clicked.api_json("log")) == 2)
    ui_log = clicked.api_json("log")
    assert [e["source"] for e in ui_log] == ["ui", "ui"]
    assert [e["control"] for e in ui_log] == ["queue-list", "priority-select"]

    direct = console_factory(tmp_path / "direct")
    direct.dispatch("select_ticket", {"ticket_id": "T-1005"})
    direct.dispatch("set_ticket_priority", {"ticket_id": "T-1005", "priority": "urgent"})
    direct_log = direct.api_json("log")
    assert [_comparable(e) for e in ui_log] == [_comparable(e) for e in direct_log]
    assert ui_log[1]["payload"] == {"ticket_id": "T-1005", "priority": "urgent"}


def test_state_survives_a_restart_in_indexeddb(console_factory, data_dir):
    first = console_factory(data_dir)
    assert first.dispatch("set_ticket_assignee", {"ticket_id": "T-1011", "assignee": "aisha"})["ok"]
    first.dispatch("add_ticket_tag", {"ticket_id": "T-1011", "tag": "kept-after-restart"})
    first.dispatch("filter_tickets", {"status": "new"})
    first.flush()
    first.session.close()

    second = console_factory(data_dir)
    ticket = second.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]
    assert ticket["assignee"] == "aisha"
    assert "kept-after-restart" in ticket["tags"]
    assert second.js("document.getElementById('filter-status').value") == "new"


def test_a_fresh_data_dir_starts_from_the_demo_queue(console_factory, tmp_path):
    first = console_factory(tmp_path / "a")
    first.dispatch("set_ticket_status", {"ticket_id": "T-1001", "status": "closed"})
    first.flush()
    other = console_factory(tmp_path / "b")
    assert other.dispatch("get_ticket", {"ticket_id": "T-1001"})["result"]["status"] == "solved"
