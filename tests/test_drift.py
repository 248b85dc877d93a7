"""Catalogue drift graded breaking / non-breaking, and what the app does with each."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from test_packs import catalogue  # noqa: F401 (the page's real catalogue, as a fixture)
from test_teach_e2e import publish_from_editor, teach_assign_refund

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.library.drift import grade_drift, is_breaking

DRIFT = Path(__file__).parent / "fixtures" / "drift"


def fixture(name: str) -> dict:
    return json.loads((DRIFT / name).read_text())["commandSchemas"]


def test_a_new_choice_is_non_breaking(catalogue):  # noqa: F811
    changes = grade_drift(fixture("non_breaking.json"), catalogue)
    assert [c.sentence() for c in changes] == [
        "set_ticket_priority.priority: choices added: ['normal'] (non-breaking)"
    ]
    assert not is_breaking(changes)


def test_a_removed_choice_and_a_removed_command_are_breaking(catalogue):  # noqa: F811
    changes = grade_drift(fixture("breaking.json"), catalogue)
    grades = {(c.command, c.grade) for c in changes}
    assert ("escalate_ticket", "breaking") in grades
    assert ("set_ticket_priority", "breaking") in grades
    assert is_breaking(changes)


@pytest.mark.parametrize(
    ("old", "new", "grade"),
    [
        ({"type": "integer"}, {"type": "number"}, "non-breaking"),
        ({"type": "string"}, {"type": ["string", "null"]}, "non-breaking"),
        ({"type": "string"}, {"type": "integer"}, "breaking"),
    ],
)
def test_types_widened_or_retyped(old, new, grade):
    recorded = {"cmd": {"type": "object", "properties": {"f": old}}}
    current = Catalogue.from_data(
        {
            "version": 2,
            "commands": [
                {"id": "cmd", "payloadSchema": {"type": "object", "properties": {"f": new}}}
            ],
        }
    )
    assert [c.grade for c in grade_drift(recorded, current)] == [grade]


def test_new_fields_required_or_optional():
    recorded = {
        "cmd": {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    }
    current = Catalogue.from_data(
        {
            "version": 2,
            "commands": [
                {
                    "id": "cmd",
                    "payloadSchema": {
                        "type": "object",
                        "properties": {
                            "a": {"type": "string"},
                            "b": {"type": "string"},
                            "c": {"type": "string"},
                        },
                        "required": ["a", "b"],
                    },
                }
            ],
        }
    )
    graded = {c.field: c.grade for c in grade_drift(recorded, current)}
    assert graded == {"b": "breaking", "c": "non-breaking"}


@pytest.mark.slow
def test_breaking_drift_holds_a_stored_tool_back_and_the_library_says_why(
    console_factory, data_dir
):
    first = console_factory(data_dir)
    teach_assign_refund(first, "T-1006")
    publish_from_editor(first, "assign_refund")
    first.qtbot.waitUntil(lambda: "assign_refund" in first.listed())
    first.session.close()
    # As if the tool had been recorded against an older console whose command differed.
    db = sqlite3.connect(data_dir / "understudy.sqlite3")
    definition = json.loads(
        db.execute("SELECT definition FROM tools WHERE name = 'assign_refund'").fetchone()[0]
    )
    definition["commandSchemas"]["set_ticket_assignee"]["properties"]["team"] = {"type": "string"}
    definition["commandSchemas"]["escalate_ticket"] = {"type": "object"}
    db.execute(
        "UPDATE tools SET definition = ? WHERE name = 'assign_refund'", (json.dumps(definition),)
    )
    db.commit()
    db.close()
    second = console_factory(data_dir)
    tool = second.library.get("assign_refund")
    assert tool.status == "needs_review"
    assert "assign_refund" not in second.listed()
    assert "escalate_ticket: the command was removed (breaking)" in tool.review_reason
    assert "set_ticket_assignee.team: the field was removed (breaking)" in tool.review_reason
    second.qtbot.waitUntil(
        lambda: second.api_json("tools") and second.api_json("tools")[0]["status"] == "needs_review"
    )
