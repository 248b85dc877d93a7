"""What every helpdesk adapter offers, in the console's own terms.

An adapter speaks one helpdesk's API and nothing else: it turns that helpdesk's tickets,
people and templates into RemoteTicket, RemotePerson and RemoteTemplate (console vocabulary:
statuses new/open/pending/solved/closed, priorities low/normal/high/urgent, people by their
helpdesk id), and a FieldChange into the helpdesk's update. Everything else (the outbox, the
id map, conflicts, what a person reads) is shared and lives beside it.

Errors an adapter raises are HelpdeskError subclasses whose str() is for a person; none of
them ever carries a credential.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from understudy_desktop.rules import rules
from understudy_desktop.store.helpdesk_tables import SENT_FIELDS

Kind = Literal["rt", "zendesk", "freshdesk"]


@dataclass(frozen=True)
class RemoteTicket:
    """One ticket as the helpdesk holds it now. `version` is what a change is sent against
    (RT's ETag, Zendesk's updated_stamp, Freshdesk's updated_at); `updated` is when it last
    changed, in the helpdesk's clock (ISO 8601, UTC), for the sync cursor."""

    remote_id: str
    version: str
    updated: str
    subject: str
    body: str
    requester: str
    created: str
    status: str
    priority: str
    assignee: str | None  # the helpdesk's id of the person, None for nobody
    tags: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # A ticket's text beyond rules.json's limits.ticketBody (a 49 MB mail thread) is cut
        # where it is read, so what is stored and what is compared on the next sync agree.
        limit = rules().limits.ticketBody
        if len(self.body) > limit:
            rest = len(self.body) - limit
            cut = (
                f"{self.body[:limit]}\n\n[{rest:,} more characters of this ticket are in the "
                "helpdesk: too long to keep here.]"
            )
            object.__setattr__(self, "body", cut)

    def value(self, name: str) -> Any:
        return list(self.tags) if name == "tags" else getattr(self, name)


@dataclass(frozen=True)
class RemotePerson:
    remote_id: str
    name: str
    email: str = ""


@dataclass(frozen=True)
class RemoteTemplate:
    """A macro or canned response: a reply body, and the actions it would take (as the
    helpdesk names them: ("status", "solved"), ("priority", "high"), ("tags", "a b"), …)."""

    remote_id: str
    title: str
    body: str
    actions: tuple[tuple[str, str], ...] = ()


Why = Literal["moved", "deleted"]


@dataclass(frozen=True)
class Departure:
    """A ticket that left what the connection works on: moved to another queue, or deleted."""

    remote_id: str
    why: Why


@dataclass(frozen=True)
class Page:
    """Tickets changed since a cursor, oldest change first; `cursor` resumes after them and
    `more` says another page follows at once. `gone` holds tickets that left the connected
    queue in the same time (an adapter may list tickets it never gave: they are skipped)."""

    tickets: Sequence[RemoteTicket]
    cursor: str
    more: bool = False
    gone: Sequence[Departure] = ()


@dataclass(frozen=True)
class FieldChange:
    """One field of one ticket, to be set in the helpdesk: `value` in console vocabulary
    (tags: the whole list), sent against `version`."""

    remote_id: str
    field: str
    value: Any
    version: str


@dataclass(frozen=True)
class Abilities:
    """What the connection can do with the permissions it has, for the connection dialog."""

    account: str  # who the connection acts as, in the helpdesk's words
    can_read: bool = True
    can_update: bool = True
    fields: tuple[str, ...] = SENT_FIELDS
    notes: tuple[str, ...] = field(default_factory=tuple)  # plain sentences


class HelpdeskError(Exception):
    """Something the helpdesk said or did not say; str() is for a person."""


class UnreachableError(HelpdeskError):
    """Could not reach the helpdesk, or it asked to wait (429, 503), or it answered with
    something that is not its own API (a proxy's or a sign-in page): try again later. `why`
    tells these apart for the status line: "unreachable", "busy", "trouble", "unreadable"."""

    def __init__(
        self, words: str, retry_after_s: float | None = None, why: str = "unreachable"
    ) -> None:
        super().__init__(words)
        self.retry_after_s = retry_after_s
        self.why = why


class NotAllowedError(HelpdeskError):
    """The credentials were refused, or they may not do this."""


class SignInError(NotAllowedError):
    """The credentials themselves were refused (401): nothing can be sent until they are
    fixed, so the whole connection waits, rather than this one change being refused."""


class RefusedError(HelpdeskError):
    """The helpdesk will not take this change (a value it does not know, a closed ticket)."""


class GoneError(HelpdeskError):
    """The ticket is not in the connected queue any more: `why` says whether it was moved
    to another queue or deleted."""

    def __init__(self, words: str, why: Why = "deleted") -> None:
        super().__init__(words)
        self.why: Why = why


class ConflictError(HelpdeskError):
    """The ticket changed in the helpdesk since `version`: `current` is how it is now."""

    def __init__(self, current: RemoteTicket) -> None:
        super().__init__("The ticket changed in the helpdesk since.")
        self.current = current


class Helpdesk(Protocol):
    kind: Kind
    title: str  # "Request Tracker", "Zendesk", "Freshdesk": how a person names it

    def check(self) -> Abilities: ...

    def changed_since(self, cursor: str | None) -> Page: ...

    def ticket(self, remote_id: str) -> RemoteTicket: ...

    def current(self, remote_id: str) -> RemoteTicket:
        """The ticket's fields and version as they are now, for sending a change: its text
        may be left out (RT reads a ticket's first message with two more requests)."""
        ...

    def people(self) -> list[RemotePerson]: ...

    def groups(self) -> list[RemotePerson]: ...

    def templates(self) -> list[RemoteTemplate]: ...

    def roll_call(self) -> set[str] | None:
        """Every ticket in the connected queue now (the helpdesk's ids), for a helpdesk whose
        changes may not tell of a ticket that left (RT: moved into a queue this sign-in
        cannot see); None where `changed_since` always does."""
        ...

    def apply(self, change: FieldChange) -> RemoteTicket:
        """Set the field; the ticket as it is after. ConflictError when it moved on since
        change.version; RefusedError, NotAllowedError, GoneError, UnreachableError otherwise."""
        ...

    def reads_back(self, field: str, value: Any) -> Any:
        """How a console value reads once this helpdesk holds it (a helpdesk with fewer
        statuses or priorities keeps a near one): what "already there" is compared with."""
        ...

    def close(self) -> None: ...
