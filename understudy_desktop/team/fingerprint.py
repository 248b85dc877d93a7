"""What a shared tool does, as one hash: its steps and the kinds of input it takes, without
any of its wording. The team lead's "Turn off for the team" names a tool by this too, so the
same steps shared again under another name, with a question renamed or a description
reworded, stay off.

What is left out is what changes nothing a run does: the tool's name, title and description;
each question's name (its answer is known by the order in which the steps first use it), its
title, description, examples, default, and the limits that only narrow what is accepted; and
the wording of a person's or a template's name beyond its letters (case and spaces). What is
kept: every step's command and where each of its fields comes from (a fixed value, an answer,
an earlier step's result), and each answer's kind (its type, its choices, its format)."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

# The keywords of a question's schema that say what kind of answer it is. Everything else is
# wording or a limit; rewording it, or moving a limit, makes no other tool.
KIND_KEYWORDS = ("type", "enum", "const", "format", "items", "anyOf", "oneOf")


def _kind(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return None
    out: dict[str, Any] = {}
    for key in KIND_KEYWORDS:
        if key not in schema:
            continue
        value = schema[key]
        if key == "items":
            value = _kind(value)
        elif key in ("anyOf", "oneOf") and isinstance(value, list):
            value = sorted((_kind(v) for v in value), key=_order)
        elif key in ("enum", "type") and isinstance(value, list):
            value = sorted(value, key=_order)
        out[key] = value
    return out


def _order(value: Any) -> bytes:
    try:
        encoded: bytes = rfc8785.dumps(value)
    except (rfc8785.CanonicalizationError, TypeError, ValueError):
        return repr(value).encode("utf-8")
    return encoded


def _folded(text: Any) -> Any:
    return " ".join(text.casefold().split()) if isinstance(text, str) else text


def does(tool: dict[str, Any]) -> str:
    """The hash of what `tool` (a definition, as a pack holds it) does. Raises
    rfc8785.CanonicalizationError, TypeError or ValueError for what JSON cannot hold."""
    schema = tool.get("inputSchema")
    properties = schema.get("properties") if isinstance(schema, dict) else None
    properties = properties if isinstance(properties, dict) else {}
    order: dict[str, int] = {}  # a question's name -> its place, by first use in the steps
    steps_out: list[Any] = []
    steps = tool.get("steps")
    for step in steps if isinstance(steps, list) else []:
        if not isinstance(step, dict):
            steps_out.append(step)
            continue
        args = step.get("args")
        fields: dict[str, Any] = {}
        for field, source in sorted(args.items()) if isinstance(args, dict) else []:
            if isinstance(source, dict) and source.get("from") == "param":
                name = str(source.get("name"))
                place = order.setdefault(name, len(order))
                fields[field] = {"answer": place, "kind": _kind(properties.get(name))}
            elif isinstance(source, dict) and source.get("from") == "const":
                ref = source.get("ref")
                fields[field] = {
                    "value": source.get("value"),
                    "ref": (
                        {"kind": ref.get("kind"), "name": _folded(ref.get("name"))}
                        if isinstance(ref, dict)
                        else None
                    ),
                }
            else:
                fields[field] = source
        steps_out.append({"command": step.get("command"), "args": fields})
    # Questions no step uses change nothing a run does; they are left out with their names.
    return hashlib.sha256(rfc8785.dumps(steps_out)).hexdigest()
