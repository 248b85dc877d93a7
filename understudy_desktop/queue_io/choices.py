"""What a person chose when opening a helpdesk export: which column is which, what values mean.

The choices are remembered per kind of file (see ``preview.source_signature``), so the second
export from the same helpdesk opens the way the person set up the first one. Nothing here knows
how files are read: the readers import these choices, never the other way round.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, cast

from understudy_desktop.queue_io.columns import FIELD_LABELS, FIELD_VALUES, FIELDS, FieldName
from understudy_desktop.queue_io.errors import QueueFileError, shorten
from understudy_desktop.rules import rules

CHOICES_VERSION: Final = 1
# The ticket fields whose values can be given a meaning, e.g. status "Escalated to L2" -> open.
VALUE_FIELDS: Final[tuple[str, ...]] = tuple(FIELD_VALUES)
# Under this key of `values`: who each assignee spelling is ("" for nobody).
PEOPLE: Final = "assignee"
MAX_PERSON: Final = rules().limits.personName


def _bad(detail: str) -> QueueFileError:
    return QueueFileError(
        f"The choices remembered for this kind of file cannot be used: {detail}. "
        "Choose the columns and values again when you open the file."
    )


def _check_columns(columns: Any) -> dict[str, FieldName | None]:
    if not isinstance(columns, Mapping):
        raise _bad("the columns are not listed by name")
    checked: dict[str, FieldName | None] = {}
    used_by: dict[str, str] = {}
    for name, chosen in columns.items():
        if not isinstance(name, str):
            raise _bad("a column has no name")
        if chosen is not None and chosen not in FIELDS:
            raise _bad(f"the column “{shorten(name)}” is used as a ticket field we do not know")
        if chosen is not None:
            if chosen in used_by:
                raise _bad(
                    f"the columns “{shorten(used_by[chosen])}” and “{shorten(name)}” are both "
                    f"used as {FIELD_LABELS[chosen]}"
                )
            used_by[chosen] = name
        checked[name] = cast(FieldName | None, chosen)
    return checked


def _check_values(values: Any) -> dict[str, dict[str, str]]:
    if not isinstance(values, Mapping):
        raise _bad("the values are not listed by field")
    checked: dict[str, dict[str, str]] = {}
    for field_name, meanings in values.items():
        if field_name == PEOPLE:
            checked[PEOPLE] = _check_people(meanings)
            continue
        if field_name not in FIELD_VALUES:
            raise _bad(f"values can only be chosen for status and priority, not “{field_name}”")
        if not isinstance(meanings, Mapping):
            raise _bad(f"the {field_name} values are not listed as pairs")
        allowed = FIELD_VALUES[field_name]
        for raw, ours in meanings.items():
            if not isinstance(raw, str) or not isinstance(ours, str):
                raise _bad(f"a {field_name} value should be text")
            if ours not in allowed:
                raise _bad(
                    f"the {field_name} “{shorten(raw)}” is set to “{shorten(ours)}”, which is not "
                    f"one of: {', '.join(allowed)}"
                )
        checked[field_name] = {raw.strip(): ours for raw, ours in meanings.items()}
    return checked


def _check_people(meanings: Any) -> dict[str, str]:
    """Assignee spellings -> the person they mean ("" : nobody), e.g. "Chen W." -> "Chen Wei"."""
    if not isinstance(meanings, Mapping):
        raise _bad("the assignees are not listed as pairs")
    checked: dict[str, str] = {}
    for raw, name in meanings.items():
        if not isinstance(raw, str) or not isinstance(name, str):
            raise _bad("an assignee should be a name")
        if len(name.strip()) > MAX_PERSON:
            raise _bad(f"the name chosen for “{shorten(raw)}” is longer than {MAX_PERSON} letters")
        checked[raw.strip()] = name.strip()
    return checked


@dataclass(frozen=True)
class ImportChoices:
    """Choices that override the guesses made when reading a helpdesk export.

    ``columns``: file column (its name, or "Name (2)" for a repeated header) -> the ticket field
    it feeds, or None for "not used" (kept and saved back as it is). Columns not listed keep the
    guess, unless the field it guessed was chosen for another column.

    ``values``: for "status" and "priority", the file's spelling -> our value, e.g.
    ``{"status": {"Escalated to L2": "pending"}}``; for "assignee", the file's spelling -> the
    person it means, "" for nobody (``{"assignee": {"No Agent": "", "Chen W.": "Chen Wei"}}``).
    Spellings not listed keep the guess.
    """

    columns: dict[str, FieldName | None] = field(default_factory=dict)
    values: dict[str, dict[str, str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        # Copied, so changing the caller's dicts later cannot change a frozen object.
        object.__setattr__(self, "columns", _check_columns(self.columns))
        object.__setattr__(self, "values", _check_values(self.values))

    def __hash__(self) -> int:
        return hash(json.dumps(self.to_json(), sort_keys=True))

    def value_for(self, field_name: str, raw: str) -> str | None:
        """The chosen meaning of one spelling, or None when it was not chosen."""
        return self.values.get(field_name, {}).get(raw.strip())

    def with_column(self, name: str, chosen: FieldName | None) -> ImportChoices:
        """A copy with ``name`` used as ``chosen``; a column that had that field becomes unused."""
        columns: dict[str, FieldName | None] = {
            other: (None if chosen is not None and current == chosen else current)
            for other, current in self.columns.items()
        }
        columns[name] = chosen
        return ImportChoices(columns=columns, values=self.values)

    def with_value(self, field_name: str, raw: str, ours: str) -> ImportChoices:
        """A copy in which the spelling ``raw`` of ``field_name`` means ``ours``."""
        values = {name: dict(meanings) for name, meanings in self.values.items()}
        values.setdefault(field_name, {})[raw.strip()] = ours
        return ImportChoices(columns=self.columns, values=values)

    def to_json(self) -> dict[str, Any]:
        """Plain JSON data (``json.dumps`` works); ``from_json`` reads it back."""
        return {
            "version": CHOICES_VERSION,
            "columns": dict(self.columns),
            "values": {name: dict(meanings) for name, meanings in self.values.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> ImportChoices:
        """Read what ``to_json`` wrote; raise QueueFileError if it is damaged or too new."""
        if not isinstance(data, Mapping):
            raise _bad("they are not a set of named values")
        version = data.get("version")
        if not isinstance(version, int) or isinstance(version, bool):
            raise _bad("they have no version number")
        if version > CHOICES_VERSION:
            raise _bad("they were saved by a newer version of Understudy")
        if version != CHOICES_VERSION:
            raise _bad("they are in a format this version of Understudy does not know")
        return cls(columns=data.get("columns", {}), values=data.get("values", {}))
