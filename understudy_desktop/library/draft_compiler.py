"""A draft tool made by the shell from a recording it holds: generalise it (library/
generalize.py), apply what the author chose for each value, and compile the procedure into a
definition, with the problems that block publishing and the warnings to read. Pure.

The input schema is built from the catalogue's own field schemas, never written by the
author, and the annotations are computed from the catalogue. The page compiles the same way
in a plain browser (js/teach/compile.js, draft_builder.js); tests/test_draft_parity.py runs
both over one set of recordings and requires the same definitions, problems and warnings.
What a draft compiled here may become is still decided by library/drafts.py `check_draft`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.js_text import js_length, js_trim
from understudy_desktop.library.generalize import (
    GeneralizeError,
    Procedure,
    generalize,
    generalize_pair,
    js_entries,
)
from understudy_desktop.library.lint import lint_schema
from understudy_desktop.rules import rules


class UnknownChoiceError(GeneralizeError):
    """A choice was made for a value the recording does not have."""


@dataclass(frozen=True)
class Compiled:
    """A compiled draft: the definition as approved, hashed and stored, and what to fix."""

    definition: dict[str, Any]
    problems: list[str]
    warnings: list[str]


def _field_schema(catalogue: Catalogue, command: str, field: str) -> dict[str, Any]:
    """The catalogue's schema of one field, without its own description (the author's goes
    there instead)."""
    info = catalogue.commands.get(command)
    source = ((info.payload_schema.get("properties") or {}) if info else {}).get(field) or {}
    return {k: copy.deepcopy(v) for k, v in source.items() if k != "description"}


def _resolved(procedure: Procedure) -> list[dict[str, Any]]:
    """The values each step gets at run time: a value nobody is asked for is the recorded one."""
    bound = {p.name: p for p in procedure.params if p.bound}
    unbound = {p.name: p for p in procedure.params if not p.bound}
    steps: list[dict[str, Any]] = []
    for step in procedure.steps:
        args: dict[str, Any] = {}
        for name_of, spec in js_entries(step["args"]):
            asked = spec.get("name") if spec.get("from") == "param" else None
            kept = unbound.get(asked) if isinstance(asked, str) else None
            if kept is not None:
                fixed: dict[str, Any] = {"from": "const", "value": copy.deepcopy(kept.recorded)}
                ref = kept.recorded_ref
                if ref and ref.get("name"):
                    fixed["ref"] = {"kind": ref.get("kind"), "name": ref["name"]}
                args[name_of] = fixed
            elif asked is not None and asked not in bound:
                args[name_of] = {"from": "const", "value": None}
            else:
                args[name_of] = copy.deepcopy(spec)
        steps.append({"command": step["command"], "args": args})
    return steps


def _meta_problems(name: str, title: str, description: str) -> list[str]:
    policy = rules()
    budgets, reserved = policy.budgets, policy.reservedPrefix
    problems: list[str] = []
    if js_length(title) > budgets.title:
        problems.append(f"Name: {js_length(title)} characters; the limit is {budgets.title}.")
    if not policy.tool_name.fullmatch(name):
        problems.append(
            f"What agents call it: use 1 to {budgets.name} characters: lower-case letters,"
            " digits and _, starting with a letter (for example assign_refund)."
        )
    if name.startswith(reserved):
        problems.append(
            f"What agents call it: names starting with “{reserved}” are reserved for"
            " Understudy's own tools."
        )
    if not description:
        problems.append("Description: say in a sentence what the tool does and when to use it.")
    if js_length(description) > budgets.description:
        problems.append(
            f"Description: {js_length(description)} characters; the limit is {budgets.description}."
        )
    return problems


def compile_procedure(
    procedure: Procedure, name: str, title: str, description: str, catalogue: Catalogue
) -> tuple[dict[str, Any], list[str]]:
    """The definition a procedure makes under these words, and the problems that block it."""
    policy = rules()
    name, title, description = js_trim(name), js_trim(title), js_trim(description)
    problems = _meta_problems(name, title, description)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for param in (p for p in procedure.params if p.bound):
        text = js_trim(param.description)
        info = catalogue.commands[param.command]
        asked = info.words(param.field, catalogue.field_words)["asked"]
        if not text:
            problems.append(
                f"Say in a few words what {asked} is, for whoever runs the tool"
                ' (for example "The ticket to refund").'
            )
        if js_length(text) > policy.budgets.paramDescription:
            problems.append(
                f"What {asked} is: {js_length(text)} characters;"
                f" the limit is {policy.budgets.paramDescription}."
            )
        if not policy.param_name.fullmatch(param.name):
            problems.append(f"The name for {asked} can use lower-case letters, digits and _ only.")
        schema = {**_field_schema(catalogue, param.command, param.field), "description": text}
        if param.fallback:
            schema["default"] = copy.deepcopy(param.recorded)
        else:
            required.append(param.name)
        properties[param.name] = schema
    input_schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    problems += [f"Input schema: {issue}." for issue in lint_schema(input_schema)]
    steps = _resolved(procedure)
    definition = {
        "name": name,
        "title": title,
        "description": description,
        "inputSchema": input_schema,
        "annotations": catalogue.annotations(steps),
        "steps": steps,
        "catalogueVersion": catalogue.version,
        # What each command looked like when this was recorded: after an app update, the
        # library compares these with the catalogue to grade drift.
        "commandSchemas": catalogue.schemas_for(steps),
    }
    return definition, problems


def _choose(procedure: Procedure, parameters: Mapping[str, Any]) -> None:
    """Apply the author's choices (describe, bind, rename) to the values that could be asked."""
    for asked, spec in js_entries(parameters):
        param = next((p for p in procedure.params if p.name == asked), None)
        if param is None:
            could = ", ".join(p.name for p in procedure.params)
            # The name given is not said back: an agent's text never comes back in an error.
            raise UnknownChoiceError(
                "The recording has no value by one of those names that could be asked."
                f" What could be asked: {could}."
            )
        choice = spec if isinstance(spec, Mapping) else {}
        if isinstance(choice.get("description"), str):
            param.description = choice["description"]
        if isinstance(choice.get("bind"), bool):
            param.bound = choice["bind"]
        rename = choice.get("rename")
        if rename:
            for step in procedure.steps:
                for arg in step["args"].values():
                    if arg.get("from") == "param" and arg.get("name") == param.name:
                        arg["name"] = rename
            param.name = str(rename)


def build_draft(
    recording: Mapping[str, Any],
    pair_with: Mapping[str, Any] | None,
    meta: Mapping[str, Any],
    catalogue: Catalogue,
) -> Compiled:
    """A draft from a recording (or a pair) and the author's `meta` (name, title, description,
    parameters). Raises GeneralizeError, in words, when the recording cannot become one."""
    if pair_with is not None:
        procedure = generalize_pair(recording, pair_with, catalogue)
    else:
        procedure = generalize(recording, catalogue)
    _choose(procedure, meta.get("parameters") or {})
    definition, problems = compile_procedure(
        procedure,
        str(meta.get("name") or ""),
        str(meta.get("title") or ""),
        str(meta.get("description") or ""),
        catalogue,
    )
    return Compiled(definition, problems, list(procedure.warnings))
