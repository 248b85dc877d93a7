"""The caps on set-based changes, read from where they are declared: a ticket holds at most
as many tags as the catalogue's set_ticket_tags allows (a set-based tag passes over a full
ticket, a single add is refused), and a run on the person's selection takes at most
rules.json's limits.selectionTickets tickets."""

from __future__ import annotations

import pytest
from model_helpers import MemoryModel
from pydantic import ValidationError
from test_model import queue

from understudy_desktop.bridge.protocol import LibraryAsk
from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.rules import rules


def most_tags() -> int:
    """How many tags a ticket may hold, as the catalogue (the page's and agents' schema) says."""
    schema = current_catalogue().commands["set_ticket_tags"].payload_schema
    return int(schema["properties"]["tags"]["maxItems"])


def full_queue() -> MemoryModel:
    data = queue()
    data["tickets"][1]["tags"] = [f"t{i:02}" for i in range(most_tags())]  # T-2 is full
    data["tickets"][2]["tags"] = [f"t{i:02}" for i in range(most_tags() - 1)]  # T-3: one free
    return MemoryModel(data)


def tags_of(model: MemoryModel, ticket: str) -> list[str]:
    return next(t["tags"] for t in model.tickets() if t["id"] == ticket)


def test_a_set_based_tag_passes_over_a_full_ticket_and_fills_one_with_room():
    model = full_queue()
    model.dispatch("filter_tickets", {})
    out = model.dispatch("tag_matching_tickets", {"tag": "zz"})
    assert out["ok"] and out["result"] == {"matched": 6, "changed": 5}
    assert "zz" not in tags_of(model, "T-2") and len(tags_of(model, "T-2")) == most_tags()
    assert "zz" in tags_of(model, "T-3") and len(tags_of(model, "T-3")) == most_tags()
    [write] = out["writes"]
    assert "T-2" not in write.ids and "T-3" in write.ids


def test_one_more_tag_on_a_full_ticket_is_refused_and_the_last_free_place_taken():
    model = full_queue()
    refused = model.dispatch("add_ticket_tag", {"ticket_id": "T-2", "tag": "zz"})
    assert refused["ok"] is False and refused["code"] == "invalid_payload"
    assert refused["message"] == (
        f"Ticket T-2 already has {most_tags()} tags, the most a ticket can have."
    )
    taken = model.dispatch("add_ticket_tag", {"ticket_id": "T-3", "tag": "zz"})
    assert taken["ok"] and len(tags_of(model, "T-3")) == most_tags()


def _selection(count: int) -> dict[str, object]:
    tickets = [f"T-{i}" for i in range(count)]
    return {"kind": "library", "action": "run_selection", "tool": "t", "tickets": tickets}


def test_a_run_on_the_selection_takes_at_most_the_rules_number_of_tickets():
    cap = rules().limits.selectionTickets
    assert len(LibraryAsk.model_validate(_selection(cap)).tickets) == cap
    with pytest.raises(ValidationError):
        LibraryAsk.model_validate(_selection(cap + 1))
