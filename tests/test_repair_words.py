"""What agents read after a repair (library/drafts.py repaired_description): the re-done
step's old fixed values are named as they are now, word for word, and nothing else moves."""

from __future__ import annotations

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.definition import Definition
from understudy_desktop.library.checks import complete
from understudy_desktop.library.drafts import repaired_description


def tool(person: str, name: str, description: str) -> Definition:
    return Definition.model_validate(
        {
            "name": "assign_refund",
            "title": "",
            "description": description,
            "inputSchema": {"type": "object", "properties": {}},
            "steps": [
                {
                    "command": "set_ticket_assignee",
                    "args": {
                        "ticket_id": {"from": "const", "value": "T-1"},
                        "assignee": {
                            "from": "const",
                            "value": person,
                            "ref": {"kind": "person", "name": name},
                        },
                    },
                }
            ],
        }
    )


def test_the_old_persons_name_is_replaced_by_the_new_one_and_only_as_a_whole_word():
    old = tool("priya", "Priya Raman", "Assigns T-1 to Priya Raman (not Priya Ramanathan).")
    new = complete(tool("ana", "Ana G. (\\1)", old.description), current_catalogue())
    out = repaired_description(old, new, 0)
    assert out.description == "Assigns T-1 to Ana G. (\\1) (not Priya Ramanathan)."


def test_a_description_that_names_nothing_of_the_step_stays_and_one_too_long_stays():
    old = tool("priya", "Priya Raman", "Assigns the ticket to the billing lead.")
    new = complete(tool("ana", "Ana García", old.description), current_catalogue())
    assert repaired_description(old, new, 0) is new
    long_old = tool("priya", "Priya Raman", "Priya Raman " * 40)
    long_new = complete(tool("ana", "A" * 60, long_old.description), current_catalogue())
    assert repaired_description(long_old, long_new, 0).description == long_old.description
