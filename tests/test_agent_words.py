"""What an agent reads names only tools it can call: the console's commands are never agent
tools, so no text that reaches an agent's list or a failed call's answer points at one."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from understudy_desktop.catalogue import current_catalogue

DATA = Path(__file__).parents[1] / "web_assets" / "data"
COMMANDS = sorted(current_catalogue().commands)
NAMES_A_COMMAND = re.compile(r"\b(" + "|".join(COMMANDS) + r")\b")


def texts(node: Any, path: str = "") -> Iterator[tuple[str, str]]:
    """Every string under a description or describe key (the words a schema carries)."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("description", "describe") and isinstance(value, str):
                yield f"{path}.{key}", value
            else:
                yield from texts(value, f"{path}.{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from texts(value, f"{path}[{index}]")


def test_the_catalogue_words_that_reach_tool_lists_name_no_command():
    # Command and field descriptions become a taught tool's description and its inputs'.
    catalogue = json.loads((DATA / "catalogue.json").read_text(encoding="utf-8"))
    found = [(p, t) for p, t in texts(catalogue) if NAMES_A_COMMAND.search(t)]
    assert found == []


def test_the_built_in_tools_name_only_built_in_tools():
    builtins = json.loads((DATA / "builtin_tools.json").read_text(encoding="utf-8"))
    listed = {t["name"] for t in builtins["tools"]}
    for path, text in texts(builtins["tools"]):
        assert not NAMES_A_COMMAND.search(text), (path, text)
        for named in re.findall(r"\bunderstudy_[a-z_]+\b", text):
            assert named in listed, (path, named)


def test_the_check_finds_a_command_named_in_passing():
    assert NAMES_A_COMMAND.search("Add a tag to every match. Use filter_tickets first.")
    assert not NAMES_A_COMMAND.search("Add a tag to every ticket the filter matches.")


def test_the_example_packs_tools_name_no_command():
    # A pack's tools reach an agent's list once imported, with the words they were made with.
    packs = sorted((DATA.parents[1] / "packs").glob("*.understudy-pack.json"))
    assert packs
    for pack in packs:
        found = [
            (p, t)
            for p, t in texts(json.loads(pack.read_text(encoding="utf-8")))
            if NAMES_A_COMMAND.search(t)
        ]
        assert found == [], pack.name


def test_a_title_made_from_the_steps_is_left_out_and_a_persons_own_is_kept():
    from understudy_desktop.agent.mcp_shapes import lean_title

    made = "Find, tag the matches, assign the matches and set the matche"
    said = (
        "Find the tickets mentioning the words you choose, then tag them with “bank-feed”, "
        "assign them to Tomasz Zielinski and set their priority to High."
    )
    # "matches" is not in the description: it is one of the words titles are made of.
    assert lean_title(made, said) is None
    assert lean_title("Refund desk", "Assign the ticket to Priya and set it to high.") == (
        "Refund desk"
    )
    assert lean_title("Tag the refund matches", said) == "Tag the refund matches"
    assert lean_title("", said) is None


def test_an_input_description_that_only_lists_its_choices_is_left_out():
    from understudy_desktop.agent.mcp_shapes import lean_inputs

    schema = {
        "type": "object",
        "properties": {
            "status": {
                "enum": ["", "new", "open"],
                "description": "The status: new or open.",
            },
            "priority": {
                "enum": ["low", "high"],
                "description": "How soon a person must look: low or high.",
            },
            "ticket_id": {"type": "string", "description": "The ticket."},
        },
    }
    lean = lean_inputs(schema)["properties"]
    assert lean["status"] == {"enum": ["", "new", "open"]}
    assert lean["priority"]["description"].startswith("How soon")  # says more: kept
    assert lean["ticket_id"] == schema["properties"]["ticket_id"]
