"""The shell's own checks of a tool definition, whoever wrote it: a draft the page compiled, a
person's repair, a Tool Pack. Nothing reaches the approval dialog without passing them.

- the shape (pydantic): steps of catalogue commands whose values are parameters, fixed
  values or an earlier step's result;
- names, descriptions and budgets (rules.json);
- the input-schema lint;
- every command exists in this console's catalogue, every fixed value fits its field, every
  parameter a step reads is in the schema, every step binding points back;
- annotations and recorded command schemas are recomputed from the catalogue file.
"""

from __future__ import annotations

import copy
from typing import Any, Literal

from jsonschema import Draft202012Validator
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.packs.lint import lint_schema
from understudy_desktop.rules import rules

MAX_STEPS = 50


class RefSpec(BaseModel):
    """A person or a template, by the name it had where the tool was made."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["person", "template"]
    name: str = Field(min_length=1, max_length=200)


class ArgSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    source: Literal["param", "const", "step"] = Field(alias="from")
    name: str | None = Field(default=None, max_length=64)
    value: Any = None
    step: int | None = Field(default=None, ge=0)
    path: str | None = Field(default=None, max_length=64)
    ref: RefSpec | None = None


class StepModel(BaseModel):
    model_config = ConfigDict(extra="forbid")

    command: str = Field(max_length=64)
    args: dict[str, ArgSpec]


class DefinitionModel(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: str = Field(max_length=128)
    title: str = ""
    description: str
    inputSchema: dict[str, Any]  # noqa: N815 (the format's own key)
    steps: list[StepModel] = Field(min_length=1, max_length=MAX_STEPS)


def parse_definition(raw: Any) -> tuple[dict[str, Any] | None, list[str]]:
    """The definition in its known fields only, or the problems with its shape."""
    try:
        model = DefinitionModel.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(str(p) for p in first.get("loc", ())) or "the top level"
        return None, [f"The tool is not well formed (at {where}: {first.get('msg', 'invalid')})."]
    steps = [
        {
            "command": s.command,
            "args": {k: _spec(v) for k, v in s.args.items()},
        }
        for s in model.steps
    ]
    return {
        "name": model.name,
        "title": model.title,
        "description": model.description,
        "inputSchema": copy.deepcopy(model.inputSchema),
        "steps": steps,
    }, []


def _spec(spec: ArgSpec) -> dict[str, Any]:
    if spec.source == "param":
        return {"from": "param", "name": spec.name}
    if spec.source == "step":
        return {"from": "step", "step": spec.step, "path": spec.path}
    fixed = {"from": "const", "value": copy.deepcopy(spec.value)}
    if spec.ref is not None:
        fixed["ref"] = spec.ref.model_dump()
    return fixed


def definition_problems(definition: dict[str, Any], catalogue: Catalogue) -> list[str]:
    """Plain sentences saying what is wrong; empty when the definition may be approved."""
    policy = rules()
    budgets = policy.budgets
    name = str(definition.get("name", ""))
    shown = name[:40]
    problems: list[str] = []
    if not policy.tool_name.fullmatch(name):
        problems.append(
            f'"{shown}": a tool name has 1 to {budgets.name} lower-case letters, digits or _, '
            "starting with a letter."
        )
    if name.startswith(policy.reservedPrefix):
        problems.append(f'"{shown}": names starting with {policy.reservedPrefix} are reserved.')
    title = str(definition.get("title", ""))
    if len(title) > budgets.title:
        problems.append(f'"{shown}": the title is over {budgets.title} characters.')
    description = str(definition.get("description", ""))
    if not description.strip():
        problems.append(f'"{shown}": the description is empty.')
    if len(description) > budgets.description:
        problems.append(f'"{shown}": the description is over {budgets.description} characters.')
    schema = definition.get("inputSchema")
    for issue in lint_schema(schema):
        problems.append(f'"{shown}": its input schema fails the lint: {issue}.')
    properties = schema.get("properties") if isinstance(schema, dict) else None
    properties = properties if isinstance(properties, dict) else {}
    for param, sub in properties.items():
        text = str(sub.get("description", "")) if isinstance(sub, dict) else ""
        if not policy.param_name.fullmatch(str(param)):
            problems.append(f'"{shown}": a question it asks has a name that is not allowed.')
        if len(text) > budgets.paramDescription:
            problems.append(
                f'"{shown}": what it asks for ({str(param)[:40]}) is described in over '
                f"{budgets.paramDescription} characters."
            )
    for index, step in enumerate(definition.get("steps") or []):
        problems.extend(_step_problems(shown, index, step, properties, catalogue))
    return problems


def _step_problems(
    shown: str,
    index: int,
    step: dict[str, Any],
    properties: dict[str, Any],
    catalogue: Catalogue,
) -> list[str]:
    problems: list[str] = []
    command = str(step.get("command"))
    info = catalogue.commands.get(command)
    if info is None:
        return [f'"{shown}" step {index + 1} uses "{command[:40]}", which this console lacks.']
    fields = info.payload_schema.get("properties") or {}
    for arg, spec in (step.get("args") or {}).items():
        if arg not in fields:
            problems.append(f'"{shown}" step {index + 1} sets a field its command does not have.')
            continue
        source = spec.get("from")
        if source == "param" and spec.get("name") not in properties:
            problems.append(
                f'"{shown}" step {index + 1} reads the parameter "{str(spec.get("name"))[:40]}" '
                f"({arg}), which its schema does not define."
            )
        elif source == "step" and not (0 <= int(spec.get("step", -1)) < index):
            problems.append(
                f'"{shown}" step {index + 1} takes {arg} from a step that does not come before it.'
            )
        elif source == "const":
            validator = Draft202012Validator(fields[arg])
            if not validator.is_valid(spec.get("value")):
                problems.append(
                    f'"{shown}" step {index + 1} ({info.title}) has a fixed value for {arg} '
                    "that the command does not accept."
                )
    return problems


def complete(definition: dict[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    """The definition as the shell stores it: annotations and the command schemas it was made
    against are computed here, from the catalogue, whatever the author said."""
    out = {k: copy.deepcopy(definition[k]) for k in ("name", "title", "description")}
    out["inputSchema"] = copy.deepcopy(definition["inputSchema"])
    out["annotations"] = catalogue.annotations(definition["steps"])
    out["steps"] = copy.deepcopy(definition["steps"])
    out["catalogueVersion"] = catalogue.version
    out["commandSchemas"] = catalogue.schemas_for(definition["steps"])
    return out


def follows_recording(definition: dict[str, Any], recording: dict[str, Any]) -> str | None:
    """A tool made from a recording does what was recorded: the same commands, in order."""
    taught = [str(s.get("command")) for s in recording.get("steps") or []]
    steps = [str(s.get("command")) for s in definition.get("steps") or []]
    if steps != taught:
        return "The tool's steps are not the steps of the recording it was made from."
    return None


def redone_command(recording: dict[str, Any], catalogue: Catalogue) -> str | None:
    """The step the person re-did: the one step recorded, or, when they also opened a ticket
    or searched to get there, the one step that changed a ticket (js/teach/repair.js agrees)."""
    steps = [str(s.get("command")) for s in recording.get("steps") or []]
    if len(steps) == 1:
        return steps[0]
    changing = [c for c in steps if c in catalogue.commands and catalogue.commands[c].mutates]
    return changing[0] if len(changing) == 1 else None


def follows_repair(
    definition: dict[str, Any],
    old: dict[str, Any],
    index: int,
    recording: dict[str, Any],
    catalogue: Catalogue,
) -> str | None:
    """A repair changes one step, to the one step the person re-did; the rest stays."""
    new_steps = definition.get("steps") or []
    old_steps = old.get("steps") or []
    redone = redone_command(recording, catalogue)
    if len(new_steps) != len(old_steps) or not (0 <= index < len(old_steps)) or redone is None:
        return "A repair changes exactly one step of the tool."
    for i, (a, b) in enumerate(zip(new_steps, old_steps, strict=True)):
        if i != index and a != b:
            return "A repair may only change the step that was re-done."
    if str(new_steps[index].get("command")) != redone:
        return "The repaired step is not the step that was re-done."
    return None
