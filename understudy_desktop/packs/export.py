"""Building a Tool Pack from taught tools, without customer data.

What goes in: each tool's name, description, steps and parameter schema, and the fixed values
that are part of the routine (a template id, a tag, a priority). What is left out: example
values of parameters (the recorded values kept as defaults), and any recorded ticket id.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from understudy_desktop import APP_NAME, __version__
from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import ConstArg, Definition
from understudy_desktop.library.model import TaughtTool
from understudy_desktop.rules import rules

PACK_VERSION = 1
PACK_SUFFIX = ".understudy-pack.json"


class ExportError(ValueError):
    """A tool cannot be shared as it is; the message says what to change."""


def _strip_examples(schema: dict[str, Any]) -> dict[str, Any]:
    clean = copy.deepcopy(schema)
    for prop in (clean.get("properties") or {}).values():
        if isinstance(prop, dict):
            prop.pop("default", None)  # a recorded value: an example from a real ticket
            prop.pop("examples", None)
    return clean


def pack_tool(definition: Definition, catalogue: Catalogue) -> dict[str, Any]:
    for index, step in enumerate(definition.steps):
        info = catalogue.commands.get(step.command)
        entity_fields = info.entity_fields if info else ()
        for field, spec in step.args.items():
            if field in entity_fields and isinstance(spec, ConstArg):
                raise ExportError(
                    f'"{definition.name}" step {index + 1} always works on ticket '
                    f"{spec.value!s:.20}. Make the ticket a parameter (repair the tool) before "
                    "sharing it."
                )
    tool: dict[str, Any] = {
        "name": definition.name,
        "description": definition.description,
        "inputSchema": _strip_examples(definition.inputSchema or {"type": "object"}),
        "steps": [step.as_dict() for step in definition.steps],
    }
    if definition.title:
        tool["title"] = definition.title
    return tool


def definitions_of(tools: Sequence[TaughtTool]) -> list[Definition]:
    """What the tools are, read as the library reads them to run them. A tool whose stored copy
    no longer reads as a tool (changed outside the app) is not shared."""
    out = []
    for tool in tools:
        if tool.parsed is None:
            raise ExportError(
                f"“{tool.shown_name}” cannot be read: it was changed outside Understudy. "
                "Revoke it, or teach it again, before sharing it."
            )
        out.append(tool.parsed)
    return out


def build_pack(
    definitions: Sequence[Definition], catalogue: Catalogue, author: str
) -> dict[str, Any]:
    tools = [pack_tool(d, catalogue) for d in definitions]
    commands = sorted({str(s["command"]) for t in tools for s in t["steps"]})
    schemas = {c: catalogue.commands[c].payload_schema for c in commands if c in catalogue.commands}
    return {
        "packVersion": PACK_VERSION,
        "app": {"name": APP_NAME, "version": __version__},
        "catalogueVersion": catalogue.version,
        "requiredCommandIds": commands,
        "commandSchemas": schemas,
        "author": author[: rules().limits.authorName],
        "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tools": tools,
    }


def pack_bytes(pack: dict[str, Any]) -> bytes:
    return (json.dumps(pack, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
