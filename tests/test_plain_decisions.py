"""What a plain browser lets happen without a person's approval is what the shell would too.

In the desktop app consent/manifest.py says which actions are sensitive, and the shell puts
each of them to the person in its native dialog. In a plain browser (native WebMCP, the page
its own app) the page's overlay is the approval. Random sequences of what the page can be
asked (the library's buttons, a person's or an agent's publish or repair, every built-in tool
an agent can call, the person's Approve and Reject) go through the page's own library, overlay
and built-in tools in Node. After each: an action the manifest calls sensitive was put to the
overlay or refused, and changed no tool until the person approved; any other was never put to
the overlay; and only an Approve changes what was put to it. Approved publishes meet the same
cap on active tools and the same name rule on both sides.
"""

from __future__ import annotations

import copy
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from model_helpers import page_worker
from test_model_parity import PEOPLE, TEMPLATES
from test_refusals import CAP, publish
from test_refusals import definition as approved

from understudy_desktop.agent.builtins import listed_builtins
from understudy_desktop.bridge.protocol import LibraryAction
from understudy_desktop.consent import manifest
from understudy_desktop.consent.manifest import SensitiveAction
from understudy_desktop.consent.seal import load_seal
from understudy_desktop.library.library import Library, new_tool
from understudy_desktop.library.model import Origin
from understudy_desktop.qt_thread import init_main_thread_dispatch
from understudy_desktop.store.database import Database

# What the shell does with each of the library's buttons (shell/console_asks.py
# _library_action): the sensitive action its dialog asks about, or None. A Run asks only for a
# tool marked "ask me every time"; a run on a selection is always shown first.
LIBRARY_BUTTONS: dict[str, SensitiveAction | None] = {
    "run": manifest.RUN_TOOL,
    "run_selection": manifest.RUN_TOOL,
    "disable": manifest.DISABLE_TOOL,
    "enable": manifest.ENABLE_TOOL,
    "revoke": manifest.REVOKE_TOOL,
    "ask": None,
    "relax": manifest.RELAX_TOOL,
    "review": manifest.REVIEW_TOOL,
}
BUILTINS = sorted(str(t["name"]) for t in listed_builtins())
QUEUE = {
    "tickets": [{"id": "T-1001", "subject": "Refund", "body": "x", "status": "new"}],
    "assignees": PEOPLE,
    "templates": TEMPLATES,
}
NAMES = ["raise_it", "close_it", "tag_it"]


def definition(name: str, priority: str) -> dict[str, Any]:
    return {
        "name": name,
        "title": "",
        "description": f"Set a ticket's priority to {priority}.",
        "inputSchema": {
            "type": "object",
            "properties": {"ticket_id": {"type": "string"}},
            "required": ["ticket_id"],
        },
        "annotations": {"readOnlyHint": False},
        "steps": [
            {
                "command": "set_ticket_priority",
                "args": {
                    "ticket_id": {"from": "param", "name": "ticket_id"},
                    "priority": {"from": "const", "value": priority},
                },
            }
        ],
    }


definitions = st.builds(
    definition, st.sampled_from(NAMES), st.sampled_from(["low", "high", "urgent"])
)
names = st.sampled_from([*NAMES, "gone"])


def builtin_call(name: str) -> st.SearchStrategy[dict[str, Any]]:
    """An agent's call of a built-in tool, with arguments that name the tools here."""
    base: dict[str, Any] = {"kind": "builtin", "name": name}
    if name == "understudy_publish_tool":
        publish = st.builds(lambda d: {**base, "definition": d}, definitions)
        revoke = st.builds(lambda n: {**base, "arguments": {"revoke": n, "poll": True}}, names)
        return st.one_of(publish, revoke)
    if name == "understudy_run_tool":
        return st.builds(
            lambda n: {**base, "arguments": {"name": n, "arguments": {"ticket_id": "T-1001"}}},
            names,
        )
    if name == "understudy_revoke_tool":
        return st.builds(lambda n: {**base, "arguments": {"name": n, "poll": True}}, names)
    return st.just({**base, "arguments": {"recording_id": "none", "name": "x", "description": "x"}})


ask = st.one_of(
    st.builds(
        lambda a, n: {"kind": "library", "action": a, "tool": n},
        st.sampled_from(sorted(get_args(LibraryAction))),
        names,
    ),
    st.builds(
        lambda d, r: {"kind": "publish", "definition": d, "replaces": r},
        definitions,
        st.booleans(),
    ),
    st.sampled_from(BUILTINS).flatmap(builtin_call),
    st.builds(lambda a: {"kind": "decide", "approve": a}, st.booleans()),
)


def sensitive(request: dict[str, Any], published: set[str]) -> SensitiveAction | None:
    """The shell's rule for one ask: the action its dialog would ask about, or None."""
    if request["kind"] == "library":
        action = LIBRARY_BUTTONS[request["action"]]
        # A Run asks only for a tool marked "ask me every time": the page keeps none so.
        return None if request["action"] == "run" else action
    if request["kind"] == "publish":
        repair = request["replaces"] and request["definition"]["name"] in published
        return manifest.REPAIR_TOOL if repair else manifest.PUBLISH_TOOL
    if request["name"] == "understudy_publish_tool" and "revoke" in request.get("arguments", {}):
        return manifest.REVOKE_TOOL
    return manifest.SENSITIVE_META_TOOLS.get(request["name"])


@pytest.fixture(scope="module")
def page_model() -> Iterator[Callable[[dict[str, Any]], dict[str, Any]]]:
    with page_worker() as ask_page:
        yield ask_page


def test_every_library_button_has_the_shells_rule():
    assert sorted(LIBRARY_BUTTONS) == sorted(get_args(LibraryAction))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    start=st.lists(st.sampled_from(NAMES), unique=True).map(
        lambda ns: [definition(n, "high") for n in ns]
    ),
    asks=st.lists(ask, min_size=1, max_size=12),
)
def test_the_page_asks_the_person_exactly_where_the_shell_would(page_model, start, asks):
    page = page_model({"queue": copy.deepcopy(QUEUE), "tools": start, "asks": asks})
    published = {d["name"] for d in start}
    waiting = 0  # asks put to the overlay and not decided yet
    for request, seen in zip(asks, page["seen"], strict=True):
        decision, changed = seen["decision"], seen["changed"]
        event(f"{request['kind']} {request.get('action') or request.get('name') or ''}: {decision}")
        if request["kind"] == "decide":
            # Only the person's Approve of something put to them changes a tool.
            assert not changed or (request["approve"] and decision == "decided"), request
            waiting = max(0, waiting - 1) if decision == "decided" else waiting
            continue
        rule = sensitive(request, published)
        if rule is not None:
            assert decision in ("asked", "refused", "failed"), (rule.name, request, decision)
            assert not changed, (rule.name, request)
        else:
            assert decision != "asked", (request, decision)
        waiting += decision == "asked"


@st.composite
def publishes(draw: st.DrawFn) -> list[str]:
    """Names to publish: around the cap's number of different ones, some given twice."""
    pool = [f"tool_{i}" for i in range(CAP + 3)]
    names = draw(st.permutations(pool))[: draw(st.integers(CAP - 2, len(pool)))]
    for again in draw(st.lists(st.sampled_from(pool), max_size=3)):
        names.insert(draw(st.integers(0, len(names))), again)
    return names


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(names=publishes())
def test_approved_publishes_meet_the_same_cap_and_names(qtbot, page_model, names):
    page = page_model(
        {"queue": copy.deepcopy(QUEUE), "publish": [definition(n, "high") for n in names]}
    )
    init_main_thread_dispatch()
    with tempfile.TemporaryDirectory() as folder:
        db = Database(Path(folder))
        try:
            library = Library(db, load_seal(Path(folder) / "keys"))
            library.load()
            codes = []
            for name in names:
                refused = publish(qtbot, library, new_tool(approved(name), Origin(by="person")))
                codes.append("ok" if refused is None else refused.code)
            held = sorted(t.name for t in library.tools())
        finally:
            db.close()
    event(f"{codes.count('cap_reached')} refused at the cap")
    assert codes == page["codes"]
    assert held == page["names"]
