"""A taught tool's run is the same run in the page (a plain browser) and in the shell.

In the desktop app the shell runs every taught tool (model/runs.py, in one transaction); in a
plain browser the page's runner does (js/teach/runner.js, rolled back through the bus's undo
records). Random taught tools (steps of the catalogue's commands, each field a fixed value,
a question or an earlier step's result, some naming people and templates by name, some not
on this queue), random questions and answers (some that do not fit), and callers that give
up part way go through both on random queues, and on large ones where answers meet the output
budget.
Every answer (result, or refusal code and words, the step it stopped at and whether it
rolled back) and then every field of every ticket and the person's view must be equal.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from model_helpers import MemoryModel, page_worker
from test_model_parity import PRIORITIES, STATUSES, TAGS, queues, search, text, ticket_ids

from understudy_desktop.catalogue import current_catalogue

CATALOGUE = current_catalogue()
COMMANDS = sorted(CATALOGUE.commands)

# What a field may be given, valid or not: both sides must refuse the same ones alike.
people = st.sampled_from(
    ["priya", "tomasz", "ana", "mallory", None, "Priya Raman", "ANA SOUZA", "__unassigned__", ""]
)
FIELD_VALUES: dict[str, st.SearchStrategy[Any]] = {
    "ticket_id": ticket_ids,
    "priority": st.sampled_from([*PRIORITIES, "mega", ""]),
    "status": st.sampled_from([*STATUSES, ""]),
    "assignee": people,
    "tags": st.lists(st.sampled_from(TAGS), max_size=4),
    "tag": st.sampled_from([*TAGS, "Bad Tag", ""]),
    "template_id": st.sampled_from(["refund-ok", "reset", "nope", "Password reset"]),
    "text": st.one_of(text, search()),
}
# Values that fit each field (a person or template by id or by name), most of what is given.
FITTING: dict[str, st.SearchStrategy[Any]] = {
    "ticket_id": st.sampled_from(["T-1001", "T-1002", "T-1003"]),
    "priority": st.sampled_from(PRIORITIES),
    "status": st.sampled_from(STATUSES),
    "assignee": st.sampled_from(["priya", "tomasz", "Priya Raman", None]),
    "tags": st.lists(st.sampled_from(TAGS), max_size=3, unique=True),
    "tag": st.sampled_from(TAGS),
    "template_id": st.sampled_from(["refund-ok", "reset", "Password reset"]),
}
ODD_VALUES = st.sampled_from([5, True, ["T-1001"], {"x": 1}])
# Names a tool keeps for its people and templates: on this queue, in another case, or not.
REF_NAMES = ["Priya Raman", "tomasz nowak", "Zed Unknown", "Refund approved", "PASSWORD RESET"]
PATHS = ["id", "ticket_id", "matched", "assignee", "priority", "status", "tags", "nope"]
PARAM_NAMES = ["ticket_id", "who", "answer", "tag", "priority", "status", "text"]


def field_value(name: str) -> st.SearchStrategy[Any]:
    """Mostly a value that fits the field; else any, fitting or not."""
    fitting = FITTING.get(name, text)
    anything = FIELD_VALUES.get(name, st.one_of(text, ODD_VALUES))
    return st.one_of(fitting, fitting, anything)


def one_in(n: int) -> st.SearchStrategy[bool]:
    """True about once in n draws (hypothesis leans to the ends of an integer range)."""
    return st.sampled_from([False] * (n - 1) + [True])


@st.composite
def taught_tool(
    draw: st.DrawFn, commands: list[str], most: int
) -> tuple[dict[str, Any], dict[str, str]]:
    """A tool as a definition holds it (steps of `commands`, and the questions its parameters
    ask), with the field each question first fills."""
    steps: list[dict[str, Any]] = []
    properties: dict[str, Any] = {}
    asks: dict[str, str] = {}
    for index in range(draw(st.integers(1, most))):
        command = "wipe" if draw(one_in(25)) else draw(st.sampled_from(commands))
        info = CATALOGUE.commands.get(command)
        fields = list(info.payload_schema.get("properties", {})) if info else ["ticket_id"]
        if draw(one_in(12)):
            fields.append("stray")  # a field the command does not take
        args: dict[str, Any] = {}
        for name in fields:
            if draw(one_in(12)):
                continue  # left out: required ones are refused by the command
            source = draw(st.sampled_from(["const"] * 4 + ["param"] * 3 + ["step"]))
            if source == "const":
                arg: dict[str, Any] = {"from": "const", "value": draw(field_value(name))}
                kind = info.refs.get(name) if info else None
                if kind and draw(st.booleans()):
                    arg["ref"] = {"kind": kind, "name": draw(st.sampled_from(REF_NAMES))}
                args[name] = arg
            elif source == "param":
                # Mostly a question of its own; sometimes one an earlier field asks too.
                param = draw(st.sampled_from([name] * 4 + PARAM_NAMES))
                args[name] = {"from": "param", "name": param}
                if param not in properties:
                    schema = copy.deepcopy(
                        info.payload_schema["properties"].get(name, {}) if info else {}
                    )
                    schema.pop("description", None)
                    if draw(one_in(4)):
                        schema["default"] = draw(field_value(name))
                    properties[param] = schema
                    asks[param] = name
            else:
                # An earlier step's result, or (when `step` is not earlier) none: refused.
                at = draw(st.integers(0, index))
                args[name] = {"from": "step", "step": at, "path": draw(st.sampled_from(PATHS))}
        steps.append({"command": command, "args": args})
    required = draw(st.lists(st.sampled_from(sorted(properties) or ["x"]), unique=True))
    schema = {
        "type": "object",
        "properties": properties,
        "required": [r for r in required if r in properties],
        "additionalProperties": False,
    }
    return {"name": "taught", "inputSchema": schema, "steps": steps}, asks


@st.composite
def a_run(draw: st.DrawFn, commands: list[str] = COMMANDS, most: int = 5) -> dict[str, Any]:
    tool, asks = draw(taught_tool(commands, most))
    answers: dict[str, Any] = {}
    for name, fills in asks.items():
        choice = draw(st.sampled_from(["fits"] * 8 + ["left out", "odd"]))
        if choice == "fits":
            answers[name] = draw(field_value(fills))
        elif choice == "odd":
            answers[name] = draw(ODD_VALUES)
    if draw(one_in(15)):
        answers["unasked"] = "x"
    stops = st.integers(0, len(tool["steps"]) - 1)
    stop = draw(st.one_of(st.none(), st.none(), st.none(), stops))
    return {"definition": tool, "input": answers, "stopAfter": stop}


@st.composite
def large_queues(draw: st.DrawFn) -> dict[str, Any]:
    """200 tickets with long bodies: a ticket read, or the tickets a run changed, overflow the
    output budget, and both sides must trim them alike."""
    queue = draw(queues())
    first = queue["tickets"][0]
    queue["tickets"] = [
        {**first, "id": f"T-{1001 + i}", "body": first["body"] * 120} for i in range(200)
    ]
    return queue


# What reads a whole ticket or changes many: the steps whose answers meet the budget.
LARGE_ANSWERS = [
    "get_ticket",
    "filter_tickets",
    "tag_matching_tickets",
    "untag_matching_tickets",
    "set_matching_priority",
    "set_matching_status",
    "assign_matching_tickets",
]


@pytest.fixture(scope="module")
def page_model() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    with page_worker() as ask:
        yield ask


# The shell's own bookkeeping beside an answer: whose mistake a failure was (the library does
# not count a caller's typo against the tool). The page keeps no such counts.
SHELL_ONLY = {"badInput"}


def compared(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer as both sides must give it. Values that do not fit (the tool's questions, or
    a step's fields) are told in each validator's own words (jsonschema's, pydantic's,
    @cfworker/json-schema's): the code and the step, not the sentence, are held equal there,
    as tests/test_model_parity.py holds a command's refusal by its code."""
    out = {k: v for k, v in answer.items() if k not in SHELL_ONLY}
    if out.get("code") == "invalid_input" or out.get("reason") == "invalid_payload":
        out["message"] = out["message"].split(":", 1)[0]
    return out


def runs_alike(page_model: Callable[..., dict[str, Any]], queue: Any, sent: Any) -> None:
    page = page_model({"queue": queue, "runs": sent})
    shell = MemoryModel(queue)
    for run, theirs in zip(sent, page["answers"], strict=True):
        ours = shell.run(run["definition"], run["input"], run["stopAfter"])
        assert compared(ours) == compared(theirs), run
        event("ran" if ours.get("ok") else f"refused: {ours.get('code')} {ours.get('reason', '')}")
        if "_more" in json.dumps(ours) or "\u2026" in json.dumps(ours, ensure_ascii=False):
            event("an answer trimmed to the output budget")
    assert shell.tickets() == page["tickets"]
    assert shell.view.as_dict() == page["view"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queue=queues(), sent=st.lists(a_run(), min_size=1, max_size=4))
def test_random_taught_tools_run_alike_in_the_page_and_the_shell(page_model, queue, sent):
    runs_alike(page_model, queue, sent)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(queue=large_queues(), sent=st.lists(a_run(LARGE_ANSWERS, 2), min_size=1, max_size=2))
def test_answers_over_the_output_budget_are_trimmed_alike(page_model, queue, sent):
    runs_alike(page_model, queue, sent)
