"""Reading a Tool Pack: every check before anything changes, and plain words when refusing.

Refused, with nothing changed: bad JSON, an unknown packVersion, an oversized file, a file
that does not fit the pack schema, commands this console does not have or uses it did not
declare, names or descriptions over budget, input schemas that fail the lint, steps that
refer to parameters or steps that do not exist. Annotations are recomputed from the
catalogue; whatever the file says about them is ignored.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from pydantic import ValidationError

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import Approved, Definition
from understudy_desktop.library.checks import complete, definition_problems
from understudy_desktop.library.drift import grade_drift
from understudy_desktop.library.model import shown_name
from understudy_desktop.packs.model import Pack
from understudy_desktop.rules import rules
from understudy_desktop.text import count_of

MAX_PACK_BYTES = 2 * 1024 * 1024
KNOWN_PACK_VERSIONS = (1,)


class PackError(ValueError):
    """The pack cannot be imported; str() is the message for a person."""


@dataclass
class ImportPlan:
    """What importing would do: the definitions to publish, and names that clash."""

    definitions: list[Approved]
    clashes: list[str] = field(default_factory=list)
    author: str = ""
    created: str = ""  # when the pack was made (ISO 8601, as the file says)
    notes: list[str] = field(default_factory=list)
    # Tools to hold back for review after import (breaking drift), with the reason.
    hold_back: dict[str, str] = field(default_factory=dict)


@cache
def pack_schema() -> dict[str, Any]:
    text = resources.files("understudy_desktop.packs").joinpath("pack.schema.json").read_text()
    schema: dict[str, Any] = json.loads(text)
    return schema


def read_pack_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise PackError(f"{path.name} could not be read ({exc.strerror or exc}).") from None
    if size > MAX_PACK_BYTES:
        raise PackError(
            f"{path.name} is {size / 1024 / 1024:.1f} MB; a Tool Pack can be at most "
            f"{MAX_PACK_BYTES // 1024 // 1024} MB. It is probably not a Tool Pack."
        )
    return path.read_bytes()


def _where(error: Any) -> str:
    parts = [str(p) for p in error.absolute_path]
    return "/".join(parts) or "the top level"


def parse_pack(data: bytes, filename: str) -> dict[str, Any]:
    if len(data) > MAX_PACK_BYTES:
        raise PackError(f"{filename} is larger than a Tool Pack can be.")
    try:
        pack = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise PackError(f"{filename} is not a text file, so it is not a Tool Pack.") from None
    except json.JSONDecodeError as exc:
        raise PackError(
            f"{filename} is not valid JSON (line {exc.lineno}, column {exc.colno}). "
            "It may be damaged; ask for the file again."
        ) from None
    except RecursionError:
        raise PackError(f"{filename} is nested far too deeply to be a Tool Pack.") from None
    if not isinstance(pack, dict):
        raise PackError(f"{filename} is JSON but not a Tool Pack.")
    version = pack.get("packVersion")
    if version is None:
        raise PackError(f"{filename} is JSON but not a Tool Pack.")
    if version not in KNOWN_PACK_VERSIONS:
        raise PackError(
            f"{filename} is a Tool Pack of version {str(version)[:10]}, which this version of "
            "Understudy does not know. Update Understudy, or ask for a pack made with yours."
        )
    errors = sorted(
        Draft202012Validator(pack_schema()).iter_errors(pack), key=lambda e: list(e.path)
    )
    if errors:
        first = errors[0]
        raise PackError(
            f"{filename} does not have the shape of a Tool Pack: at {_where(first)}, "
            f"'{first.validator}' fails ({count_of(len(errors), 'problem')} in all)."
        )
    try:
        typed = Pack.model_validate(pack)
    except ValidationError as exc:  # the schema and the models agree; this is a backstop
        raise PackError(
            f"{filename} does not have the shape of a Tool Pack "
            f"({count_of(exc.error_count(), 'problem')})."
        ) from None
    out = typed.model_dump(mode="json", exclude_none=True, exclude={"tools"})
    out["tools"] = [tool.as_dict() for tool in typed.tools]
    return out


def _check_tool(tool: dict[str, Any], catalogue: Catalogue, declared: set[str]) -> list[str]:
    """The shell's checks of any definition (library/checks.py), plus the pack's own rule:
    every command a step uses is declared in requiredCommandIds. The person reads these in
    the import preview, so each says which tool, by the name people see."""
    problems = definition_problems(Definition.of(tool), catalogue)
    for index, step in enumerate(tool["steps"]):
        if str(step["command"]) not in declared:
            problems.append(
                f"Step {index + 1} uses a command the pack does not list among those it needs."
            )
    shown = shown_name(str(tool["name"]), tool.get("title"))[:60]
    return [f"“{shown}”: {problem}" for problem in problems]


def plan_import(
    pack: dict[str, Any], filename: str, catalogue: Catalogue, existing: set[str]
) -> ImportPlan:
    declared = set(pack["requiredCommandIds"])
    missing = sorted(c for c in declared if c not in catalogue.commands)
    problems: list[str] = []
    if missing:
        problems.append(
            "It needs commands this console does not have: "
            + ", ".join(m[:40] for m in missing)
            + ". It was probably made with a newer Understudy."
        )
    names = [str(t["name"]) for t in pack["tools"]]
    if len(set(names)) != len(names):
        problems.append("It contains two tools with the same name.")
    for tool in pack["tools"]:
        problems.extend(_check_tool(tool, catalogue, declared))
    if problems:
        listed = "\n• ".join(problems[:12])
        more = f"\n(and {len(problems) - 12} more)" if len(problems) > 12 else ""
        raise PackError(f"{filename} was not imported. Nothing was changed.\n• {listed}{more}")
    definitions = [complete(Definition.of(tool), catalogue) for tool in pack["tools"]]
    notes = []
    hold_back: dict[str, str] = {}
    recorded = pack.get("commandSchemas") or {}
    if recorded:
        changes = grade_drift(recorded, catalogue)
        if changes:
            notes.append(
                "Made with a different version of the console: "
                + "; ".join(c.sentence() for c in changes[:6])
                + "."
            )
        broken = {c.command for c in changes if c.grade == "breaking"}
        for tool in pack["tools"]:
            used = {str(s["command"]) for s in tool["steps"]}
            if used & broken:
                hold_back[str(tool["name"])] = "the console changed under it: " + "; ".join(
                    c.sentence() for c in changes if c.command in used and c.grade == "breaking"
                )
    return ImportPlan(
        definitions=definitions,
        clashes=sorted(n for n in names if n in existing),
        author=str(pack.get("author", "")),
        created=str(pack.get("created", "")),
        notes=notes,
        hold_back=hold_back,
    )


def renamed(name: str, taken: set[str]) -> str:
    """A free name for a clashing tool: name_2, name_3, … within the name budget (rules.json)."""
    for n in range(2, 100):
        suffix = f"_{n}"
        candidate = name[: rules().budgets.name - len(suffix)] + suffix
        if candidate not in taken:
            return candidate
    raise PackError(f'No free name is left for "{name[:40]}".')
