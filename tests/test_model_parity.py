"""The shell's model and the page's own model are the same model.

In the desktop app the shell applies every command (understudy_desktop/model/); in a plain
browser the page applies them itself (web_assets/js/catalogue.js and bus.js). Random queues
and random sequences of the person's commands go through both, and after every command the
outcome (its result, or the code of its refusal) and then every field of every ticket and of
the person's view must be equal. The page's model runs in Node, one process for the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from model_helpers import MemoryModel, page_worker

PEOPLE = [
    {"id": "priya", "name": "Priya Raman", "role": "Billing"},
    {"id": "tomasz", "name": "Tomasz Nowak", "role": "Bank feeds"},
    {"id": "ana", "name": "Ana Souza", "role": ""},
]
TEMPLATES = [
    {"id": "refund-ok", "name": "Refund approved", "body": "Hi {{requester_first_name}}, done."},
    {"id": "reset", "name": "Password reset", "body": "Hello {{requester_first_name}}!"},
]
STATUSES = ["new", "open", "pending", "solved", "closed"]
PRIORITIES = ["low", "normal", "high", "urgent"]
TAGS = ["billing", "vip", "bank-feed", "a", "z9", "refund_2"]
# Words with case, accents, a final sigma, a dotted capital I and wide characters, so both
# sides' lower-casing and searching meet the awkward cases.
WORDS = ["Refund", "BANK feed", "invoice", "ΟΔΟΣ", "İstanbul", "Straße", "日本", "😀 ok", "x"]
SPACE_CHARS = " \t\n\u00a0\u3000\ufeff\u2028\x1c\x85"  # JavaScript trims the first seven only
spaces = st.sampled_from(["", *SPACE_CHARS]).flatmap(
    lambda first: st.sampled_from(["", *SPACE_CHARS]).map(lambda second: first + second)
)


@pytest.fixture(scope="module")
def page_model() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    with page_worker() as ask:
        yield ask


text = st.builds(
    lambda a, b, sp: f"{sp}{a} {b}{sp}",
    st.sampled_from(WORDS),
    st.sampled_from(WORDS),
    spaces,
)
tag_lists = st.lists(st.sampled_from([*TAGS, "é", "ß", "日本"]), max_size=5, unique=True)


@st.composite
def queues(draw: st.DrawFn) -> dict[str, Any]:
    count = draw(st.integers(1, 8))
    tickets = [
        {
            "id": f"T-{1001 + i}",
            "subject": draw(text),
            "body": draw(text),
            "requester": draw(
                st.sampled_from(
                    ["Chloé Dubois <chloe@example.com>", "  Bob\u00a0Smith <b@x>", "", "Zoë"]
                )
            ),
            "created": "2026-11-01T09:00:00Z",
            "status": draw(st.sampled_from(STATUSES)),
            "priority": draw(st.sampled_from(PRIORITIES)),
            "assignee": draw(st.sampled_from([None, "priya", "tomasz"])),
            "tags": draw(tag_lists),
            "reply_draft": "",
        }
        for i in range(count)
    ]
    return {"tickets": tickets, "assignees": PEOPLE, "templates": TEMPLATES}


ticket_ids = st.sampled_from(["T-1001", "T-1002", "T-1003", "T-1009", "T-0000"])
tags = st.sampled_from([*TAGS, "Bad Tag", ""])
people = st.sampled_from(["priya", "tomasz", "ana", "mallory", None])


ODD = list(SPACE_CHARS)
FIXED_SEARCHES = ["", " refund", "BANK", "\u03c3", "i\u0307stan", "ok"]


@st.composite
def search(draw: st.DrawFn) -> str:
    """A piece of a word, in another case, with (often odd) spaces around it."""
    word = draw(st.sampled_from(WORDS))
    start = draw(st.integers(0, max(0, len(word) - 1)))
    piece = word[start : start + draw(st.integers(1, 6))]
    if draw(st.booleans()):
        piece = piece.upper()
    around = st.one_of(st.just(""), st.sampled_from(ODD))
    return draw(around) + piece + draw(around)


def filter_payload() -> st.SearchStrategy[dict[str, Any]]:
    fields = {
        "text": st.one_of(search(), st.sampled_from(FIXED_SEARCHES)),
        "status": st.sampled_from(["", *STATUSES]),
        "priority": st.sampled_from(["", *PRIORITIES]),
        "assignee": st.sampled_from(["", "__unassigned__", "priya", "tomasz"]),
        "tag": st.sampled_from(["", *TAGS]),
    }
    others = {k: v for k, v in fields.items() if k != "text"}
    return st.one_of(
        st.fixed_dictionaries({"text": fields["text"]}, optional=others),
        st.fixed_dictionaries({}, optional=fields),
    )


filtering = st.tuples(st.just("filter_tickets"), filter_payload())
command = st.one_of(
    filtering,
    filtering,
    filtering,
    st.tuples(st.just("get_ticket"), st.fixed_dictionaries({"ticket_id": ticket_ids})),
    st.tuples(st.just("list_templates"), st.just({})),
    st.tuples(st.just("list_assignees"), st.just({})),
    st.tuples(st.just("select_ticket"), st.fixed_dictionaries({"ticket_id": ticket_ids})),
    st.tuples(
        st.just("set_ticket_priority"),
        st.fixed_dictionaries(
            {"ticket_id": ticket_ids, "priority": st.sampled_from([*PRIORITIES, "mega"])}
        ),
    ),
    st.tuples(
        st.just("set_ticket_status"),
        st.fixed_dictionaries({"ticket_id": ticket_ids, "status": st.sampled_from(STATUSES)}),
    ),
    st.tuples(
        st.just("set_ticket_assignee"),
        st.fixed_dictionaries({"ticket_id": ticket_ids, "assignee": people}),
    ),
    st.tuples(
        st.just("set_ticket_tags"),
        st.fixed_dictionaries(
            {"ticket_id": ticket_ids, "tags": st.lists(st.sampled_from(TAGS), max_size=4)}
        ),
    ),
    st.tuples(
        st.just("add_ticket_tag"), st.fixed_dictionaries({"ticket_id": ticket_ids, "tag": tags})
    ),
    st.tuples(
        st.just("remove_ticket_tag"), st.fixed_dictionaries({"ticket_id": ticket_ids, "tag": tags})
    ),
    st.tuples(
        st.just("apply_template"),
        st.fixed_dictionaries(
            {
                "ticket_id": ticket_ids,
                "template_id": st.sampled_from(["refund-ok", "reset", "nope"]),
            }
        ),
    ),
    st.tuples(
        st.just("set_reply_draft"),
        st.fixed_dictionaries({"ticket_id": ticket_ids, "text": text}),
    ),
    st.tuples(st.just("tag_matching_tickets"), st.fixed_dictionaries({"tag": tags})),
    st.tuples(st.just("untag_matching_tickets"), st.fixed_dictionaries({"tag": tags})),
    st.tuples(
        st.just("set_matching_priority"),
        st.fixed_dictionaries({"priority": st.sampled_from(PRIORITIES)}),
    ),
    st.tuples(
        st.just("set_matching_status"), st.fixed_dictionaries({"status": st.sampled_from(STATUSES)})
    ),
    st.tuples(st.just("assign_matching_tickets"), st.fixed_dictionaries({"assignee": people})),
    # Not commands, or payloads that do not fit: refused alike, and nothing changes.
    st.tuples(st.sampled_from(["delete_everything", "set_ticket_priority"]), st.just({"x": 1})),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    queue=queues(),
    sequence=st.integers(10, 40).flatmap(lambda n: st.lists(command, min_size=n, max_size=n)),
)
def test_random_commands_leave_both_models_in_the_same_state(page_model, queue, sequence):
    page = page_model({"queue": queue, "commands": [list(c) for c in sequence]})
    shell = MemoryModel(queue)
    for (name, payload), theirs in zip(sequence, page["outcomes"], strict=True):
        ours = shell.dispatch(name, payload)
        if theirs["ok"]:
            assert ours["ok"], (name, payload, ours)
            assert ours["result"] == theirs["result"], (name, payload)
        else:
            assert not ours["ok"], (name, payload, ours)
            assert ours["code"] == theirs["code"], (name, payload, ours)
    assert shell.tickets() == page["tickets"]
    assert shell.view.as_dict() == page["view"]
