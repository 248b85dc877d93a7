"""The page and the shell apply the same rules: one corpus of schemas, names and step lists
goes through the page's checks (node, js/teach/compile.js) and the shell's (library/lint.py,
rules.py, catalogue.py), and every verdict must be the same, word for word."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from waiting import HANG_S

from understudy_desktop.catalogue import current_catalogue
from understudy_desktop.library.lint import lint_schema
from understudy_desktop.paths import web_assets_dir
from understudy_desktop.rules import rules

OBJ = {"type": "object"}
STRING = {"type": "string"}


def schemas() -> list[Any]:
    ref = {"$ref": "#/$defs/x"}
    nested = [
        {**OBJ, "properties": {"a": ref}},
        {**OBJ, "properties": {"a": {"type": "array", "items": ref}}},
        {**OBJ, "additionalProperties": ref},
        {**OBJ, "properties": {"a": {"anyOf": [STRING, ref]}}},
        {**OBJ, "properties": {"a": {"type": "object", "properties": {"b": ref}}}},
        {**OBJ, "properties": {"a": {"prefixItems": [ref]}}},
        {**OBJ, "properties": {"a": {"not": {"$dynamicRef": "#x"}}}},
    ]
    odd = [
        {**OBJ, "properties": {"a": {**STRING, "minLength": 5, "maxLength": 2}}},
        {**OBJ, "properties": {"a": {"type": "number", "minimum": 3, "maximum": 1}}},
        {**OBJ, "properties": {"a": {"type": "array", "minItems": 3, "maxItems": 1}}},
        {**OBJ, "properties": {"a": {"enum": []}}},
        {**OBJ, "properties": {}, "required": ["a"], "additionalProperties": False},
        {**OBJ, "properties": {"a": {**STRING, "frobnicate": True}}},
        {**OBJ, "$schema": "http://json-schema.org/draft-07/schema#"},
        {**OBJ, "$schema": "https://json-schema.org/draft/2020-12/schema"},
        {"type": "array"},
        {**OBJ, "$ref": "#/x"},
        {**OBJ, "properties": {"a": {**STRING, "pattern": "^T-[0-9]+$", "default": "T-1"}}},
        {**OBJ, "properties": {"a": {"oneOf": [STRING, {"type": "null"}]}}},
        {**OBJ, "properties": {"a": {"allOf": [{"minLength": 1}, {"maxLength": 0}]}}},
        {**OBJ, "properties": {"a": {"type": "array", "contains": {"frob": 1}}}},
        [OBJ],
        "object",
        None,
        7,
    ]
    return [OBJ, *nested, *odd]


NAMES = [
    "assign_refund",
    "a",
    "A",
    "1abc",
    "a" * 30,
    "a" * 31,
    "a" * 40,
    "a" * 41,
    "with space",
    "kebab-case",
    "understudy_x",
    "ümlaut",
    "",
    "a_b_c_9",
]


def step_lists() -> list[list[dict[str, Any]]]:
    ids = sorted(current_catalogue().commands)
    lists: list[list[dict[str, Any]]] = [[], [{"command": "no_such_command"}]]
    lists += [[{"command": c}] for c in ids]
    lists += [[{"command": a}, {"command": b}] for a, b in zip(ids, reversed(ids), strict=True)]
    return lists


def page_verdicts(corpus: dict[str, Any]) -> dict[str, Any]:
    runner = web_assets_dir() / "tests" / "parity_runner.mjs"
    done = subprocess.run(
        ["node", str(runner)],
        input=json.dumps(corpus),
        capture_output=True,
        text=True,
        check=True,
        timeout=HANG_S,
        cwd=Path(runner).parent,
    )
    verdicts: dict[str, Any] = json.loads(done.stdout)
    return verdicts


def test_the_page_and_the_shell_judge_one_corpus_alike():
    corpus = {"schemas": schemas(), "names": NAMES, "stepLists": step_lists()}
    page = page_verdicts(corpus)
    policy = rules()
    catalogue = current_catalogue()
    shell = {
        "schemas": [lint_schema(s) for s in corpus["schemas"]],
        "toolNames": [
            bool(policy.tool_name.fullmatch(n)) and not n.startswith(policy.reservedPrefix)
            for n in NAMES
        ],
        "paramNames": [bool(policy.param_name.fullmatch(n)) for n in NAMES],
        "budgets": policy.budgets.model_dump(),
        "annotations": [catalogue.annotations(s) for s in corpus["stepLists"]],
    }
    for key in shell:
        if key == "schemas":
            for schema, ours, theirs in zip(corpus["schemas"], shell[key], page[key], strict=True):
                assert ours == theirs, (schema, ours, theirs)
        else:
            assert shell[key] == page[key], key
    # The corpus reaches the rules it is meant to: every nested $ref is caught on both sides.
    assert all(any("$ref is not allowed" in p for p in v) for v in shell["schemas"][1:8])
    assert shell["schemas"][0] == []
    assert sum(1 for v in shell["schemas"] if v) >= 20


def test_the_built_in_tools_say_the_hold_time_the_rules_set():
    from understudy_desktop.agent.builtins import builtin_tools

    publish = builtin_tools()["understudy_publish_tool"]["description"]
    assert f"{rules().approvalHoldSeconds:g} s" in publish
