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
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import (
    FIELDS,
    Approved,
    ConstArg,
    Definition,
    ParamArg,
    Step,
    StepArg,
)
from understudy_desktop.library.lint import lint_schema
from understudy_desktop.library.repair_compiler import RepairError, redone_step
from understudy_desktop.rules import rules


def parse_definition(raw: Any) -> tuple[Definition | None, list[str]]:
    """The definition in its known fields only, or the problems with its shape. Where the
    shape is wrong is said by the format's own field names and positions, never by a key the
    definition made up (it may be an agent's text)."""
    known = {k: raw[k] for k in FIELDS if k in raw} if isinstance(raw, dict) else raw
    try:
        model = Definition.model_validate(known)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = "/".join(_place(p) for p in first.get("loc", ())) or "the top level"
        return None, [f"The tool is not well formed (at {where}: {_shape_words(first)})."]
    return model, []


def _place(part: str | int) -> str:
    return str(part) if isinstance(part, int) or part in _FORMAT_WORDS else "…"


def _shape_words(error: Any) -> str:
    """What is wrong, by the kind of error only: pydantic's own message may quote the input."""
    kind = str(error.get("type", ""))
    for prefix, words in _SHAPE_WORDS:
        if kind.startswith(prefix):
            return words
    return "not valid here"


_SHAPE_WORDS = (
    ("missing", "missing"),
    ("extra_forbidden", "not a field of a tool"),
    ("union_tag", "a field's source must be param, const or step"),
    ("string", "not text of the allowed length and characters"),
    ("too_short", "too few items"),
    ("too_long", "too many items"),
    ("int", "not a whole number in range"),
    ("greater_than", "not a whole number in range"),
    ("less_than", "not a whole number in range"),
    ("literal_error", "not one of the allowed words"),
    ("dict_type", "not an object"),
    ("model", "not an object"),
    ("list_type", "not a list"),
)


_FORMAT_WORDS = frozenset(
    {*FIELDS, "command", "args", "from", "name", "value", "step", "path", "ref", "kind"}
    | {"param", "const", "ParamArg", "ConstArg", "StepArg"}
)


def definition_problems(definition: Definition, catalogue: Catalogue) -> list[str]:
    """Plain sentences saying what is wrong; empty when the definition may be approved.

    They name the field and the rule, never a value the definition holds: a definition comes
    from an agent's draft or a colleague's pack, and what it says could be aimed at the next
    model to read the error. (The pack preview says which tool, by its title, itself.)"""
    policy = rules()
    budgets = policy.budgets
    name = definition.name
    problems: list[str] = []
    if not policy.tool_name.fullmatch(name):
        problems.append(
            f"The tool's name must have 1 to {budgets.name} lower-case letters, digits or _,"
            " starting with a letter."
        )
    if name.startswith(policy.reservedPrefix):
        problems.append(
            f"The tool's name may not start with {policy.reservedPrefix}: those are the app's own."
        )
    if len(definition.title) > budgets.title:
        problems.append(f"The tool's title is over {budgets.title} characters.")
    description = definition.description
    if not description.strip():
        problems.append("The tool's description is empty.")
    if len(description) > budgets.description:
        problems.append(f"The tool's description is over {budgets.description} characters.")
    schema = definition.inputSchema
    for issue in lint_schema(schema):
        problems.append(f"What the tool asks for breaks a rule: {issue}.")
    properties = schema.get("properties")
    properties = properties if isinstance(properties, dict) else {}
    for param, sub in properties.items():
        text = str(sub.get("description", "")) if isinstance(sub, dict) else ""
        if not policy.param_name.fullmatch(str(param)):
            problems.append("A question the tool asks has a name that is not allowed.")
        if len(text) > budgets.paramDescription:
            problems.append(
                f"A question the tool asks is described in over {budgets.paramDescription}"
                " characters."
            )
    for index, step in enumerate(definition.steps):
        problems.extend(_step_problems(index, step, properties, catalogue))
    return problems


def _step_problems(
    index: int,
    step: Step,
    properties: dict[str, Any],
    catalogue: Catalogue,
) -> list[str]:
    """A step's problems; `arg` is only ever named once it is a field of the command (the
    catalogue's words, not the definition's)."""
    problems: list[str] = []
    info = catalogue.commands.get(step.command)
    if info is None:
        return [f"Step {index + 1} uses a command this console does not have."]
    fields = info.payload_schema.get("properties") or {}
    # A field the command needs, left out, fails the step on every run: such a tool is never
    # approved, whoever brings it (a draft, a pack, the team folder, a repair).
    for needed in info.payload_schema.get("required") or []:
        if needed not in step.args:
            problems.append(
                f"Step {index + 1} ({info.title}) leaves out {needed}, which its command needs."
            )
    for arg, spec in step.args.items():
        if arg not in fields:
            problems.append(f"Step {index + 1} sets a field its command does not have.")
            continue
        if isinstance(spec, ParamArg) and spec.name not in properties:
            problems.append(
                f"Step {index + 1} fills {arg} with the answer to a question the tool does not ask."
            )
        elif isinstance(spec, StepArg) and not spec.step < index:
            problems.append(
                f"Step {index + 1} takes {arg} from a step that does not come before it."
            )
        elif isinstance(spec, ConstArg):
            validator = Draft202012Validator(fields[arg])
            if not validator.is_valid(spec.value):
                problems.append(
                    f"Step {index + 1} ({info.title}) has a fixed {arg} that the command does"
                    " not accept."
                )
    return problems


def complete(definition: Definition, catalogue: Catalogue) -> Approved:
    """The definition as the shell approves and stores it: annotations and the command schemas
    it was made against are computed here, from the catalogue, whatever the author said."""
    steps = [step.as_dict() for step in definition.steps]
    return Approved(
        name=definition.name,
        title=definition.title,
        description=definition.description,
        inputSchema=copy.deepcopy(definition.inputSchema),
        steps=definition.steps,
        annotations=catalogue.annotations(steps),
        catalogueVersion=catalogue.version,
        commandSchemas=catalogue.schemas_for(steps),
    )


def follows_recording(definition: Definition, recording: dict[str, Any]) -> str | None:
    """A tool made from a recording does what was recorded: the same commands, in order."""
    taught = [str(s.get("command")) for s in recording.get("steps") or []]
    if [s.command for s in definition.steps] != taught:
        return "The tool's steps are not the steps of the recording it was made from."
    return None


def redone_command(recording: dict[str, Any], catalogue: Catalogue) -> str | None:
    """The command of the step the person re-did (library/repair_compiler.py), or None."""
    try:
        return str(redone_step(recording.get("steps") or [], catalogue).get("command"))
    except RepairError:
        return None


def follows_repair(
    definition: Definition,
    old: Definition | None,
    index: int,
    recording: dict[str, Any],
    catalogue: Catalogue,
) -> str | None:
    """A repair changes one step, to the one step the person re-did; the rest stays (an old
    tool that does not read as a definition has no step a repair could keep)."""
    new_steps = definition.steps
    old_steps = old.steps if old is not None else []
    redone = redone_command(recording, catalogue)
    if len(new_steps) != len(old_steps) or not (0 <= index < len(old_steps)) or redone is None:
        return "A repair changes exactly one step of the tool."
    for i, (a, b) in enumerate(zip(new_steps, old_steps, strict=True)):
        if i != index and a != b:
            return "A repair may only change the step that was re-done."
    if new_steps[index].command != redone:
        return "The repaired step is not the step that was re-done."
    return None
