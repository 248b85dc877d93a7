"""What a person reads about a connected queue, from the outbox's standing."""

from __future__ import annotations

import time

from understudy_desktop.helpdesk.tables import Standing
from understudy_desktop.helpdesk.words import run_words, status_words, ticket_words, value_words


def standing(waiting=0, refused=0, conflicts=0):
    return Standing(waiting, refused, conflicts, {})


def test_the_status_bar_sums_up_in_words():
    assert status_words("Zendesk", standing(), None) == "All changes are in Zendesk"
    at = time.mktime((2026, 12, 2, 10, 42, 0, 0, 0, -1))
    assert status_words("Zendesk", standing(waiting=3), at) == (
        "3 changes waiting · offline since 10:42"
    )
    assert status_words("Freshdesk", standing(1, 2, 1), None) == (
        "1 change waiting · 1 change to choose · 2 changes refused"
    )
    assert status_words("RT", standing(waiting=1234), None) == "1,234 changes waiting"


def test_each_ticket_says_where_its_changes_stand():
    assert ticket_words("Zendesk", None) == "In Zendesk"
    assert ticket_words("Zendesk", "waiting") == "Waiting to reach Zendesk"
    assert ticket_words("Zendesk", "refused", "no such agent") == (
        "Refused by Zendesk: no such agent"
    )
    assert ticket_words("Zendesk", "conflict").startswith("Changed in Zendesk too")


def test_values_read_as_the_console_shows_them():
    people = {"zendesk:7": "Priya Raman"}
    assert value_words("assignee", "zendesk:7", people) == "Priya Raman"
    assert value_words("assignee", None, people) == "Nobody"
    assert value_words("tags", [], people) == "no tags"
    assert value_words("priority", "urgent", people) == "Urgent"
    assert run_words("Zendesk", 0) == "The changes are in Zendesk."
