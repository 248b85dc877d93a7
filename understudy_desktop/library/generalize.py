"""From a recording to a procedure: the recorded steps, unchanged, where each payload value is
a question the tool may ask (a parameter), a binding to an earlier step's result, or a fixed
value. The shell's own generaliser, for the drafts it makes itself; the page's
(js/teach/generalize.js) still drafts in a plain browser, and tests/test_draft_parity.py holds
the two to the same drafts, word for word.

The rules, in order:
1. An entity id (ticket_id) that an earlier step's result produced becomes a binding.
2. Any other entity id is asked each time, never frozen (the tool would keep hitting last
   week's ticket); in a step that changes tickets, a warning says no earlier step found it.
3. A typed or picked value may be asked. By default only what the routine acted on is: the
   ticket, the words a search looked for, and (for a pair) whatever differs between the two.
4. Everything else stays as the person did it, a person or template with its name beside it.

Values are compared the way the page compares them (its JSON text, its strict equality, its
key order), so both sides make one parameter of the same values and name them alike.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.catalogue import Catalogue

# A parameter's name where the field's own name would read badly to whoever runs the tool.
_PARAM_NAMES = {"text": "phrase", "tags": "tags"}
_ARRAY_INDEX = re.compile(r"0|[1-9][0-9]*")
_MISSING = object()  # a field one recording of a pair does not have (the page's undefined)


class GeneralizeError(Exception):
    """The recording cannot become a tool; the message says why, in words."""


@dataclass
class Param:
    """A value the tool could ask for each time, and what the person did with it."""

    name: str
    field: str
    command: str
    recorded: Any
    recorded_ref: Mapping[str, Any] | None
    description: str
    bound: bool  # asked each time; otherwise it stays as recorded
    fallback: bool = False  # asked, with the recorded value as its default


@dataclass
class Procedure:
    """The recorded steps ({"command", "args"}), the values that could be asked, and warnings."""

    steps: list[dict[str, Any]]
    params: list[Param]
    warnings: list[str] = field(default_factory=list)


def js_entries(obj: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """A JSON object's entries in the order JavaScript walks them: array-index keys first,
    in numeric order, then the rest as they were written."""
    index = [k for k in obj if _ARRAY_INDEX.fullmatch(k) and int(k) < 2**32 - 1]
    rest = [k for k in obj if k not in set(index)]
    return [(k, obj[k]) for k in [*sorted(index, key=int), *rest]]


def _js_value(value: Any) -> Any:
    """A value as JSON.stringify would write it: a whole float as a whole number, objects in
    JavaScript's key order."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: _js_value(v) for k, v in js_entries(value)}
    if isinstance(value, list):
        return [_js_value(v) for v in value]
    return value


def same_value(a: Any, b: Any) -> bool:
    """The page's sameValue: the same JSON text (a missing value only equals a missing one)."""
    if a is _MISSING or b is _MISSING:
        return a is b
    text = [json.dumps(_js_value(v), ensure_ascii=False, separators=(",", ":")) for v in (a, b)]
    return text[0] == text[1]


def _strictly_equal(a: Any, b: Any) -> bool:
    """JavaScript's ===, for values read from JSON: objects and lists are never equal."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, int | float) and isinstance(b, int | float):
        return a == b
    if isinstance(a, str) and isinstance(b, str):
        return a == b
    return a is None and b is None


def _with_ref(value: Any, ref: Any) -> dict[str, Any]:
    fixed: dict[str, Any] = {"from": "const", "value": copy.deepcopy(value)}
    if isinstance(ref, Mapping) and ref.get("name"):
        fixed["ref"] = {"kind": ref.get("kind"), "name": ref["name"]}
    return fixed


def _binding(
    steps: list[Mapping[str, Any]], index: int, value: Any, catalogue: Catalogue
) -> dict[str, Any] | None:
    """The latest earlier step whose result names this ticket, as a binding to it."""
    for j in range(index - 1, -1, -1):
        result = steps[j].get("result")
        if not isinstance(result, Mapping) or steps[j].get("command") not in catalogue.commands:
            continue
        for key, found in js_entries(result):
            if key == "ticket_id" and _strictly_equal(found, value):
                return {"from": "step", "step": j, "path": key}
    return None


def _new_param(
    params: list[Param],
    step: Mapping[str, Any],
    name_of: str,
    value: Any,
    kind: str,
    cat: Catalogue,
) -> Param:
    command = cat.commands[str(step["command"])]
    base = _PARAM_NAMES.get(name_of, name_of)
    name, n = base, 2
    while any(p.name == name for p in params):
        name, n = f"{base}_{n}", n + 1
    # Plain words for whoever runs it (the catalogue's, written for people).
    schema_field = (command.payload_schema.get("properties") or {}).get(name_of) or {}
    description = command.words(name_of, cat.field_words)["describe"] or str(
        schema_field.get("description") or ""
    )
    entity = name_of in command.entity_fields
    searched = command.id == "filter_tickets" and name_of == "text"
    refs = step.get("refs") or {}
    return Param(
        name=name,
        field=name_of,
        command=command.id,
        recorded=copy.deepcopy(value),
        recorded_ref=refs.get(name_of),
        description=description,
        bound=entity or searched or kind == "varies",
    )


def generalize(recording: Mapping[str, Any] | None, catalogue: Catalogue) -> Procedure:
    """The procedure a recording makes; raises GeneralizeError when it cannot make one."""
    recorded: list[Mapping[str, Any]] = list((recording or {}).get("steps") or [])
    if not recorded:
        raise GeneralizeError(
            "This recording has no steps. Press Teach, do the routine once, then Stop."
        )
    params: list[Param] = []
    warnings: list[str] = []
    steps: list[dict[str, Any]] = []
    for index, step in enumerate(recorded):
        command = catalogue.commands.get(str(step.get("command")))
        if command is None:
            raise GeneralizeError(
                f'Step {index + 1} uses "{step.get("command")}", which this console no longer has.'
            )
        provenance = step.get("provenance") or {}
        refs = step.get("refs") or {}
        args: dict[str, Any] = {}
        for name_of, value in js_entries(step.get("payload") or {}):
            kind = str(provenance.get(name_of) or "constant")
            if name_of in command.entity_fields:
                binding = _binding(recorded, index, value, catalogue)
                if binding is not None:
                    args[name_of] = binding
                    continue
                if command.mutates:
                    warnings.append(
                        f"Step {index + 1} changes a ticket that no earlier step opened or found,"
                        " so whoever runs the tool will say which ticket."
                    )
            elif kind not in ("typed", "picked", "varies"):
                args[name_of] = _with_ref(value, refs.get(name_of))
                continue
            # The same field with the same value in several steps is one question.
            param = next(
                (p for p in params if p.field == name_of and same_value(p.recorded, value)), None
            )
            if param is None:
                param = _new_param(params, step, name_of, value, kind, catalogue)
                params.append(param)
            args[name_of] = {"from": "param", "name": param.name}
        steps.append({"command": command.id, "args": args})
    return Procedure(steps, params, warnings)


def generalize_pair(
    first: Mapping[str, Any], second: Mapping[str, Any], catalogue: Catalogue
) -> Procedure:
    """Two recordings of one routine: what differs between them is what changes from one run
    to the next, so it is asked; what agrees stays."""
    a: list[Mapping[str, Any]] = list(first.get("steps") or [])
    b: list[Mapping[str, Any]] = list(second.get("steps") or [])

    def sequence(steps: list[Mapping[str, Any]]) -> str:
        return " → ".join(str(s.get("command")) for s in steps) or "(empty)"

    same = len(a) == len(b)
    if not same or any(s.get("command") != t.get("command") for s, t in zip(a, b, strict=True)):
        raise GeneralizeError(
            "These two recordings do not do the same steps, so they cannot be paired."
            f" First: {sequence(a)}. Second: {sequence(b)}."
        )
    merged = copy.deepcopy(dict(first))
    merged_steps = [dict(s) for s in merged.get("steps") or []]
    for step, other in zip(merged_steps, b, strict=True):
        info = catalogue.commands.get(str(step.get("command")))
        entity = info.entity_fields if info is not None else ()
        was = step.get("provenance") or {}
        theirs = other.get("payload") or {}
        provenance: dict[str, str] = {}
        for name_of, value in js_entries(step.get("payload") or {}):
            agrees = same_value(value, theirs.get(name_of, _MISSING)) and name_of not in entity
            provenance[name_of] = (
                "constant" if agrees else "context" if was.get(name_of) == "context" else "varies"
            )
        step["provenance"] = provenance
    merged["steps"] = merged_steps
    return generalize(merged, catalogue)
