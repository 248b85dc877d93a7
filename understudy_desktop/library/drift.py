"""Catalogue drift: what changed in the commands a tool was recorded against.

Each change is graded, following the backward-compatibility checklist of oasdiff (as seed
003 does): breaking when a recorded step may no longer fit (a removed command, a new required
field, a removed enum choice, a retyped field), non-breaking when it still fits (a new
optional field, a widened type, a new enum choice). Breaking drift holds a tool back until a
person reviews (and repairs) it; non-breaking drift is only reported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from understudy_desktop.catalogue import Catalogue

Grade = Literal["breaking", "non-breaking"]
WIDER = {("integer", "number")}


@dataclass(frozen=True)
class Change:
    command: str
    field: str
    what: str
    grade: Grade

    def sentence(self) -> str:
        where = f"{self.command}.{self.field}" if self.field else self.command
        return f"{where}: {self.what} ({self.grade})"


def _types(schema: dict[str, Any]) -> set[str]:
    declared = schema.get("type")
    if isinstance(declared, list):
        return {str(t) for t in declared}
    return {str(declared)} if declared else set()


def _field_changes(
    command: str, name: str, old: dict[str, Any], new: dict[str, Any]
) -> list[Change]:
    changes: list[Change] = []
    old_types, new_types = _types(old), _types(new)
    if old_types and new_types and old_types != new_types:
        widened = old_types <= new_types or all(
            (o, n) in WIDER for o in old_types - new_types for n in new_types - old_types
        )
        changes.append(
            Change(
                command,
                name,
                f"type {sorted(old_types)} became {sorted(new_types)}",
                "non-breaking" if widened else "breaking",
            )
        )
    old_enum, new_enum = old.get("enum"), new.get("enum")
    if isinstance(old_enum, list) and isinstance(new_enum, list):
        removed = [v for v in old_enum if v not in new_enum]
        added = [v for v in new_enum if v not in old_enum]
        if removed:
            changes.append(Change(command, name, f"choices removed: {removed}", "breaking"))
        if added:
            changes.append(Change(command, name, f"choices added: {added}", "non-breaking"))
    return changes


def grade_drift(recorded: dict[str, dict[str, Any]], catalogue: Catalogue) -> list[Change]:
    """Compare the payload schemas a tool was recorded against with this console's."""
    changes: list[Change] = []
    for command, old_schema in sorted(recorded.items()):
        info = catalogue.commands.get(command)
        if info is None:
            changes.append(Change(command, "", "the command was removed", "breaking"))
            continue
        new_schema = info.payload_schema
        old_props = old_schema.get("properties") or {}
        new_props = new_schema.get("properties") or {}
        old_required = set(old_schema.get("required") or [])
        new_required = set(new_schema.get("required") or [])
        for name in sorted(set(new_props) - set(old_props)):
            grade: Grade = "breaking" if name in new_required else "non-breaking"
            kind = "required" if name in new_required else "optional"
            changes.append(Change(command, name, f"a new {kind} field", grade))
        for name in sorted(set(old_props) - set(new_props)):
            changes.append(Change(command, name, "the field was removed", "breaking"))
        for name in sorted((new_required - old_required) & set(old_props)):
            changes.append(Change(command, name, "the field became required", "breaking"))
        for name in sorted((old_required - new_required) & set(new_props)):
            changes.append(Change(command, name, "the field became optional", "non-breaking"))
        for name in sorted(set(old_props) & set(new_props)):
            changes.extend(_field_changes(command, name, old_props[name], new_props[name]))
    return changes


def is_breaking(changes: list[Change]) -> bool:
    return any(c.grade == "breaking" for c in changes)
