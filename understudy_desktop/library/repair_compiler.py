"""A repair made by the shell: the tool's approved definition with one step replaced by the
step the person re-did, from the shell's own recording of that re-doing. Pure.

The new step keeps the broken step's questions and bindings where its fields match (so a
ticket id stays a question the tool asks), and takes the re-done values as fixed otherwise,
a person or template with its name beside it. A question no step uses any more leaves the
input, and the annotations are worked out again from the catalogue. The page repairs the
same way in a plain browser (js/teach/repair.js); tests/test_repair_parity.py holds the two
to the same definitions and the same refusals, word for word. What the repair may become is
still decided by library/drafts.py `check_draft`.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from understudy_desktop.catalogue import Catalogue


class RepairError(ValueError):
    """The re-doing cannot repair the tool; the message says why, in the person's words."""


def redone_step(steps: Sequence[Mapping[str, Any]], catalogue: Catalogue) -> Mapping[str, Any]:
    """The step the person re-did: the one step recorded, or, when they also opened a ticket
    or searched to get there, the one step that changed a ticket."""
    if len(steps) == 1:
        return steps[0]
    changing = [s for s in steps if _mutates(catalogue, s.get("command"))]
    if len(changing) == 1:
        return changing[0]
    count = len(changing) or len(steps)
    raise RepairError(
        f"Re-do just the one step (you recorded {count}). Press Repair again to retry."
    )


def repair_definition(
    definition: Mapping[str, Any],
    step_index: int,
    steps: Sequence[Mapping[str, Any]],
    catalogue: Catalogue,
) -> dict[str, Any]:
    """`definition` with its step `step_index` (0-based) replaced by the re-done step."""
    old_steps = list(definition.get("steps") or [])
    if not 0 <= step_index < len(old_steps):
        raise RepairError(f"The tool has no step {step_index + 1}.")
    recorded = redone_step(steps, catalogue)
    command = str(recorded.get("command"))
    if command not in catalogue.commands:
        raise RepairError(
            "A step you recorded is not something this console can do. Press Repair again to retry."
        )
    old_args: Mapping[str, Any] = old_steps[step_index].get("args") or {}
    refs: Mapping[str, Any] = recorded.get("refs") or {}
    args: dict[str, Any] = {}
    for field, value in (recorded.get("payload") or {}).items():
        before = old_args.get(field)
        if isinstance(before, Mapping) and before.get("from") in ("param", "step"):
            args[field] = copy.deepcopy(dict(before))
            continue
        args[field] = {"from": "const", "value": copy.deepcopy(value)}
        ref = refs.get(field)
        if isinstance(ref, Mapping) and ref.get("name"):
            args[field]["ref"] = {k: ref[k] for k in ("kind", "name") if ref.get(k) is not None}
    repaired = copy.deepcopy(dict(definition))
    repaired["steps"][step_index] = {"command": command, "args": args}
    _drop_unused_questions(repaired)
    repaired["annotations"] = catalogue.annotations(repaired["steps"])
    return repaired


def _drop_unused_questions(repaired: dict[str, Any]) -> None:
    """A question the old step asked that no step asks now leaves the input (a tool that asks
    for something it never uses would be refused)."""
    used = {
        spec.get("name")
        for step in repaired["steps"]
        for spec in (step.get("args") or {}).values()
        if isinstance(spec, Mapping) and spec.get("from") == "param"
    }
    schema = repaired.get("inputSchema")
    if not isinstance(schema, dict):
        return
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return
    for name in [n for n in properties if n not in used]:
        del properties[name]
        if isinstance(schema.get("required"), list):
            schema["required"] = [r for r in schema["required"] if r != name]


def _mutates(catalogue: Catalogue, command: object) -> bool:
    info = catalogue.commands.get(str(command))
    return info is not None and info.mutates
