"""Column names and cell values as helpdesks write them, turned into our ticket fields.

Every function here is deterministic, because the writer re-runs them on the original cells to
find out whether a value changed: an unchanged value is written back exactly as it was found.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta, timezone
from typing import Final, Literal

from understudy_desktop.queue_io.errors import shorten

FieldName = Literal[
    "id", "subject", "body", "requester", "status", "priority", "assignee", "tags", "created"
]

# Also the header order of a CSV written without a source file to imitate.
FIELDS: Final[tuple[FieldName, ...]] = (
    "id",
    "subject",
    "body",
    "requester",
    "status",
    "priority",
    "assignee",
    "tags",
    "created",
)
STATUSES: Final[tuple[str, ...]] = ("new", "open", "pending", "solved", "closed")
PRIORITIES: Final[tuple[str, ...]] = ("low", "normal", "high", "urgent")

# What the preview dialog shows in its "Used as" column.
FIELD_LABELS: Final[dict[str, str]] = {
    "id": "Ticket id",
    "subject": "Subject",
    "body": "Description",
    "requester": "Requester",
    "status": "Status",
    "priority": "Priority",
    "assignee": "Assignee",
    "tags": "Tags",
    "created": "Created",
}

# Earlier aliases win when a file has several candidates (e.g. "Requester" and "Email").
FIELD_ALIASES: Final[dict[FieldName, tuple[str, ...]]] = {
    "id": ("id", "ticket id", "ticket_id", "ticket #", "ticket number", "#", "number", "key",
           "issue key", "issue id", "case number", "case id", "request id"),
    "subject": ("subject", "title", "summary", "topic"),
    # A plain-text column wins over its HTML twin (Freshdesk exports both).
    "body": ("description text", "description_text", "body text", "plain text", "description",
             "body", "message", "text", "details", "content", "comment"),
    # A person's name wins over their email address ("Hi Chloé," not "Hi chloe@…,").
    "requester": ("requester name", "requester", "customer name", "contact name", "name",
                  "requested by", "from", "customer", "reporter", "contact", "submitter",
                  "requester email", "email", "customer email"),
    "status": ("status", "state", "ticket status"),
    "priority": ("priority", "urgency", "severity"),
    "assignee": ("assignee", "assigned to", "owner", "agent", "assignee name", "assigned agent",
                 "responder name", "responder"),
    "tags": ("tags", "labels", "tag", "label", "keywords"),
    "created": ("created", "created at", "created_at", "date", "opened", "created on",
                "created date", "created time", "date created", "creation date", "submitted"),
}  # fmt: skip


def header_key(name: str) -> str:
    """Compare headers ignoring case, spaces and punctuation ("Ticket ID" == "ticket_id")."""
    key = re.sub(r"[\W_]+", "", name.casefold())
    # "#" alone is a real id header in some exports; punctuation-stripping would erase it.
    return key or name.strip()


_ALIAS_RANK: Final[dict[str, tuple[FieldName, int]]] = {
    header_key(alias): (field, rank)
    for field, aliases in FIELD_ALIASES.items()
    for rank, alias in enumerate(aliases)
}


def map_columns(names: Sequence[str]) -> list[FieldName | None]:
    """Say which of our fields each column feeds; at most one column per field."""
    best: dict[FieldName, tuple[int, int]] = {}
    for index, name in enumerate(names):
        hit = _ALIAS_RANK.get(header_key(name))
        if hit is None:
            continue
        field, rank = hit
        if field not in best or rank < best[field][0]:
            best[field] = (rank, index)
    mapping: list[FieldName | None] = [None] * len(names)
    for field, (_, index) in best.items():
        mapping[index] = field
    return mapping


class CellValueError(ValueError):
    """A single cell that cannot be used; the reader adds the row and column to the message."""


def _word_key(value: str) -> str:
    return " ".join(re.split(r"[\s_\-]+", value.casefold().strip())).strip()


_STATUS_WORDS: Final[dict[str, str]] = {
    "": "new",
    "new": "new", "unassigned": "new", "untriaged": "new", "to do": "new", "todo": "new",
    "open": "open", "opened": "open", "in progress": "open", "active": "open",
    "assigned": "open", "working": "open", "reopened": "open", "ongoing": "open",
    "pending": "pending", "waiting": "pending", "on hold": "pending", "hold": "pending",
    "waiting on customer": "pending", "waiting for customer": "pending",
    "awaiting reply": "pending", "awaiting customer": "pending", "paused": "pending",
    "solved": "solved", "resolved": "solved", "done": "solved", "fixed": "solved",
    "complete": "solved", "completed": "solved", "answered": "solved",
    "closed": "closed", "archived": "closed",
}  # fmt: skip

_PRIORITY_WORDS: Final[dict[str, str]] = {
    "": "normal",
    "low": "low", "lowest": "low", "minor": "low", "trivial": "low", "p4": "low", "p5": "low",
    "normal": "normal", "medium": "normal", "moderate": "normal", "standard": "normal",
    "p3": "normal",
    "high": "high", "major": "high", "important": "high", "p2": "high",
    "urgent": "urgent", "critical": "urgent", "highest": "urgent", "blocker": "urgent",
    "emergency": "urgent", "p1": "urgent", "p0": "urgent",
}  # fmt: skip


# Freshdesk (and helpdesks built the same way) export statuses and priorities as numbers.
NUMERIC_CODES: Final[dict[str, dict[str, str]]] = {
    "status": {"2": "open", "3": "pending", "4": "solved", "5": "closed"},
    "priority": {"1": "low", "2": "normal", "3": "high", "4": "urgent"},
}
# What a status or priority the rules do not know becomes until someone chooses its meaning.
UNKNOWN_VALUE_DEFAULTS: Final[dict[str, str]] = {"status": "open", "priority": "normal"}
# The values each of those fields can take, for the places that offer a choice.
FIELD_VALUES: Final[dict[str, tuple[str, ...]]] = {"status": STATUSES, "priority": PRIORITIES}


def numeric_code(field: str, raw: str) -> str | None:
    """Our value for a helpdesk number such as "2" or "02", or None if it is not a known code."""
    text = raw.strip()
    if not text.isascii() or not text.isdigit():
        return None
    return NUMERIC_CODES.get(field, {}).get(str(int(text)))


def value_key(raw: str) -> str:
    """Compare status and priority spellings ignoring case, spaces, "-" and "_"."""
    return _word_key(raw)


def normalise_status(raw: str) -> str:
    found = _STATUS_WORDS.get(_word_key(raw)) or numeric_code("status", raw)
    if found is None:
        raise CellValueError(
            f"the status “{shorten(raw)}” is not one we know. Use one of: {', '.join(STATUSES)}."
        )
    return found


def normalise_priority(raw: str) -> str:
    found = _PRIORITY_WORDS.get(_word_key(raw)) or numeric_code("priority", raw)
    if found is None:
        raise CellValueError(
            f"the priority “{shorten(raw)}” is not one we know. "
            f"Use one of: {', '.join(PRIORITIES)}."
        )
    return found


_TAG_SPLIT: Final = re.compile(r"[,;\s]+")


def split_tags(raw: str) -> list[str]:
    """Tags as the ticket model wants them: lowercase, no spaces, each once, order kept."""
    seen: dict[str, None] = {}
    for part in _TAG_SPLIT.split(raw):
        if part:
            seen.setdefault(part.lower(), None)
    return list(seen)


def tag_separator(raw: str) -> str | None:
    """The text a file put between two tags, so new tag lists can be joined the same way."""
    match = re.search(r"\S([,;\s]+)\S", raw.strip())
    return match.group(1) if match else None


def assignee_slug(name: str) -> str:
    """A stable id for an assignee known only by name; the same name always gives the same id."""
    slug = re.sub(r"[\W_]+", "-", name.strip().casefold()).strip("-")
    if slug:
        return slug
    # A name made only of punctuation still needs an id that survives a reload.
    return "assignee-" + hashlib.sha1(name.encode("utf-8")).hexdigest()[:8]


# ---- dates -------------------------------------------------------------------------------------

_MONTHS: Final[dict[str, int]] = {
    name: number
    for number, names in enumerate(
        (
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ),
        start=1,
    )
    for name in names
}

_TIME = (
    r"(?:[\sT,]+(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,](?P<f>\d{1,9}))?)?"
    r"\s*(?P<ampm>[ap]\.?m\.?)?)?"
    r"\s*(?P<tz>z|utc|gmt|[+-]\d{2}:?\d{2})?"
)
_NUMERIC_YMD: Final = re.compile(
    r"(?P<y>\d{4})[-/.](?P<m>\d{1,2})[-/.](?P<d>\d{1,2})" + _TIME, re.IGNORECASE
)
_NAMED_MONTH: Final = re.compile(
    r"(?:[a-z]+\.?,?\s+)?"  # weekday, as in e-mail dates: "Mon, 2 Nov 2026 09:14:00 +0000"
    r"(?:(?P<d1>\d{1,2})(?:st|nd|rd|th)?[\s/.-]+(?P<m1>[a-z]+)\.?,?[\s/.-]+(?P<y1>\d{4}|\d{2})"
    r"|(?P<m2>[a-z]+)\.?\s+(?P<d2>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y2>\d{4}))" + _TIME,
    re.IGNORECASE,
)
_DAY_MONTH_GUESS: Final = re.compile(r"\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}\b")


def format_utc(moment: datetime) -> str:
    """The one spelling of a date-time we store: ISO 8601 in UTC with a "Z"."""
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    # isoformat, not strftime: strftime is several times slower, which shows at 100k rows.
    text = moment.isoformat()
    if moment.microsecond:
        text = text.rstrip("0")
    return text + "Z"


def _zone(text: str | None) -> timezone:
    if not text or text.casefold() in ("z", "utc", "gmt"):
        return UTC
    sign = -1 if text[0] == "-" else 1
    digits = text[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def _from_parts(year: int, month: int, day: int, match: re.Match[str]) -> datetime:
    hour = int(match["h"] or 0)
    ampm = (match["ampm"] or "").replace(".", "").casefold()
    if ampm:
        if not 1 <= hour <= 12:
            raise ValueError("hour out of range for am/pm")
        hour = hour % 12 + (12 if ampm == "pm" else 0)
    micro = int((match["f"] or "0")[:6].ljust(6, "0"))
    return datetime(
        year,
        month,
        day,
        hour,
        int(match["mi"] or 0),
        int(match["s"] or 0),
        micro,
        tzinfo=_zone(match["tz"]),
    )


def parse_date(raw: str) -> str:
    """Read a date in any form that cannot be misread, and return it as ISO 8601 UTC.

    Dates without a time zone are taken as UTC: exports rarely say, and guessing the local zone
    would make the same file load differently on two colleagues' machines.
    """
    text = raw.strip()
    try:
        # Fast path: almost every export writes ISO 8601, and 100k rows must load quickly.
        return format_utc(datetime.fromisoformat(text))
    except ValueError:
        pass
    try:
        match = _NUMERIC_YMD.fullmatch(text)
        if match:
            return format_utc(_from_parts(int(match["y"]), int(match["m"]), int(match["d"]), match))
        match = _NAMED_MONTH.fullmatch(text)
        if match:
            month_name = (match["m1"] or match["m2"]).casefold()
            month = _MONTHS.get(month_name)
            if month is not None:
                year = int(match["y1"] or match["y2"])
                year += 2000 if year < 100 else 0
                day = int(match["d1"] or match["d2"])
                return format_utc(_from_parts(year, month, day, match))
    except ValueError:
        raise CellValueError(
            f"the date “{shorten(raw)}” does not exist (check the day, month and time)."
        ) from None
    if _DAY_MONTH_GUESS.match(text):
        raise CellValueError(
            f"the date “{shorten(raw)}” could be day/month or month/day, so we cannot be sure "
            "which date it is. Write dates as year-month-day, for example 2026-11-02 09:14."
        )
    raise CellValueError(
        f"“{shorten(raw)}” is not a date we can read. "
        "Write dates as year-month-day, for example 2026-11-02 09:14."
    )
