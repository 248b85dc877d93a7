"""The pack format is written once: pack.schema.json is generated from the models every
definition is parsed with, and every limit in either comes from rules.json."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from understudy_desktop.definition import Definition
from understudy_desktop.library.checks import parse_definition
from understudy_desktop.packs import schema as pack_schema_file
from understudy_desktop.packs.importer import pack_schema
from understudy_desktop.packs.model import Pack
from understudy_desktop.rules import identifier, rules

ROOT = Path(__file__).resolve().parent.parent


def test_the_shipped_schema_is_the_one_the_models_generate():
    assert pack_schema_file.main(["--check"]) == 0
    assert pack_schema() == pack_schema_file.generated()


def test_the_schemas_limits_are_the_rules():
    limits = rules().limits
    schema = pack_schema()
    props, defs = schema["properties"], schema["$defs"]
    assert props["tools"]["maxItems"] == rules().maxTaughtTools
    assert props["author"]["maxLength"] == limits.authorName
    assert props["requiredCommandIds"]["items"]["pattern"] == identifier(limits.commandId).pattern
    assert defs["Definition"]["properties"]["steps"]["maxItems"] == limits.toolSteps
    assert defs["Step"]["properties"]["args"]["maxProperties"] == limits.stepFields
    assert defs["ParamArg"]["properties"]["name"]["pattern"] == rules().param_name.pattern


def test_names_are_shaped_by_their_budget_alone():
    raw = json.loads((ROOT / "web_assets" / "data" / "rules.json").read_text(encoding="utf-8"))
    assert "toolName" not in raw and "paramName" not in raw  # no second copy of a budget
    assert rules().tool_name.pattern == f"^[a-z][a-z0-9_]{{0,{raw['budgets']['name'] - 1}}}$"
    name = "a" * raw["budgets"]["name"]
    assert rules().tool_name.fullmatch(name) and not rules().tool_name.fullmatch(name + "a")
    assert rules().param_name.fullmatch("a" * raw["budgets"]["paramName"])
    assert not rules().param_name.fullmatch("a" * (raw["budgets"]["paramName"] + 1))


def a_pack() -> dict[str, Any]:
    pack: dict[str, Any] = json.loads(
        (ROOT / "packs" / "refund-desk.understudy-pack.json").read_text()
    )
    return pack


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    node = out
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return out


BROKEN = [
    (("tools",), []),
    (("author",), "x" * (rules().limits.authorName + 1)),
    (("tools", 0, "steps"), []),
    (("tools", 0, "steps", 0, "command"), "Not-An-Id"),
    (("tools", 0, "steps", 0, "args", "ticket_id"), {"from": "param"}),
    (("tools", 0, "steps", 0, "args", "ticket_id"), {"from": "nowhere", "name": "x"}),
    (("tools", 0, "steps", 0, "args", "ticket_id"), {"from": "const"}),
    (("tools", 0, "steps", 0, "args", "ticket_id"), {"from": "step", "step": -1, "path": "id"}),
    (("tools", 0, "steps", 0, "args", "ticket_id"), {"from": "const", "value": 1, "ref": None}),
    (("tools", 0, "surprise"), 1),
    (("authorKey",), "not hex"),
    (("teamVersion",), 0),
    (("packVersion",), 2),
]


def test_the_schema_and_the_models_accept_and_refuse_alike():
    good = a_pack()
    assert not list(Draft202012Validator(pack_schema()).iter_errors(good))
    Pack.model_validate(good)
    too_many = _set(good, ("tools",), [good["tools"][0]] * (rules().maxTaughtTools + 1))
    for broken in [too_many, *(_set(good, path, value) for path, value in BROKEN)]:
        assert list(Draft202012Validator(pack_schema()).iter_errors(broken)), broken
        with pytest.raises(ValidationError):
            Pack.model_validate(broken)


def test_every_shipped_pack_fits_the_format():
    for path in sorted((ROOT / "packs").glob("*.understudy-pack.json")):
        pack = json.loads(path.read_text(encoding="utf-8"))
        assert not list(Draft202012Validator(pack_schema()).iter_errors(pack)), path.name
        for tool in Pack.model_validate(pack).tools:
            assert isinstance(tool, Definition)


def test_a_definition_keeps_a_fixed_null_and_its_field_sources():
    raw = {
        "name": "clear_it",
        "description": "Clears it.",
        "inputSchema": {"type": "object", "properties": {"t": {"type": "string"}}},
        "steps": [
            {
                "command": "set_ticket_assignee",
                "args": {
                    "ticket_id": {"from": "param", "name": "t"},
                    "assignee": {"from": "const", "value": None},
                },
            },
            {
                "command": "get_ticket",
                "args": {"ticket_id": {"from": "step", "step": 0, "path": "id"}},
            },
        ],
        "somethingElse": "left out",
    }
    parsed, problems = parse_definition(raw)
    assert problems == [] and parsed is not None
    plain = parsed.as_dict()
    assert plain["steps"][0]["args"]["assignee"] == {"from": "const", "value": None}
    assert plain["steps"][1]["args"]["ticket_id"] == {"from": "step", "step": 0, "path": "id"}
    assert "somethingElse" not in plain and plain["title"] == ""


def test_a_badly_shaped_definition_is_told_where_without_its_own_keys():
    raw = {
        "name": "x",
        "description": "d",
        "inputSchema": {"type": "object"},
        "steps": [{"command": "get_ticket", "args": {"zz_secret_key": {"from": "elsewhere"}}}],
    }
    parsed, problems = parse_definition(raw)
    assert parsed is None and len(problems) == 1
    assert problems[0].startswith("The tool is not well formed (at steps/0/args/…")
    assert "zz_secret_key" not in problems[0] and "elsewhere" not in problems[0]


def test_a_generated_file_is_written_and_then_checked_current(tmp_path, capsys):
    from understudy_desktop.generated_file import write_or_check

    path = tmp_path / "made.json"
    path.write_text("stale", encoding="utf-8")
    assert write_or_check(path, lambda: "fresh", "d", ["--check"]) == 1
    assert path.read_text(encoding="utf-8") == "stale"  # a check writes nothing
    assert write_or_check(path, lambda: "fresh", "d", []) == 0
    assert write_or_check(path, lambda: "fresh", "d", ["--check"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "made.json is out of date",
        "wrote made.json",
        "made.json is current",
    ]
