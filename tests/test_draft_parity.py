"""The shell drafts an agent's tool itself (library/draft_compiler.py); the page drafts in a plain
browser (js/teach/draft_builder.js). One set of recordings, with what an author chose for
each, goes through both, and every draft must be the same: the definition, the problems and
the warnings word for word, or the same refusal."""

from __future__ import annotations

import copy
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.library.draft_compiler import build_draft
from understudy_desktop.library.generalize import GeneralizeError
from understudy_desktop.paths import web_assets_dir

PRIYA = {"kind": "person", "name": "Priya Raman"}
REFUND = {"kind": "template", "name": "Refund approved"}

# A value each field of the catalogue takes, as a person would have given it.
VALUES: dict[str, Any] = {
    "ticket_id": "T-1001",
    "text": "refund",
    "status": "pending",
    "priority": "high",
    "assignee": "u-priya",
    "tag": "refund",
    "tags": ["refund", "vip"],
    "template_id": "tpl-refund",
}
REFS = {"assignee": PRIYA, "template_id": REFUND}
PICKED_TAG = {"tag": "picked"}
CONTEXT = {"text": "context"}


def step(command: str, payload: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"command": command, "payload": payload, **extra}


def recording(rid: str, *steps: dict[str, Any]) -> dict[str, Any]:
    return {"id": rid, "name": rid, "createdAt": "2026-12-01T09:00:00Z", "steps": list(steps)}


def one_step_each() -> list[dict[str, Any]]:
    """Every command of the catalogue, once as typed, once as picked, once as it was."""
    recordings = []
    for cid, info in sorted(current_catalogue().commands.items()):
        fields = list((info.payload_schema.get("properties") or {}).keys())
        payload = {f: VALUES[f] for f in fields}
        refs = {f: REFS[f] for f in fields if f in REFS}
        for how in ("typed", "picked", None):
            provenance = {f: how for f in fields} if how else {}
            recordings.append(
                recording(f"rec-{cid}-{how}", step(cid, payload, provenance=provenance, refs=refs))
            )
    return recordings


def routine() -> dict[str, Any]:
    """Find a ticket, open it, change it: bindings, one ticket asked once, named people."""
    return recording(
        "rec-routine",
        step("filter_tickets", {"text": "refund", "status": ""}, provenance={"text": "typed"}),
        step("select_ticket", {"ticket_id": "T-1001"}, result={"ticket_id": "T-1001", "n": 1}),
        step("set_ticket_priority", {"ticket_id": "T-1001", "priority": "high"}),
        step(
            "set_ticket_assignee",
            {"ticket_id": "T-1001", "assignee": "u-priya"},
            provenance={"assignee": "picked"},
            refs={"assignee": PRIYA},
        ),
        step(
            "apply_template",
            {"ticket_id": "T-1001", "template_id": "tpl-refund"},
            provenance={"template_id": "picked"},
            refs={"template_id": REFUND},
        ),
        step("add_ticket_tag", {"ticket_id": "T-1002", "tag": "vip"}, provenance={"tag": "typed"}),
        step("set_reply_draft", {"ticket_id": "T-1002", "text": "Done."}),
        step("tag_matching_tickets", {"tag": "vip"}, provenance={"tag": "typed"}),
        step("set_matching_status", {"status": "solved"}, provenance={"status": "picked"}),
    )


def odd_values() -> list[dict[str, Any]]:
    """Values the two languages could tell apart: 1 and 1.0, false and 0, key order, a result
    that is a list, a binding in a result of a command this console does not have."""
    return [
        recording(
            "rec-numbers",
            step("get_ticket", {"ticket_id": 1}),
            step("get_ticket", {"ticket_id": 1.0}),
            step("get_ticket", {"ticket_id": False}),
            step("get_ticket", {"ticket_id": 0}),
            step("get_ticket", {"ticket_id": None}),
            step("get_ticket", {"ticket_id": {"b": 1, "a": 2}}),
            step("get_ticket", {"ticket_id": {"a": 2, "b": 1}}),
        ),
        recording(
            "rec-results",
            step("get_ticket", {"ticket_id": "T-1"}, result=["T-1"]),
            step("select_ticket", {"ticket_id": "T-1"}, result={"ticket_id": 1}),
            step("set_ticket_status", {"ticket_id": 1, "status": "open"}),
            step("set_ticket_status", {"ticket_id": "T-1", "status": "open"}),
        ),
        recording(
            "rec-fields",
            step(
                "set_ticket_tags",
                {"tags": ["b", "a"], "ticket_id": "T-9", "2": "x", "10": "y", "extra": 1},
                provenance={"tags": "typed", "2": "typed", "10": "typed", "extra": "picked"},
            ),
            step("add_ticket_tag", {"ticket_id": "T-9", "tag": "a"}, provenance={"tag": "typed"}),
            step("add_ticket_tag", {"ticket_id": "T-8", "tag": "b"}, provenance={"tag": "typed"}),
            step("remove_ticket_tag", {"ticket_id": "T-9", "tag": "a"}, provenance=PICKED_TAG),
        ),
        recording("rec-nobody", step("assign_matching_tickets", {"assignee": None})),
        recording(
            "rec-context",
            step("filter_tickets", {"text": "late", "status": "open"}, provenance=CONTEXT),
        ),
    ]


def cases() -> list[dict[str, Any]]:
    meta = {"name": "do_it", "title": "Do it", "description": "Does it.", "parameters": {}}
    out = [{"recording": r, "pairWith": None, "meta": meta} for r in one_step_each()]
    out += [{"recording": r, "pairWith": None, "meta": meta} for r in odd_values()]
    base = routine()
    choices: list[dict[str, Any]] = [
        {},
        {"ticket_id": {"bind": False}},
        {"assignee": {"bind": True, "description": "Who takes it"}},
        {"assignee": {"bind": True}, "template_id": {"bind": True, "description": " "}},
        {"phrase": {"rename": "words", "description": "x" * 151}},
        {"ticket_id": {"rename": "ticket_id_2"}},  # the name of another question
        {"ticket_id": {"rename": "ticket"}, "ticket": {"description": "The ticket"}},
        {"nothing_here": {"bind": True}},
        {"tag": {"rename": "Bad-Name", "bind": True}},
        {"😀" * 30: {"bind": True}},
        {"ticket_id": {"description": ""}},
    ]
    out += [
        {"recording": base, "pairWith": None, "meta": {**meta, "parameters": c}} for c in choices
    ]
    metas: list[dict[str, Any]] = [
        {"name": "Bad Name", "title": "x" * 81, "description": ""},
        {"name": "understudy_mine", "title": "😀" * 40, "description": "\ufeff\u00a0 Does. \n"},
        {"name": " padded_name ", "title": " Padded ", "description": "d" * 501},
        {"name": "a" * 31, "description": "\u2028"},
        {"name": "", "title": "", "description": "\x1fstays\x1f"},
    ]
    out += [{"recording": base, "pairWith": None, "meta": m} for m in metas]
    # Pairs: what differs is asked, what agrees stays; mismatches are refused.
    other = copy.deepcopy(base)
    other["id"] = "rec-routine-2"
    other["steps"][3]["payload"]["assignee"] = "u-sam"
    other["steps"][6]["payload"]["text"] = "Done!"
    other["steps"][7]["payload"]["tag"] = "gold"
    other["steps"][0]["payload"].pop("status")
    shorter = copy.deepcopy(base)
    shorter["steps"].pop()
    context = recording(
        "rec-context-2",
        step("filter_tickets", {"text": "soon", "status": "open"}, provenance=CONTEXT),
    )
    unknown = recording("rec-unknown", step("no_such_command", {"x": 1}))
    pairs = [
        (base, other),
        (base, copy.deepcopy(base)),
        (base, shorter),
        (odd_values()[4], context),
        (unknown, copy.deepcopy(unknown)),
        (recording("rec-empty"), recording("rec-empty-2")),
    ]
    out += [{"recording": a, "pairWith": b, "meta": meta} for a, b in pairs]
    out += [
        {"recording": unknown, "pairWith": None, "meta": meta},
        {"recording": recording("rec-none"), "pairWith": None, "meta": meta},
        {"recording": {"id": "rec-no-steps"}, "pairWith": None, "meta": meta},
    ]
    return out


def page_drafts(corpus: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return run_page("draft_parity_runner.mjs", corpus)


def run_page(runner_name: str, cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """What one of the page's parity runners (web_assets/tests) makes of each case, in Node."""
    runner = web_assets_dir() / "tests" / runner_name
    done = subprocess.run(
        ["node", str(runner)],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
        cwd=Path(runner).parent,
    )
    made: list[dict[str, Any]] = json.loads(done.stdout)
    return made


def shell_draft(case: dict[str, Any]) -> dict[str, Any]:
    given = copy.deepcopy(case)  # the compiler must not change what it was handed
    try:
        built = build_draft(
            given["recording"], given["pairWith"], given["meta"], current_catalogue()
        )
    except GeneralizeError as exc:
        return {"error": str(exc)}
    assert given == case
    shown = {"definition": built.definition, "problems": built.problems, "warnings": built.warnings}
    result: dict[str, Any] = json.loads(json.dumps(shown))
    return result


@pytest.fixture(scope="module")
def both() -> list[tuple[dict[str, Any], dict[str, Any], dict[str, Any]]]:
    corpus = cases()
    page = page_drafts(corpus)
    return list(zip(corpus, page, [shell_draft(c) for c in corpus], strict=True))


def test_the_shell_and_the_page_draft_every_recording_alike(both):
    for case, page, shell in both:
        assert shell == page, (case, page, shell)


def test_the_corpus_reaches_each_rule(both):
    """Without these, an equal verdict could be two sides agreeing on nothing much."""
    shell = [s for _, _, s in both]
    errors = [s["error"] for s in shell if "error" in s]
    drafts = [s for s in shell if "definition" in s]
    args = [a for d in drafts for st in d["definition"]["steps"] for a in st["args"].values()]
    problems = {p for d in drafts for p in d["problems"]}
    assert {a["from"] for a in args} == {"param", "const", "step"}
    assert any("ref" in a for a in args)
    assert any(d["warnings"] for d in drafts)
    assert any(d["definition"]["inputSchema"]["required"] for d in drafts)
    assert sum(1 for p in problems if p.startswith("What agents call it")) == 2
    assert any(p.startswith("Name: ") for p in problems)
    assert any(p.startswith("Description: ") for p in problems)
    assert any(p.startswith("Say in a few words") for p in problems)
    assert any(p.startswith("The name for ") for p in problems)
    assert any(" characters; the limit is 150." in p for p in problems)
    assert any("do not do the same steps" in e for e in errors)
    assert any("no longer has" in e for e in errors)
    assert any("has no steps" in e for e in errors)
    assert any("no value by one of those names" in e for e in errors)
    assert not any("nothing_here" in e for e in errors)  # the name given is not said back
    commands = {st["command"] for d in drafts for st in d["definition"]["steps"]}
    assert commands == set(current_catalogue().commands)
