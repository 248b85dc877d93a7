"""The catalogue's eighteen commands, applied to the SQLite queue.

Each handler does what the page's handler of the same id does (js/catalogue.js), so a command
means the same in the desktop app and in a plain browser (tests/test_model_parity.py runs
random command sequences through both and compares every field). A handler reads and writes
through model/tables.py inside the caller's transaction and says what it wrote as Writes; a
failure raises CommandError, and the caller's transaction is rolled back.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from understudy_desktop.catalogue import Catalogue, CommandInfo
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.js_text import code_point_sorted, first_name, js_length
from understudy_desktop.model import tables
from understudy_desktop.model.payloads import payload_problems
from understudy_desktop.model.views import Filter, View

WriteOp = Literal["set", "add_tag", "remove_tag"]


Actor = Literal["person", "agent", "helpdesk"]  # who made a commit the feed carries


@dataclass(frozen=True)
class Write:
    """What a command wrote: `field` := `value` on `ids` ("set"), or the tag `value` added to
    or removed from the tags of `ids`. `before` holds each ticket's value before, when the
    caller asked for it (a person's change, for Undo)."""

    field: str
    value: Any
    ids: tuple[str, ...]
    op: WriteOp = "set"
    before: tuple[Any, ...] | None = None
    after: tuple[Any, ...] | None = None  # per ticket, for tag writes with `before`

    def parts(self) -> tuple[WriteOp, str, Any, list[str]]:
        """(op, field, value, ids): how the page's change feed and the journal carry it."""
        return (self.op, self.field, self.value, list(self.ids))

    def as_feed(self) -> list[Any]:
        """parts() as the journal's JSON array."""
        return list(self.parts())

    def changes(self) -> list[tuple[str, str, Any, Any]]:
        """(ticket, field, before, after) per ticket; needs `before`."""
        assert self.before is not None
        if self.op == "set":
            return [
                (t, self.field, b, self.value) for t, b in zip(self.ids, self.before, strict=True)
            ]
        assert self.after is not None
        return list(
            zip(self.ids, [self.field] * len(self.ids), self.before, self.after, strict=True)
        )


class CommandError(Exception):
    """A command that cannot be applied; `message` is for a person (and an agent)."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass
class Applied:
    result: Any
    writes: list[Write] = field(default_factory=list)


@dataclass(frozen=True)
class People:
    """The queue's assignees and reply templates (queue_meta), as commands look them up."""

    assignees: list[dict[str, Any]]
    templates: list[dict[str, Any]]

    def assignee_name(self, person: str | None) -> str:
        if person is None:
            return "Unassigned"
        for a in self.assignees:
            if a.get("id") == person:
                return str(a.get("name") if a.get("name") is not None else person)
        return person


@dataclass
class Context:
    conn: sqlite3.Connection
    people: People
    view: View
    want_result: bool = True  # view commands skip working out a result nobody reads
    want_before: bool = True  # a run rolls back by transaction and needs no values before
    searches: tables.Searches | None = None  # phrase searches found once per transaction
    # A run's context: the ticket whose reply the person is typing (a run leaves it alone),
    # and the tickets whose reply it did leave alone.
    reply_typed: str | None = None
    left_alone: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.searches is None:
            self.searches = tables.Searches(self.conn)


Handler = Callable[[Context, dict[str, Any]], Applied]


def apply(catalogue: Catalogue, ctx: Context, command_id: str, payload: Any) -> Applied:
    """Check `payload` against the command's schema, then apply it in ctx.conn's transaction."""
    command = catalogue.commands.get(command_id)
    handler = HANDLERS.get(command_id)
    if command is None or handler is None:
        raise CommandError(ErrorCode.UNKNOWN_COMMAND, "That is not a command of this console.")
    problems = payload_problems(command, payload)
    if problems:
        raise CommandError(ErrorCode.INVALID_PAYLOAD, f"{command.title}: {'; '.join(problems)}.")
    return handler(ctx, payload)


def title_of(catalogue: Catalogue, command_id: str) -> str:
    info: CommandInfo | None = catalogue.commands.get(command_id)
    return info.title if info is not None else command_id


# --- lookups -----------------------------------------------------------------------------------
def _ticket(ctx: Context, ticket_id: str) -> tables.TicketRow:
    found = tables.ticket(ctx.conn, ticket_id)
    if found is None:
        raise CommandError(
            ErrorCode.NOT_FOUND,
            "That ticket is not in this queue. Check its id (for example T-1001).",
        )
    return found


def _assignee(ctx: Context, person: str | None) -> str | None:
    if person is None:
        return None
    if not any(a.get("id") == person for a in ctx.people.assignees):
        known = ", ".join(str(a.get("id")) for a in ctx.people.assignees)
        raise CommandError(
            ErrorCode.NOT_FOUND,
            f"No one on this queue has that assignee id. Known assignees: {known}.",
        )
    return person


def _person_is_typing(ctx: Context, ticket: tables.TicketRow) -> bool:
    """A run's reply on the ticket whose reply the person is typing is not written: the
    person's words are never overwritten under their fingers."""
    if ctx.reply_typed != ticket.id:
        return False
    ctx.left_alone.append(ticket.id)
    return True


def _one(ctx: Context, ticket: tables.TicketRow, name: str, value: Any) -> list[Write]:
    """Set one field of one ticket if it differs (an unchanged value is no change)."""
    before = ticket.value(name)
    if before == value:
        return []
    tables.write_field(ctx.conn, ticket.id, name, value)
    return [Write(name, value, (ticket.id,), "set", (before,))]


# --- reads and the view ----------------------------------------------------------------------
def filter_tickets(ctx: Context, p: dict[str, Any]) -> Applied:
    ctx.view.filter = Filter.of(p)
    if not ctx.want_result:
        return Applied(None)
    matched, ids = tables.first_matching(ctx.conn, ctx.view.filter, 20, ctx.searches)
    return Applied({"matched": matched, "ticket_ids": ids, "more": max(0, matched - 20)})


def get_ticket(ctx: Context, p: dict[str, Any]) -> Applied:
    return Applied(_ticket(ctx, p["ticket_id"]).as_dict())


def list_templates(ctx: Context, _p: dict[str, Any]) -> Applied:
    return Applied([{"id": t.get("id"), "name": t.get("name")} for t in ctx.people.templates])


def list_assignees(ctx: Context, _p: dict[str, Any]) -> Applied:
    return Applied(
        [
            {"id": a.get("id"), "name": a.get("name"), "role": a.get("role") or ""}
            for a in ctx.people.assignees
        ]
    )


def select_ticket(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    ctx.view.selected = ticket.id
    return Applied({"ticket_id": ticket.id, "subject_length": js_length(ticket.subject)})


# --- one ticket ------------------------------------------------------------------------------
def _set_scalar(name: str) -> Handler:
    def handler(ctx: Context, p: dict[str, Any]) -> Applied:
        ticket = _ticket(ctx, p["ticket_id"])
        previous = ticket.value(name)
        writes = _one(ctx, ticket, name, p[name])
        return Applied({"ticket_id": ticket.id, name: p[name], "previous": previous}, writes)

    return handler


def set_ticket_assignee(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    who = _assignee(ctx, p["assignee"])
    previous = ticket.assignee
    writes = _one(ctx, ticket, "assignee", who)
    result = {
        "ticket_id": ticket.id,
        "assignee": who,
        "assignee_name": ctx.people.assignee_name(who),
        "previous": previous,
    }
    return Applied(result, writes)


def _tags_result(ticket_id: str, tags: list[str], writes: list[Write]) -> Applied:
    return Applied({"ticket_id": ticket_id, "tags": list(tags)}, writes)


def set_ticket_tags(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    tags = code_point_sorted(list(p["tags"]))
    return _tags_result(ticket.id, tags, _one(ctx, ticket, "tags", tags))


def add_ticket_tag(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    if p["tag"] in ticket.tags:
        return _tags_result(ticket.id, ticket.tags, [])
    if len(ticket.tags) >= tables.MAX_TAGS:
        raise CommandError(
            ErrorCode.INVALID_PAYLOAD,
            f"Ticket {ticket.id} already has {tables.MAX_TAGS} tags, the most a ticket can have.",
        )
    tags = code_point_sorted([*ticket.tags, p["tag"]])
    return _tags_result(ticket.id, tags, _one(ctx, ticket, "tags", tags))


def remove_ticket_tag(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    tags = [t for t in ticket.tags if t != p["tag"]]
    return _tags_result(ticket.id, tags, _one(ctx, ticket, "tags", tags))


def apply_template(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    template = next((t for t in ctx.people.templates if t.get("id") == p["template_id"]), None)
    if template is None:
        known = ", ".join(str(t.get("id")) for t in ctx.people.templates)
        raise CommandError(
            ErrorCode.NOT_FOUND,
            f"This queue has no template with that id. Known templates: {known}.",
        )
    body = str(template.get("body") or "").replace(
        "{{requester_first_name}}", first_name(ticket.requester)
    )
    if _person_is_typing(ctx, ticket):
        return Applied({"ticket_id": ticket.id, "left_alone": True})
    writes = _one(ctx, ticket, "reply_draft", body)
    result = {
        "ticket_id": ticket.id,
        "template_id": template.get("id"),
        "draft_length": js_length(body),
    }
    return Applied(result, writes)


def set_reply_draft(ctx: Context, p: dict[str, Any]) -> Applied:
    ticket = _ticket(ctx, p["ticket_id"])
    if _person_is_typing(ctx, ticket):
        return Applied({"ticket_id": ticket.id, "left_alone": True})
    writes = _one(ctx, ticket, "reply_draft", p["text"])
    return Applied({"ticket_id": ticket.id, "draft_length": js_length(p["text"])}, writes)


# --- every matching ticket -------------------------------------------------------------------
def _set_matching(name: str) -> Handler:
    def handler(ctx: Context, p: dict[str, Any]) -> Applied:
        value = _assignee(ctx, p[name]) if name == "assignee" else p[name]
        return _matching_scalar(ctx, name, value)

    return handler


def _matching_scalar(ctx: Context, name: str, value: Any) -> Applied:
    matched = tables.count_matching(ctx.conn, ctx.view.filter, ctx.searches)
    ids, before = tables.set_matching(
        ctx.conn, ctx.view.filter, name, value, ctx.want_before, ctx.searches
    )
    writes = [Write(name, value, ids, "set", before)] if ids else []
    return Applied({"matched": matched, "changed": len(ids)}, writes)


def _tag_matching(add: bool) -> Handler:
    def handler(ctx: Context, p: dict[str, Any]) -> Applied:
        matched = tables.count_matching(ctx.conn, ctx.view.filter, ctx.searches)
        rows = tables.tag_matching(
            ctx.conn, ctx.view.filter, p["tag"], add, ctx.want_before, ctx.searches
        )
        ids = tuple(r[0] for r in rows)
        op: WriteOp = "add_tag" if add else "remove_tag"
        if not ids:
            return Applied({"matched": matched, "changed": 0})
        if ctx.want_before:
            write = Write(
                "tags", p["tag"], ids, op, tuple(r[2] for r in rows), tuple(r[1] for r in rows)
            )
        else:
            write = Write("tags", p["tag"], ids, op)
        return Applied({"matched": matched, "changed": len(ids)}, [write])

    return handler


HANDLERS: dict[str, Handler] = {
    "filter_tickets": filter_tickets,
    "get_ticket": get_ticket,
    "list_templates": list_templates,
    "list_assignees": list_assignees,
    "select_ticket": select_ticket,
    "set_ticket_priority": _set_scalar("priority"),
    "set_ticket_status": _set_scalar("status"),
    "set_ticket_assignee": set_ticket_assignee,
    "set_ticket_tags": set_ticket_tags,
    "add_ticket_tag": add_ticket_tag,
    "remove_ticket_tag": remove_ticket_tag,
    "apply_template": apply_template,
    "set_reply_draft": set_reply_draft,
    "tag_matching_tickets": _tag_matching(True),
    "untag_matching_tickets": _tag_matching(False),
    "set_matching_priority": _set_matching("priority"),
    "set_matching_status": _set_matching("status"),
    "assign_matching_tickets": _set_matching("assignee"),
}
