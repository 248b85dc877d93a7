"""What the approval dialog says about a tool, composed by the app from the definition the
shell holds (never by a model, never by the page): its description as agents will read it,
each step in words with its fixed values, what it asks for, and what it can change."""

from __future__ import annotations

from typing import Any

from understudy_desktop.catalogue import Catalogue

# Field names as a person says them.
FIELD_WORDS = {
    "ticket_id": "ticket",
    "assignee": "person",
    "priority": "priority",
    "status": "status",
    "template_id": "reply template",
    "tag": "tag",
    "tags": "tags",
    "text": "text",
}


def field_words(field: str) -> str:
    return FIELD_WORDS.get(field, field.replace("_", " "))


def value_words(value: Any) -> str:
    if value is None:
        return "nobody"
    if isinstance(value, list):
        return ", ".join(value_words(v) for v in value) or "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)[:80]


def step_lines(definition: dict[str, Any], catalogue: Catalogue) -> list[str]:
    schema = definition.get("inputSchema") or {}
    properties = schema.get("properties") or {}
    lines = []
    for index, step in enumerate(definition.get("steps") or []):
        command = str(step.get("command"))
        info = catalogue.commands.get(command)
        title = info.title if info else "an unknown step"
        parts = []
        for field, spec in (step.get("args") or {}).items():
            words = field_words(field)
            source = spec.get("from")
            if source == "const":
                parts.append(f"{words}: {value_words(spec.get('value'))}")
            elif source == "param":
                asked = properties.get(spec.get("name"), {})
                hint = str(asked.get("description") or "").strip()
                parts.append(f"{words}: chosen each time" + (f" ({hint})" if hint else ""))
            elif source == "step":
                parts.append(f"{words}: the one from step {int(spec.get('step', 0)) + 1}")
        lines.append(f"{index + 1}. {title}" + (f" — {'; '.join(parts)}" if parts else ""))
    return lines


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
