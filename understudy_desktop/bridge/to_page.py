"""What the shell sends the console page: every request, and every reply to the page's asks.

The page's side of these is web_assets/types/protocol.d.ts, generated from these models (and
those of protocol.py, what the page sends) by `python -m understudy_desktop.bridge.page_types`:
the page's handlers are checked against them by tsc, so the two sides cannot drift apart.

Two kinds of model:
- a request (`_Complete`) carries every one of its fields, always; the page may read any of them.
- a reply or a piece of stored data (`_AsGiven`) carries what its maker said and nothing more: a
  field left unset is left out of the message (the page tells "absent" from "null" in places:
  a fixed value's `ref`, a command's `teachSteps`), and some keep keys they do not name (a
  refusal's `failedStep`, a tool's result), since the services that make them answer agents
  too, with more than the page reads.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)
from pydantic_core import PydanticSerializationError

from understudy_desktop.bridge.protocol import (
    Op,
    Provenance,
    QueueLoaded,
    Summary,
)
from understudy_desktop.definition import Ref
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.model.commands import Actor

log = logging.getLogger(__name__)

WriteOp = Literal["set", "add_tag", "remove_tag"]
FieldValue = str | list[str] | None  # a ticket field's value: text, the tags, or nobody
Status = Literal["active", "disabled", "needs_review"]
MadeBy = Literal["person", "agent", "pack", "team"]

# A JSON Schema document (a tool's input schema) is passed through as the shell holds it; the
# page reads it as its JsonSchema type (web_assets/types/protocol.d.ts).
JsonSchemaDict = Annotated[dict[str, Any], Field(json_schema_extra={"ts": "JsonSchema"})]
# A definition's steps as approved (their shape is definition.py's Step, checked when the tool
# was approved and sealed with it): sent as they are, never parsed again on the way out.
ApprovedSteps = Annotated[list[dict[str, Any]], Field(json_schema_extra={"ts": "Step[]"})]


class _Complete(BaseModel):
    model_config = ConfigDict(
        extra="forbid", frozen=True, json_schema_serialization_defaults_required=True
    )


class _AsGiven(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_serializer(mode="wrap")
    def _only_what_was_said(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        return {k: v for k, v in data.items() if k in self.model_fields_set}


# --- the change feed ----------------------------------------------------------------------
class FeedStep(_Complete):
    """The last step of a run: the toast names it and its control is lit up."""

    index: int
    title: str
    control: str | None


# [op, field, value, ids]: `field` := `value` on `ids` ("set"), or the tag added or removed.
FeedWrite = tuple[WriteOp, str, FieldValue, list[str]]


class FeedEntry(_Complete):
    """What one commit changed, at revision `rev` of the queue `generation`."""

    rev: int
    generation: str
    by: Actor
    tool: str  # the taught tool that ran, or ""
    toolShown: str  # noqa: N815 (the page's name) that tool as people know it, in words
    writes: list[FeedWrite]
    step: FeedStep | None


class FeedRequest(_Complete):
    """Commits, in order, for the page to draw (no answer)."""

    op: Literal[Op.FEED] = Op.FEED
    entries: list[FeedEntry]


# --- teaching -------------------------------------------------------------------------------
class TeachingState(_Complete):
    active: bool
    steps: int
    repairTool: str | None  # noqa: N815 (the page's names)
    repairStep: int | None  # noqa: N815


class TeachingRequest(TeachingState):
    """Teaching started or stopped: the red edge and the step count (no answer)."""

    op: Literal[Op.TEACHING] = Op.TEACHING


class RecordedStep(_AsGiven):
    """A command the person gave while teaching, as the shell applied it."""

    model_config = ConfigDict(extra="allow")

    command: str
    payload: dict[str, Any]
    result: Any = None  # a compact echo of what the command returned
    control: str | None = None
    provenance: dict[str, Provenance] = Field(default_factory=dict)
    refs: dict[str, Ref] = Field(default_factory=dict)  # the people and templates, by name


class Recording(_AsGiven):
    """A routine the person did once, as the shell recorded and keeps it."""

    model_config = ConfigDict(extra="allow")

    id: str
    name: str
    createdAt: str  # noqa: N815
    steps: list[RecordedStep]
    revision: int = 0


def recording(raw: Mapping[str, Any]) -> Recording | None:
    """A stored recording as the page gets it, or None (logged) when it does not fit: an odd
    one left by an older version is skipped, not a reason to show no library at all."""
    try:
        return Recording.model_validate(raw)
    except ValidationError as exc:
        log.warning("a recording does not fit the protocol: %s", exc.errors()[:1])
        return None


# --- the library ----------------------------------------------------------------------------
class LastFailure(_AsGiven):
    """How the tool's last failed run failed."""

    model_config = ConfigDict(extra="allow")

    at: float | str | None = None  # seconds since 1970 (a run here), or ISO 8601 (0.1's)
    code: str | None = None
    message: str | None = None
    step: int | None = None  # 1-based: the step the library offers to repair


class Usage(_Complete):
    runs: int
    successes: int
    lastUsed: float | None  # noqa: N815
    lastFailure: LastFailure | None  # noqa: N815


class Origin(_Complete):
    by: MadeBy
    client: str
    pack: str
    author: str
    key: str
    sharedAs: str  # noqa: N815
    version: str
    created: str


class ToolView(_AsGiven):
    """One taught tool as the library shows it (`title` and `annotations` only when the
    approved definition has them)."""

    name: str
    title: str = ""
    description: str
    inputSchema: JsonSchemaDict  # noqa: N815
    annotations: dict[str, Any] = Field(default_factory=dict)
    shownAs: str  # noqa: N815 (what people see it called; the name is for agents)
    steps: ApprovedSteps
    status: Status
    callable: bool
    reviewReason: str  # noqa: N815
    note: str
    askEveryTime: bool  # noqa: N815
    origin: Origin
    createdAt: int  # noqa: N815 (milliseconds since 1970)
    approvedAt: int  # noqa: N815
    usage: Usage
    daysUnused: int  # noqa: N815
    freshness: float
    stale: bool


class LibraryRequest(_Complete):
    """The library to show and to mirror into the page's WebMCP registration (no answer)."""

    op: Literal[Op.LIBRARY] = Op.LIBRARY
    tools: list[ToolView]
    max: int
    active: int
    recordings: list[Recording]


# --- the queue, the footer, the menus ---------------------------------------------------------
class TicketStanding(_Complete):
    state: Literal["waiting", "refused", "conflict"]
    words: str  # the shell's words, drawn as they are


class HelpdeskRequest(_Complete):
    """Where the connected helpdesk's changes stand, per ticket (no answer)."""

    op: Literal[Op.HELPDESK] = Op.HELPDESK
    title: str
    inWords: str  # noqa: N815
    tickets: dict[str, TicketStanding]


class StorageOkRequest(_Complete):
    """Saving works again after "Not saved: …" (no answer)."""

    op: Literal[Op.STORAGE_OK] = Op.STORAGE_OK


class SavedRequest(_Complete):
    """A whole queue is in the database, or (with `error`) could not be saved (no answer)."""

    op: Literal[Op.SAVED] = Op.SAVED
    revision: int | None
    error: str
    generation: str | None


class ShowRequest(_Complete):
    """Open a part of the console (a menu was used; no answer)."""

    op: Literal[Op.SHOW] = Op.SHOW
    what: Literal["library", "recordings", "shortcuts"]


class SummaryRequest(_Complete):
    """For the status bar; answered with a Summary."""

    op: Literal[Op.SUMMARY] = Op.SUMMARY


class LoadQueueRequest(_Complete):
    """Show this queue (a one-time handoff URL) instead; answered with a QueueLoaded."""

    op: Literal[Op.LOAD_QUEUE] = Op.LOAD_QUEUE
    url: str
    generation: str | None
    revision: int | None  # null while the shell is still saving it
    notice: str  # one line for the person, or ""


class FlushRequest(_Complete):
    """Answered with true once every command sent so far is answered and the cache written."""

    op: Literal[Op.FLUSH] = Op.FLUSH


class CancelRequest(_Complete):
    """Abort the request `target` (its AbortSignal fires; no answer)."""

    op: Literal[Op.CANCEL] = Op.CANCEL
    target: str


# --- replies to the page's asks ---------------------------------------------------------------
class Refusal(_AsGiven):
    """Nothing was done, and why, in words for the person."""

    model_config = ConfigDict(extra="allow")

    isError: Literal[True]  # noqa: N815
    code: ErrorCode
    message: str


def refused(code: ErrorCode, message: str) -> Refusal:
    return Refusal(isError=True, code=code, message=message)


class CommandDone(_AsGiven):
    """A person's command, applied and committed (`rev` null when it changed nothing)."""

    ok: Literal[True]
    rev: int | None
    seq: int = 0  # the change to undo from its toast
    result: dict[str, Any] = Field(default_factory=dict)  # a set-based command's counts
    teachSteps: int = 0  # noqa: N815 (while teaching: the steps recorded so far)


class UndoDone(_AsGiven):
    """An undo or redo: what was put back, and how many fields were kept (changed since)."""

    ok: bool
    rev: int | None = None
    reverted: int = 0
    kept: int = 0
    nothing: bool = False  # there was nothing to undo (or redo)


class TeachStarted(TeachingState):
    ok: Literal[True] = True


class RepairStep(_Complete):
    tool: str
    step: int


class TeachStopped(_AsGiven):
    """What became of what was recorded: kept, not kept, nothing recorded, or a repair's step."""

    ok: Literal[True]
    recorded: int = 0
    kept: bool = False
    recording: Recording | None = None
    repair: RepairStep | None = None


class Renamed(_AsGiven):
    status: Literal["renamed"]
    name: str


class Outcome(_AsGiven):
    """What a publish, a library button, a recording's deletion or a call came to: the same
    answer an agent gets (a status, or a run's result), with what the page reads named."""

    model_config = ConfigDict(extra="allow")

    status: str = ""  # published, enabled, deleted, ok, awaiting_approval, …
    ok: bool = False  # a run: it ran
    changed: list[str] = Field(default_factory=list)  # a run: the tickets it changed
    repaired: bool = False
    message: str = ""
    seq: int | None = None  # the person's run on a selection: the change Undo puts back


class QueuePlan(_Complete):
    """The queue the console starts with: the database's copy, always."""

    use: Literal["url"]
    url: str
    generation: str
    revision: int
    notice: str  # why the page's cache was not used, or ""
    firstRun: bool  # noqa: N815


class NoQueue(_Complete):
    use: Literal["none"]
    message: str


class Resynced(_Complete):
    ok: Literal[True] = True


class Noted(_Complete):
    """The shell took note (the person is typing a reply, or stopped)."""

    noted: Literal[True] = True


ReplyValue = (
    Refusal
    | CommandDone
    | UndoDone
    | TeachStarted
    | TeachStopped
    | Renamed
    | Outcome
    | QueuePlan
    | NoQueue
    | Resynced
    | Noted
)

# What each ask (protocol.py, by its `kind`) may be answered with. Any ask may be refused: the
# page's own link answers every ask with a refusal when no shell runs it.
REPLIES: dict[str, tuple[type[BaseModel], ...]] = {
    "publish": (Outcome, Refusal),
    "library": (Outcome, Refusal),
    "call": (Outcome, Refusal),
    "queue": (QueuePlan, NoQueue, Refusal),
    "command": (CommandDone, Refusal),
    "undo": (UndoDone, Refusal),
    "redo": (UndoDone, Refusal),
    "teach": (TeachStarted, TeachStopped, Refusal),
    "recording": (Renamed, Outcome, Refusal),
    "resync": (Resynced, Refusal),
    "typing": (Noted, Refusal),
}

AnswerModel = type[CommandDone] | type[UndoDone] | type[TeachStopped] | type[Outcome]


def reply_of(value: Mapping[str, Any], model: AnswerModel) -> ReplyValue:
    """An answer one of the shell's services gave as a dict (they answer agents as well), in
    its model: a refusal when it says isError. One that fits neither is a bug in the shell;
    the page still hears an answer (a refusal), so it is not left waiting."""
    try:
        if value.get("isError"):
            return Refusal.model_validate(value)
        return model.model_validate(value)
    except ValidationError as exc:
        log.error("an answer for the page does not fit %s: %s", model.__name__, exc)
        return refused(ErrorCode.INTERNAL, "The app's answer was not understood.")


class ReplyRequest(_Complete):
    """The answer to the page's ask `to` (no answer)."""

    op: Literal[Op.REPLY] = Op.REPLY
    to: str
    value: ReplyValue


ShellRequest = (
    FeedRequest
    | LibraryRequest
    | TeachingRequest
    | HelpdeskRequest
    | StorageOkRequest
    | ReplyRequest
    | SummaryRequest
    | LoadQueueRequest
    | SavedRequest
    | FlushRequest
    | ShowRequest
    | CancelRequest
)
# Every request, in the order docs/protocol.md lists them.
REQUESTS: tuple[type[BaseModel], ...] = (
    FeedRequest,
    LibraryRequest,
    TeachingRequest,
    HelpdeskRequest,
    StorageOkRequest,
    ReplyRequest,
    SummaryRequest,
    LoadQueueRequest,
    SavedRequest,
    FlushRequest,
    ShowRequest,
    CancelRequest,
)


# What the page answers a request with (protocol.py's models parse it); a request not named
# here is answered with null, which the shell does not wait for.
ANSWERS: dict[Op, object] = {
    Op.SUMMARY: Summary,
    Op.LOAD_QUEUE: QueueLoaded,
    Op.FLUSH: Literal[True],
}


def op_of(request: type[BaseModel]) -> Op:
    default = request.model_fields["op"].default
    assert isinstance(default, Op)
    return default


def wire(message: BaseModel) -> dict[str, Any]:
    """A message as JSON-ready data (enums as their values, tuples as lists)."""
    data: dict[str, Any] = message.model_dump(mode="json")
    return data


def wire_text(message: BaseModel, call_id: str | None = None) -> str:
    """A message as the JSON text the page reads (wire()'s data), its call id first if given.

    pydantic writes the text in one pass: the feed of a run over 100,000 tickets took 5 ms
    against 20 ms through wire() and json.dumps, on the Qt thread, before the page could
    draw it. Text that UTF-8 cannot hold (a lone surrogate, which a JSON export may carry)
    goes the slow way, escaped."""
    try:
        body = message.model_dump_json()
    except PydanticSerializationError:
        body = json.dumps(wire(message))
    if call_id is None:
        return body
    rest = body[1:]
    return f'{{"id":{json.dumps(call_id)}{"," if rest != "}" else ""}{rest}'
