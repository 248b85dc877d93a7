"""What the approval dialog says about a tool, composed by the app from the definition the
shell holds (never by a model, never by the page): its description as agents will read it,
each step in words with its fixed values, what it asks for, and what it can change."""

from __future__ import annotations

import re
from typing import Any

from understudy_desktop.catalogue import Catalogue

LABELS = {
    "status": {
        "new": "New",
        "open": "Open",
        "pending": "Pending",
        "solved": "Solved",
        "closed": "Closed",
        "": "any",
    },
    "priority": {"low": "Low", "normal": "Normal", "high": "High", "urgent": "Urgent", "": "any"},
}
UNASSIGNED = "__unassigned__"


def value_words(catalogue: Catalogue, command: str, field: str, value: Any, ref: Any = None) -> str:
    """A fixed value as a person reads it in a sentence ("ticket T-1011", "“Refund approved”")."""
    info = catalogue.commands.get(command)
    words = info.words(field, catalogue.field_words) if info else {"fixed": "{value}"}
    return words["fixed"].replace("{value}", shown_value(field, value, ref))


def shown_value(field: str, value: Any, ref: Any = None) -> str:
    """The value alone, as a person reads it (a person or template by the name it carries)."""
    if isinstance(ref, dict) and ref.get("name"):
        shown = str(ref["name"])
    elif value is None or value == UNASSIGNED:
        shown = "nobody"
    elif isinstance(value, list):
        shown = ", ".join(str(v) for v in value) or "no tags"
    elif field in LABELS:
        shown = LABELS[field].get(str(value), str(value))
    else:
        text = str(value)
        shown = text if len(text) <= 60 else text[:60] + "…"
    return shown


def _arg(catalogue: Catalogue, command: str, field: str, spec: Any) -> str:
    info = catalogue.commands.get(command)
    words = info.words(field, catalogue.field_words) if info else {}
    if not isinstance(spec, dict) or spec.get("from") == "param":
        return words.get("asked", f"the {field} you choose")
    if spec.get("from") == "step":
        return words.get("same", f"the same {field}")
    return value_words(catalogue, command, field, spec.get("value"), spec.get("ref"))


def _filter_sentence(catalogue: Catalogue, args: dict[str, Any]) -> str:
    how = {
        "text": "mentioning {}",
        "status": "with status {}",
        "priority": "with priority {}",
        "assignee": "assigned to {}",
        "tag": "tagged {}",
    }
    parts = []
    for field, pattern in how.items():
        spec = args.get(field)
        if not isinstance(spec, dict):
            continue
        if spec.get("from") == "const" and spec.get("value") in ("", None):
            continue
        parts.append(pattern.format(_arg(catalogue, "filter_tickets", field, spec)))
    return "Find the tickets " + ", ".join(parts) if parts else "Look at every ticket"


def step_sentence(catalogue: Catalogue, step: dict[str, Any]) -> str:
    """One step as a sentence: "Assign the ticket you choose to Priya Raman" (js/words.js
    words the page's steps from the same catalogue)."""
    command = str(step.get("command"))
    info = catalogue.commands.get(command)
    args = step.get("args") or {}
    if info is None:
        return "A step this console no longer has"
    if command == "filter_tickets":
        return _filter_sentence(catalogue, args)
    return re.sub(
        r"\{(\w+)\}", lambda m: _arg(catalogue, command, m.group(1), args.get(m.group(1))), info.say
    )


def recorded_step_sentence(catalogue: Catalogue, step: dict[str, Any]) -> str:
    """A recorded step (a command and the values given) as a sentence, each value fixed."""
    raw_refs, raw_payload = step.get("refs"), step.get("payload")
    refs: dict[str, Any] = raw_refs if isinstance(raw_refs, dict) else {}
    payload: dict[str, Any] = raw_payload if isinstance(raw_payload, dict) else {}
    args = {
        name: {"from": "const", "value": value, **({"ref": refs[name]} if name in refs else {})}
        for name, value in payload.items()
    }
    return step_sentence(catalogue, {"command": step.get("command"), "args": args})


def step_lines(definition: dict[str, Any], catalogue: Catalogue) -> list[str]:
    return [
        f"{index + 1}. {step_sentence(catalogue, step)}"
        for index, step in enumerate(definition.get("steps") or [])
    ]


def questions(definition: dict[str, Any]) -> list[str]:
    schema = definition.get("inputSchema") or {}
    required = set(schema.get("required") or [])
    out = []
    for name, sub in (schema.get("properties") or {}).items():
        text = str((sub or {}).get("description") or name).strip()
        out.append(f"• {text}" + ("" if name in required else " (optional)"))
    return out


def changes(definition: dict[str, Any], catalogue: Catalogue) -> str:
    titles = []
    for step in definition.get("steps") or []:
        info = catalogue.commands.get(str(step.get("command")))
        if info is not None and info.mutates and info.title not in titles:
            titles.append(info.title)
    if not titles:
        return "Nothing: it only reads tickets."
    infos = [catalogue.commands.get(str(s.get("command"))) for s in definition.get("steps") or []]
    many = any(info is not None and info.set_based for info in infos)
    text = "Tickets: " + ", ".join(t.lower() for t in titles) + "."
    if many:
        text += " It can change many tickets at once (every ticket a search matches)."
    return text


def summary(definition: dict[str, Any], catalogue: Catalogue) -> str:
    """One paragraph for an agent's draft answer."""
    steps = definition.get("steps") or []
    asked = [str(k) for k in ((definition.get("inputSchema") or {}).get("properties") or {})]
    text = f'"{definition.get("name")}" does {len(steps)} recorded step(s)'
    text += f", asking for {', '.join(asked)}." if asked else ", asking for nothing."
    return text + " It changes: " + changes(definition, catalogue)


def tool_sections(definition: dict[str, Any], catalogue: Catalogue) -> tuple[tuple[str, str], ...]:
    asked = questions(definition)
    return (
        ("What agents will read", str(definition.get("description", ""))),
        ("What it does", "\n".join(step_lines(definition, catalogue))),
        ("What it asks for each time", "\n".join(asked) if asked else "Nothing."),
        ("What it can change", changes(definition, catalogue)),
    )


def difference_sections(
    old: dict[str, Any], new: dict[str, Any], catalogue: Catalogue
) -> tuple[tuple[str, str], ...]:
    """Old → new, step by step, for a repair or a re-approval."""
    before = step_lines(old, catalogue)
    after = step_lines(new, catalogue)
    lines = []
    for i in range(max(len(before), len(after))):
        a = before[i] if i < len(before) else "(none)"
        b = after[i] if i < len(after) else "(none)"
        lines.append(f"{a}" if a == b else f"{a}\n   → now: {b.split('. ', 1)[-1]}")
    sections: list[tuple[str, str]] = [("What changes", "\n".join(lines))]
    if old.get("description") != new.get("description"):
        sections.append(
            (
                "What agents will read",
                f"Before: {old.get('description')}\nNow: {new.get('description')}",
            )
        )
    return tuple(sections)


def answers(
    definition: dict[str, Any],
    arguments: dict[str, Any],
    catalogue: Catalogue,
    known: dict[str, list[dict[str, str]]] | None = None,
) -> str:
    """What a run was asked to do with, in words: "Ticket: T-1011", "Person: Priya Raman"
    (people and templates by their name on the saved queue, `known`)."""
    fields: dict[str, tuple[str, str]] = {}
    for step in definition.get("steps") or []:
        for field, spec in (step.get("args") or {}).items():
            if isinstance(spec, dict) and spec.get("from") == "param":
                fields.setdefault(str(spec.get("name")), (str(step.get("command")), field))
    lines = []
    for name, value in sorted(arguments.items()):
        command, field = fields.get(name, ("", name))
        info = catalogue.commands.get(command)
        label = info.words(field, catalogue.field_words)["label"] if info else field
        kind = info.refs.get(field) if info else None
        hit = next((i for i in (known or {}).get(kind or "", []) if i["id"] == value), None)
        ref = {"name": hit["name"]} if hit is not None and hit["name"] else None
        lines.append(f"• {label}: {shown_value(field, value, ref)}")
    return "\n".join(lines)
