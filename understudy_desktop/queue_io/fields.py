"""Turning raw values (CSV cells, JSON values) into ticket fields, and rows into tickets."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from understudy_desktop.queue_io.choices import PEOPLE, ImportChoices
from understudy_desktop.queue_io.columns import (
    FIELD_VALUES,
    NUMERIC_CODES,
    UNKNOWN_VALUE_DEFAULTS,
    CellValueError,
    FieldName,
    assignee_slug,
    normalise_priority,
    normalise_status,
    numeric_code,
    parse_date,
    split_tags,
    tag_separator,
    value_key,
)
from understudy_desktop.queue_io.errors import RowProblems, shorten
from understudy_desktop.queue_io.loaded import READ_PREFIX, ValueOrigin, ValueReport
from understudy_desktop.queue_io.models import Assignee, Ticket
from understudy_desktop.queue_io.plain_text import (
    FORMULA_START,
    html_to_text,
    looks_like_html,
    means_nobody,
)
from understudy_desktop.queue_io.progress import EVERY, tickets_read

# Said by both readers when the person's choices leave no column (CSV) or field (JSON) as the id.
NO_CHOSEN_ID: Final = (
    "No {noun} is used as the ticket id. Choose the {noun} that holds each ticket's id "
    '(under "Use as…", pick "Ticket id").'
)


class FieldReader:
    """Turns one raw value (a CSV cell or a JSON value) into a ticket field value.

    Shared with the writer, which re-reads the original values to see whether they changed.
    Lookups are cached because exports repeat the same few statuses and names on every row.
    """

    def __init__(
        self, default_created: str, values: Mapping[str, Mapping[str, str]] | None = None
    ) -> None:
        """``values``: chosen meanings of status and priority spellings, which win over rules."""
        self.default_created = default_created
        self.assignee_names: dict[str, str] = {}
        self.tag_separator: str | None = None
        self._chosen: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        self._chosen_loosely: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        for name, meanings in (values or {}).items():
            if name not in FIELD_VALUES:
                continue
            for raw, ours in meanings.items():
                if ours in FIELD_VALUES[name]:
                    self._chosen[name][raw.strip()] = ours
                    self._chosen_loosely[name].setdefault(value_key(raw), ours)
        # Per field: raw value -> our value, and raw value -> how many cells hold it.
        self._cache: dict[str, dict[str, str]] = {name: {} for name in FIELD_VALUES}
        self._counts: dict[str, dict[str, int]] = {name: {} for name in FIELD_VALUES}
        # Per field: each spelling (stripped), in file order -> (our value, where it came from).
        self.found: dict[str, dict[str, tuple[str, ValueOrigin]]] = {
            name: {} for name in FIELD_VALUES
        }
        self._assignee: dict[str, str | None] = {}
        # Who each assignee spelling was chosen to mean ("" nobody), and what each spelling
        # in the file was read as, with its count (the preview lists them).
        self._people: dict[str, str] = dict((values or {}).get(PEOPLE, {}))
        self.people_read: dict[str, str] = {}
        self.people_counts: dict[str, int] = {}
        self.readers: dict[FieldName, Callable[[Any], Any]] = {
            "id": self.ticket_id,
            "subject": self.text,
            "body": self.body,
            "requester": self.requester,
            "status": self.status,
            "priority": self.priority,
            "assignee": self.assignee,
            "tags": self.tags,
            "created": self.created,
        }

    @staticmethod
    def ticket_id(raw: Any) -> str:
        if isinstance(raw, str):
            return raw.strip()
        if isinstance(raw, int) and not isinstance(raw, bool):
            return str(raw)
        if raw is None:
            return ""
        raise CellValueError("the ticket id must be text or a whole number.")

    @staticmethod
    def text(raw: Any) -> str:
        if isinstance(raw, str):
            if raw.startswith("\t") and raw[1:2] in FORMULA_START:
                # A tab put there to keep a spreadsheet from running the cell as a formula:
                # kept, so the cell is saved back as safe as it came.
                return raw.rstrip()
            return raw.strip()
        if raw is None:
            return ""
        if isinstance(raw, int | float) and not isinstance(raw, bool):
            return str(raw)
        raise CellValueError(f"this should be text, not {shorten(json.dumps(raw))}.")

    @staticmethod
    def requester(raw: Any) -> str:
        if isinstance(raw, dict):
            # Some JSON exports nest the person: {"name": "Ana", "email": "ana@example.com"}.
            # The name is what a reply greets ("Hi Ana,"); the address only when there is none.
            raw = raw.get("name") or raw.get("email")
        return FieldReader.text(raw)

    @staticmethod
    def body(raw: Any) -> str:
        # Leading spaces and blank lines can matter in a message body, so it is kept as written;
        # a body written in HTML (a helpdesk's rich text) is read as the text it shows.
        if isinstance(raw, str):
            return html_to_text(raw) if looks_like_html(raw) else raw
        return FieldReader.text(raw)

    def _word(self, raw: Any, name: str) -> str:
        if raw is None:
            raw = ""
        elif isinstance(raw, int) and not isinstance(raw, bool):
            raw = str(raw)  # JSON exports write Freshdesk codes as numbers: "status": 2
        elif not isinstance(raw, str):
            raise CellValueError(
                f"this should be a word or a number, not {shorten(json.dumps(raw))}."
            )
        counts = self._counts[name]
        counts[raw] = counts.get(raw, 0) + 1
        cache = self._cache[name]
        found = cache.get(raw)
        if found is None:
            found = self._meaning(name, raw.strip())
            cache[raw] = found
        return found

    def _meaning(self, name: str, key: str) -> str:
        """What one spelling means: the person's choice, else the rules, else a default."""
        seen = self.found[name].get(key)
        if seen is not None:
            return seen[0]
        parse = normalise_status if name == "status" else normalise_priority
        origin: ValueOrigin
        try:
            ours = parse(key)
            origin = "number" if numeric_code(name, key) is not None else "known"
        except CellValueError:
            # One odd value must not stop a whole file from opening; the preview asks about it.
            ours, origin = UNKNOWN_VALUE_DEFAULTS[name], "unknown"
        chosen = self._chosen[name].get(key) or self._chosen_loosely[name].get(value_key(key))
        if chosen is not None and (chosen != ours or origin == "unknown"):
            ours, origin = chosen, "chosen"
        self.found[name][key] = (ours, origin)
        return ours

    def status(self, raw: Any) -> str:
        return self._word(raw, "status")

    def priority(self, raw: Any) -> str:
        return self._word(raw, "priority")

    def vocabulary(self) -> dict[str, dict[str, str]]:
        """QueueSource.vocabulary: how to spell each value when writing, and how each was read.

        A value is written in the file's own word for it when the rules know that word, else as
        a Freshdesk number when the file uses those, else as a spelling the person chose for it.
        A spelling that only got a default is never used for other tickets.
        """
        vocabulary: dict[str, dict[str, str]] = {}
        for name, found in self.found.items():
            spellings: dict[str, str] = {}
            for key, (ours, origin) in found.items():
                if key and origin in ("known", "number"):
                    spellings.setdefault(ours, key)
            numbers = any(origin == "number" for _, origin in found.values())
            if numbers and all(key.isdigit() for key in spellings.values()):
                for code, ours in NUMERIC_CODES[name].items():
                    if code not in found:
                        spellings.setdefault(ours, code)
            for key, (ours, origin) in found.items():
                if key and origin == "chosen":
                    spellings.setdefault(ours, key)
            vocabulary[name] = spellings
        for name, found in self.found.items():
            if found:
                vocabulary[READ_PREFIX + name] = {key: ours for key, (ours, _) in found.items()}
        if self._people:
            # So that saving reads each assignee cell as it was loaded (the person's choices).
            vocabulary[READ_PREFIX + PEOPLE] = dict(self._people)
        return vocabulary

    def value_report(self) -> ValueReport:
        counts: dict[str, dict[str, int]] = {}
        for name, by_raw in self._counts.items():
            merged: dict[str, int] = {key: 0 for key in self.found[name]}
            for raw, count in by_raw.items():
                merged[raw.strip()] = merged.get(raw.strip(), 0) + count
            counts[name] = merged
        return ValueReport(
            meanings={
                name: {key: ours for key, (ours, _) in found.items()}
                for name, found in self.found.items()
            },
            counts=counts,
            unknown={
                name: tuple(key for key, (_, origin) in found.items() if origin == "unknown")
                for name, found in self.found.items()
            },
            numbers={
                name: tuple(key for key, (_, origin) in found.items() if origin == "number")
                for name, found in self.found.items()
            },
            people=dict(self.people_read),
            people_counts=dict(self.people_counts),
        )

    def assignee(self, raw: Any) -> str | None:
        if isinstance(raw, dict):
            # Some JSON exports nest the agent: {"id": 7, "name": "Ana"}.
            raw = raw.get("name") or raw.get("email") or raw.get("id")
        if raw is None:
            return None
        if isinstance(raw, int) and not isinstance(raw, bool):
            raw = str(raw)
        if not isinstance(raw, str):
            raise CellValueError(f"this should be a name, not {shorten(json.dumps(raw))}.")
        name = raw.strip()
        self.people_counts[name] = self.people_counts.get(name, 0) + 1
        if raw in self._assignee:
            return self._assignee[raw]
        chosen = self._people.get(name)
        if chosen is not None:
            meant = chosen  # the person said who this is ("" : nobody)
        elif name and not means_nobody(name):
            meant = name
        else:
            meant = ""  # "No Agent", "Unassigned", "-": how exports write that nobody has it
        slug = assignee_slug(meant) if meant else None
        if slug is not None:
            self.assignee_names.setdefault(slug, meant)
        self.people_read[name] = meant
        self._assignee[raw] = slug
        return slug

    def tags(self, raw: Any) -> list[str]:
        if raw is None:
            return []
        if isinstance(raw, str):
            if self.tag_separator is None:
                self.tag_separator = tag_separator(raw)
            return split_tags(raw)
        if isinstance(raw, list) and all(isinstance(item, str) for item in raw):
            return split_tags(" ".join(raw))
        raise CellValueError(
            f"tags should be words separated by commas, not {shorten(json.dumps(raw))}."
        )

    def created(self, raw: Any) -> str:
        if raw is None or (isinstance(raw, str) and not raw.strip()):
            return self.default_created
        if not isinstance(raw, str):
            raise CellValueError(f"this should be a date, not {shorten(json.dumps(raw))}.")
        return parse_date(raw)

    def defaults(self) -> dict[str, Any]:
        """Field values for a file that has no column for them."""
        return {
            "subject": "",
            "body": "",
            "requester": "",
            "status": "new",
            "priority": "normal",
            "assignee": None,
            "tags": [],
            "created": self.default_created,
        }


class TicketBuilder:
    """Validates rows into tickets, checking ids across the whole file."""

    def __init__(self, problems: RowProblems, reader: FieldReader) -> None:
        self.problems = problems
        self.reader = reader
        self.tickets: list[Ticket] = []
        self.first_seen: dict[str, str] = {}

    def add(
        self,
        where: str,
        row: int | None,
        values: Sequence[tuple[FieldName, str, Any]],
    ) -> str | None:
        """Build one ticket from (field, column name, raw value); return its id if it is good."""
        fields = self.reader.defaults()
        ok = True
        for name, column, raw in values:
            try:
                fields[name] = self.reader.readers[name](raw)
            except CellValueError as problem:
                self.problems.add(f"{where}, column “{shorten(column)}”", str(problem), row, column)
                ok = False
        ticket_id = fields.get("id", "")
        if not ticket_id:
            self.problems.add(where, "the ticket id is empty. Every ticket needs an id.", row)
            return None
        if ticket_id in self.first_seen:
            self.problems.add(
                where,
                f"the ticket id “{shorten(ticket_id)}” is used twice (also in "
                f"{self.first_seen[ticket_id].lower()}). Every ticket needs its own id.",
                row,
            )
            return None
        self.first_seen[ticket_id] = where
        if len(self.first_seen) % EVERY == 0:
            tickets_read(len(self.first_seen))  # and stop here if the person said Stop
        if ok and not self.problems.count:
            # Values are already normalised; validating again guards the model's invariants.
            self.tickets.append(Ticket.model_validate(fields))
        return ticket_id if ok else None

    def assignees(self) -> list[Assignee]:
        return [Assignee(id=slug, name=name) for slug, name in self.reader.assignee_names.items()]


def choose_fields(
    keys: Sequence[str], guessed: Sequence[FieldName | None], choices: ImportChoices | None
) -> list[FieldName | None]:
    """The guessed mapping, overridden by the chosen one; a chosen field is not guessed again."""
    if choices is None:
        return list(guessed)
    chosen: dict[int, FieldName | None] = {}
    for index, key in enumerate(keys):
        for candidate in (key, key.strip()):
            if candidate in choices.columns:
                chosen[index] = choices.columns[candidate]
                break
    taken = {name for name in chosen.values() if name is not None}
    return [
        chosen.get(index, None if guess in taken else guess) for index, guess in enumerate(guessed)
    ]
