"""The team's Zendesk macros and Freshdesk canned responses, as draft tools.

Each macro action the catalogue has a command for becomes a step of a one-ticket tool (the
ticket is the tool's one question); an action with no command (a group, a custom field, the
comment's visibility, "assign to whoever runs it") is listed in words and left out, never
guessed. The reply text of a macro, or a canned response, is the queue's reply template of the
same name (a first sync brought it in), so its step is "apply that template". What comes out
is a draft: the person approves it in the native dialog like any other tool.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.helpdesk.base import RemoteTemplate
from understudy_desktop.rules import rules

STATUSES = {"new", "open", "pending", "solved", "closed"}
PRIORITIES = {"low", "normal", "high", "urgent"}
# Zendesk's names for what its macros do that the catalogue cannot: said, then left out.
NO_COMMAND_WORDS = {
    "group_id": "set the group",
    "type": "set the ticket type",
    "subject": "change the subject",
    "brand_id": "set the brand",
    "comment_mode_is_public": "choose whether the reply is public",
    "cc": "copy someone in",
    "satisfaction_score": "ask for a rating",
}


@dataclass
class MacroTool:
    """A macro as a tool: what it will do and what it leaves out, in words."""

    title: str
    name: str
    definition: dict[str, Any] | None
    does: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)


def tool_name(title: str) -> str:
    """A tool name from a macro's title: "Close & tag billing!" -> close_tag_billing."""
    folded = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode().lower()
    words = re.findall(r"[a-z0-9]+", folded)
    name = "_".join(words) or "macro"
    if not name[0].isalpha():
        name = "macro_" + name
    limit = rules().budgets.name
    return name[:limit].rstrip("_")


def _step(command: str, **values: Any) -> dict[str, Any]:
    args: dict[str, Any] = {"ticket_id": {"from": "param", "name": "ticket_id"}}
    for key, value in values.items():
        args[key] = {"from": "const", "value": value}
    return {"command": command, "args": args}


def macro_tool(
    macro: RemoteTemplate,
    people: dict[str, str],
    names: dict[str, str],
    template_id: str | None,
    helpdesk: str,
) -> MacroTool:
    """`people`: the helpdesk's person ids -> the console's; `names`: console id -> name;
    `template_id`: the console's template holding the macro's reply, if it has one."""
    tool = MacroTool(macro.title, tool_name(macro.title), None)
    steps: list[dict[str, Any]] = []
    for action, raw in macro.actions:
        _one(action, str(raw), people, names, steps, tool)
    if template_id is not None:
        steps.append(_step("apply_template", template_id=template_id))
        tool.does.append(f"fill the reply with “{macro.title}”")
    elif macro.body.strip():
        # Never dropped without a word.
        tool.left_out.append("its reply text, which the queue has no reply template for")
    if not steps:
        return tool
    tool.definition = {
        "name": tool.name,
        "title": macro.title[:60],
        "description": (
            f"Do what the {helpdesk} macro “{macro.title[:80]}” does to one ticket: "
            + "; ".join(tool.does)
            + "."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "ticket_id": {
                    "type": "string",
                    "description": "The ticket to do it to, as the queue names it.",
                }
            },
            "required": ["ticket_id"],
            "additionalProperties": False,
        },
        "steps": steps,
    }
    return tool


def _one(
    action: str,
    raw: str,
    people: dict[str, str],
    names: dict[str, str],
    steps: list[dict[str, Any]],
    tool: MacroTool,
) -> None:
    value = raw.strip()
    if action == "status" and _status(value) is not None:
        steps.append(_step("set_ticket_status", status=_status(value)))
        if value.lower() == "hold":  # said, not silently changed: the console has no On-hold
            tool.does.append("set the status to pending (the console's word for On-hold)")
        else:
            tool.does.append(f"set the status to {_status(value)}")
    elif action == "priority" and value.lower() in PRIORITIES:
        steps.append(_step("set_ticket_priority", priority=value.lower()))
        tool.does.append(f"set the priority to {value.lower()}")
    elif action in ("assignee_id", "responder_id") and value in people:
        person = people[value]
        steps.append(_step("set_ticket_assignee", assignee=person))
        tool.does.append(f"assign it to {names.get(person, person)}")
    elif action in ("set_tags", "current_tags", "remove_tags") and value:
        _tags(action, value.lower().split(), steps, tool)
    elif action in ("comment_value", "comment_value_html"):
        pass  # the reply: the queue's template of the macro's name (see macro_tool)
    else:
        tool.left_out.append(_left_out(action, value))


def _status(value: str) -> str | None:
    lowered = value.lower()
    if lowered == "hold":
        return "pending"
    return lowered if lowered in STATUSES else None


def _tags(action: str, tags: list[str], steps: list[dict[str, Any]], tool: MacroTool) -> None:
    if action == "set_tags":
        steps.append(_step("set_ticket_tags", tags=sorted(set(tags))))
        tool.does.append("set the tags to " + ", ".join(sorted(set(tags))))
        return
    command = "add_ticket_tag" if action == "current_tags" else "remove_ticket_tag"
    for tag in tags:
        steps.append(_step(command, tag=tag))
    verb = "add the tag" if action == "current_tags" else "remove the tag"
    tool.does.append(f"{verb}{'s' if len(tags) > 1 else ''} " + ", ".join(tags))


def _left_out(action: str, value: str) -> str:
    if action in ("assignee_id", "responder_id"):
        if value in ("current_user", ""):
            return "assign it to whoever uses it (Understudy asks for no one)"
        return "assign it to someone who is not among the queue's people"
    if action.startswith("custom_fields"):
        return "set a custom field"
    words = NO_COMMAND_WORDS.get(action)
    if words is not None:
        return words
    return f"“{action.replace('_', ' ')}”, which Understudy has no way to do"
