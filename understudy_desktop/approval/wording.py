"""What the approval dialog says about a tool, composed by the app from the definition the
shell holds (never by a model, never by the page): its description as agents will read it,
each step in words with its fixed values, what it asks for, and what it can change.

It reads the definition as the one Definition model parses it (definition.py), the same
typed steps a run executes (model/runs.py): what the dialog says a step does is read from
exactly what would run."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import ConstArg, Definition, ParamArg, Ref, Step, StepArg
from understudy_desktop.text import count_of

Arg = ParamArg | ConstArg | StepArg

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


def _arg(catalogue: Catalogue, command: str, field: str, spec: Arg | None) -> str:
    info = catalogue.commands.get(command)
    words = info.words(field, catalogue.field_words) if info else {}
    if spec is None or isinstance(spec, ParamArg):
        return words.get("asked", f"the {field} you choose")
    if isinstance(spec, StepArg):
        return words.get("same", f"the same {field}")
    ref = spec.ref.model_dump() if spec.ref is not None else None
    return value_words(catalogue, command, field, spec.value, ref)


# A filter's fields as nouns, for "matching the words and status you choose" (js/words.js).
FILTER_NOUNS = {
    "text": "words",
    "status": "status",
    "priority": "priority",
    "assignee": "assignee",
    "tag": "tag",
}


def list_words(items: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _filter_sentence(catalogue: Catalogue, args: dict[str, Arg]) -> str:
    how = {
        "text": "mentioning {}",
        "status": "with status {}",
        "priority": "with priority {}",
        "assignee": "assigned to {}",
        "tag": "tagged {}",
    }
    # Two or more values asked each time read as one phrase, not one "the … you choose" each.
    asked = [field for field in FILTER_NOUNS if isinstance(args.get(field), ParamArg)]
    grouped = len(asked) > 1
    parts = []
    for field, pattern in how.items():
        spec = args.get(field)
        if spec is None or (grouped and isinstance(spec, ParamArg)):
            continue
        if isinstance(spec, ConstArg) and spec.value in ("", None):
            continue
        parts.append(pattern.format(_arg(catalogue, "filter_tickets", field, spec)))
    if grouped:
        parts.append(f"matching the {list_words([FILTER_NOUNS[f] for f in asked])} you choose")
    return "Find the tickets " + ", ".join(parts) if parts else "Look at every ticket"


def step_sentence(catalogue: Catalogue, step: Step) -> str:
    """One step as a sentence: "Assign the ticket you choose to Priya Raman" (js/words.js
    words the page's steps from the same catalogue)."""
    command = step.command
    info = catalogue.commands.get(command)
    args = step.args
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
    # Only shown, never run: built as it is, without the checks a definition gets.
    args: dict[str, Arg] = {
        name: ConstArg.model_construct(source="const", value=value, ref=_ref(refs.get(name)))
        for name, value in payload.items()
    }
    return step_sentence(
        catalogue, Step.model_construct(command=str(step.get("command")), args=args)
    )


def _ref(raw: Any) -> Ref | None:
    if isinstance(raw, dict) and raw.get("name"):
        return Ref.model_construct(kind=raw.get("kind", "person"), name=str(raw["name"]))
    return None


def step_lines(definition: Definition, catalogue: Catalogue) -> list[str]:
    return [
        f"{index + 1}. {step_sentence(catalogue, step)}"
        for index, step in enumerate(definition.steps)
    ]


def questions(definition: Definition) -> list[str]:
    schema = definition.inputSchema
    required = set(schema.get("required") or [])
    out = []
    for name, sub in (schema.get("properties") or {}).items():
        text = str((sub or {}).get("description") or name).strip()
        out.append(f"• {text}" + ("" if name in required else " (optional)"))
    return out


def changes(definition: Definition, catalogue: Catalogue) -> str:
    titles = []
    for step in definition.steps:
        info = catalogue.commands.get(step.command)
        if info is not None and info.mutates and info.title not in titles:
            titles.append(info.title)
    if not titles:
        return "Nothing: it only reads tickets."
    infos = [catalogue.commands.get(s.command) for s in definition.steps]
    many = any(info is not None and info.set_based for info in infos)
    text = "Tickets: " + ", ".join(t.lower() for t in titles) + "."
    if many:
        text += " It can change many tickets at once (every ticket a search matches)."
    return text


def summary(definition: Definition, catalogue: Catalogue) -> str:
    """One paragraph for an agent's draft answer."""
    asked = [str(k) for k in (definition.inputSchema.get("properties") or {})]
    text = f'"{definition.name}" does {count_of(len(definition.steps), "recorded step")}'
    text += f", asking for {', '.join(asked)}." if asked else ", asking for nothing."
    return text + " It changes: " + changes(definition, catalogue)


UNREADABLE = (
    "Understudy cannot read this tool's steps: it is not the tool that was approved. Revoke "
    "it, or bring it in again from its pack."
)


def tool_sections(
    definition: Definition | None, catalogue: Catalogue
) -> tuple[tuple[str, str], ...]:
    """The dialog's sections; None is a stored copy that does not read as a definition."""
    if definition is None:
        return (("What it does", UNREADABLE),)
    asked = questions(definition)
    return (
        ("What agents will read", definition.description),
        ("What it does", "\n".join(step_lines(definition, catalogue))),
        ("What it asks for each time", "\n".join(asked) if asked else "Nothing."),
        ("What it can change", changes(definition, catalogue)),
    )


def difference_sections(
    old: Definition | None,
    new: Definition | None,
    catalogue: Catalogue,
    always_description: bool = False,
) -> tuple[tuple[str, str], ...]:
    """Old → new, step by step, for a repair or a re-approval (None: nothing readable); what
    agents read, when it changed or `always_description` (a repair shows it either way)."""
    if new is None:
        return (("What changes", UNREADABLE),)
    before = step_lines(old, catalogue) if old is not None else []
    after = step_lines(new, catalogue)
    lines = []
    for i in range(max(len(before), len(after))):
        a = before[i] if i < len(before) else "(none)"
        b = after[i] if i < len(after) else "(none)"
        lines.append(f"{a}" if a == b else f"{a}\n   → now: {b.split('. ', 1)[-1]}")
    sections: list[tuple[str, str]] = [("What changes", "\n".join(lines))]
    was = old.description if old is not None else ""
    if was != new.description:
        sections.append(("What agents will read", f"Before: {was}\nNow: {new.description}"))
    elif always_description:
        sections.append(("What agents will read", f"Unchanged: {new.description}"))
    return tuple(sections)


def answers(
    definition: Definition | None,
    arguments: dict[str, Any],
    catalogue: Catalogue,
    known: dict[str, list[dict[str, str]]] | None = None,
) -> str:
    """What a run was asked to do with, in words: "Ticket: T-1011", "Person: Priya Raman"
    (people and templates by their name on the saved queue, `known`)."""
    fields: dict[str, tuple[str, str]] = {}
    for step in definition.steps if definition is not None else []:
        for field, spec in step.args.items():
            if isinstance(spec, ParamArg):
                fields.setdefault(spec.name, (step.command, field))
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


@dataclass(frozen=True)
class SelectionPreview:
    """A run on the person's selection, tried and rolled back: what it would change."""

    tickets: tuple[str, ...]  # the tickets selected
    would_change: tuple[str, ...]  # those it would change, the first of them (a run names 20)
    would_count: int  # how many it would change in all
    answers: dict[str, Any]  # what else the tool was given (the same for every ticket)


def ticket_list(named: tuple[str, ...], count: int, shown: int = 8) -> str:
    """ "T-1001, T-1002 and 3 more": the first few of `count` tickets, by their ids."""
    first = list(named[:shown])
    rest = count - len(first)
    return ", ".join(first) + (f" and {rest:,} more" if rest > 0 else "")
