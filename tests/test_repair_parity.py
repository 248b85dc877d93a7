"""The shell repairs a tool itself (library/repair_compiler.py); the page repairs in a plain
browser (js/teach/repair.js). One set of tools, each with every step re-done in several ways,
goes through both, and every repair must be the same: the definition, or the same refusal in
the same words."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from test_draft_parity import REFUND, VALUES, cases, run_page, step

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.library.draft_compiler import build_draft
from understudy_desktop.library.generalize import GeneralizeError
from understudy_desktop.library.repair_compiler import RepairError, repair_definition

ANA = {"kind": "person", "name": "Ana Souza"}


def tools() -> list[dict[str, Any]]:
    """The definitions the draft corpus compiles to without a problem: tools as published."""
    catalogue = current_catalogue()
    out = []
    for case in cases():
        try:
            built = build_draft(case["recording"], case["pairWith"], case["meta"], catalogue)
        except GeneralizeError:
            continue
        if not built.problems:
            out.append(built.definition)
    return out


def redoings(command: str) -> list[list[dict[str, Any]]]:
    """Ways a person re-does a step that gave `command`: the same command with other values
    (a picked person or template keeps its name), with a search and an open before it, a
    different command, two changes, reads only, and a command the console does not have."""
    catalogue = current_catalogue()
    info = catalogue.commands[command]
    fields = list((info.payload_schema.get("properties") or {}).keys())
    other = {**VALUES, "assignee": "u-ana", "template_id": "tpl-welcome", "status": "closed"}
    payload = {f: other[f] for f in fields}
    refs = {f: {"assignee": ANA, "template_id": REFUND}[f] for f in fields if f in REFS_FIELDS}
    same = step(command, payload, refs=refs, provenance={f: "picked" for f in refs})
    search = step("filter_tickets", {"text": "refund", "status": ""})
    opened = step("select_ticket", {"ticket_id": "T-1002"}, result={"ticket_id": "T-1002"})
    priority = step("set_ticket_priority", {"ticket_id": "T-1002", "priority": "low"})
    status = step("set_ticket_status", {"ticket_id": "T-1002", "status": "pending"})
    return [
        [same],
        [search, opened, same],
        [priority],
        [status, priority],
        [search, opened],
        [opened],
        [],
        [step("format_disk", {"ticket_id": "T-1002"})],
        [search, step("format_disk", {"ticket_id": "T-1002"})],
    ]


REFS_FIELDS = ("assignee", "template_id")


def corpus() -> list[dict[str, Any]]:
    out = []
    for definition in tools():
        count = len(definition["steps"])
        for index in range(-1, count + 1):  # each step, and one before and past the ends
            command = definition["steps"][min(max(index, 0), count - 1)]["command"]
            for steps in redoings(command):
                out.append({"definition": definition, "step": index, "steps": steps})
    return out


def page_repairs(cases_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return run_page("repair_parity_runner.mjs", cases_)


def shell_repair(case: dict[str, Any]) -> dict[str, Any]:
    given = copy.deepcopy(case)  # the repair must not change what it was handed
    try:
        made = repair_definition(
            given["definition"], given["step"], given["steps"], current_catalogue()
        )
    except RepairError as exc:
        return {"error": str(exc)}
    assert given == case
    result: dict[str, Any] = json.loads(json.dumps({"definition": made}))
    return result


@pytest.fixture(scope="module")
def both() -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    cases_ = corpus()
    page = page_repairs(cases_)
    return list(zip(cases_, page, [shell_repair(c) for c in cases_], strict=True))


def test_the_shell_and_the_page_repair_every_tool_alike(both):
    for case, page, shell in both:
        assert shell == page, (case, page, shell)


def test_the_corpus_reaches_each_rule(both):
    """A parity that never meets a rule proves nothing about it."""
    made = [s["definition"] for _c, _p, s in both if "definition" in s]
    starts = ("The tool has no step", "Re-do just the one step", "A step you recorded is not")
    errors = [s["error"] for _c, _p, s in both if "error" in s]
    assert {next(w for w in starts if e.startswith(w)) for e in errors} == set(starts)
    specs = [a for d in made for s in d["steps"] for a in s["args"].values()]
    assert {a["from"] for a in specs} >= {"param", "step", "const"}
    assert any("ref" in a for a in specs)  # a picked person or template kept with its name
    before = {json.dumps(c["definition"]["inputSchema"], sort_keys=True) for c, _p, _s in both}
    after = {json.dumps(d["inputSchema"], sort_keys=True) for d in made}
    assert after - before  # a question no step uses any more left the input
    flips = {
        (
            c["definition"]["annotations"]["readOnlyHint"],
            s["definition"]["annotations"]["readOnlyHint"],
        )
        for c, _p, s in both
        if "definition" in s
    }
    assert {(True, False), (False, True)} <= flips  # annotations worked out again
    assert len(made) > 50
