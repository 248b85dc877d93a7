"""Building a Tool Pack from taught tools, without customer data.

What goes in: each tool's name, description, steps and parameter schema, and the fixed values
that are part of the routine (a template id, a tag, a priority). What is left out: example
values of parameters (the recorded values kept as defaults), and any recorded ticket id.
"""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from typing import Any

from understudy_desktop import APP_NAME, __version__
from understudy_desktop.catalogue import Catalogue
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


def pack_tool(definition: dict[str, Any], catalogue: Catalogue) -> dict[str, Any]:
    name = str(definition.get("name"))
    steps = copy.deepcopy(definition.get("steps") or [])
    for index, step in enumerate(steps):
        info = catalogue.commands.get(str(step.get("command")))
        entity_fields = info.entity_fields if info else ()
        for field, spec in (step.get("args") or {}).items():
            if field in entity_fields and spec.get("from") == "const":
                raise ExportError(
                    f'"{name}" step {index + 1} always works on ticket {spec.get("value")!s:.20}. '
                    "Make the ticket a parameter (repair the tool) before sharing it."
                )
    schema = _strip_examples(definition.get("inputSchema") or {"type": "object"})
    tool: dict[str, Any] = {
        "name": name,
        "description": str(definition.get("description", "")),
        "inputSchema": schema,
        "steps": steps,
    }
    if definition.get("title"):
        tool["title"] = str(definition["title"])
    return tool


def build_pack(
    definitions: list[dict[str, Any]], catalogue: Catalogue, author: str
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
