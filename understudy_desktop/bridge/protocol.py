"""The protocol between the shell and the console page: what the page sends, typed.

The page's main world is untrusted (any script in it can send anything), so everything it
sends is parsed here with pydantic and dropped when it does not fit. What the shell sends is
typed in to_page.py. docs/protocol.md lists every message, who may send it and what it may
change (tests/test_page_types.py holds it to these models); js/shell_api.js is the page's side,
typed by web_assets/types/protocol.d.ts, which page_types.py generates from both modules.

Shell -> page: a request {id, op, ...} answered by {id, ok, value | error}; or a request
without an answer expected (op "feed", "library", "reply"). Page -> shell: pushes {event, ...};
an ask is a push the shell answers with "reply". The page sends the person's commands and
draws what the shell applied: no answer from the page is ever taken as what happened.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from understudy_desktop.rules import rules

_LIMITS = rules().limits


class Op(StrEnum):
    """What the shell may ask of the page. None of it decides anything: the page draws what
    the shell applied."""

    FEED = "feed"  # what a commit changed, to draw (no answer needed)
    LIBRARY = "library"  # here is the library to show and mirror (no answer needed)
    REPLY = "reply"  # the answer to one of the page's asks
    SUMMARY = "summary"
    LOAD_QUEUE = "loadQueue"
    FLUSH = "flush"
    SAVED = "saved"  # an opened queue is in the database (or could not be saved)
    SHOW = "show"  # open a part of the console: the library, the recordings, the shortcuts
    TEACHING = "teaching"  # teaching started or stopped (a menu, or the person's dialog)
    CANCEL = "cancel"
    STORAGE_OK = "storageOk"  # saving works again after a failure (the footer says so)
    HELPDESK = "helpdesk"  # where the connected queue's changes stand, per ticket (no answer)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- pushes: page -> shell --------------------------------------------------------------------
class Hello(_Strict):
    event: Literal["hello"]
    webmcp: Literal["native", "bridged", "degraded"] = "degraded"


class ConsoleReady(_Strict):
    event: Literal["console-ready"]


REPORTED_TOOLS = 200  # js/webmcp/relay.js reports this many (the first), and how many in all


class PageTools(_Strict):
    """What the page registered with WebMCP (diagnostics only: never what agents see)."""

    event: Literal["tools"]
    tools: list[dict[str, Any]] = Field(default_factory=list, max_length=REPORTED_TOOLS)
    total: int = Field(default=0, ge=0)  # how many there are; only the first are reported


class ToolWords(_Strict):
    """What the person called a new tool and said it does, as typed in Make a tool."""

    name: str = Field(default="", max_length=_LIMITS.shownText)
    title: str = Field(default="", max_length=_LIMITS.shownText)
    description: str = Field(default="", max_length=_LIMITS.longText)


class AskChoice(_Strict):
    """For one value the recording could ask: whether whoever runs the tool chooses it, and
    how it is described to them."""

    bind: bool
    description: str = Field(default="", max_length=_LIMITS.shownText)


class PublishAsk(_Strict):
    """A person pressed Publish… (or finished a repair) in the console.

    A new tool is compiled by the shell from its own copy of the recording (and of the one it
    was paired with), with the person's words and choices; a repair, from the tool as
    approved and the shell's own recording of the re-done step (the teach session of the
    repair). What the page compiled is only what it showed: no definition comes with it."""

    kind: Literal["publish"]
    recordingId: str = Field(default="", max_length=80)  # noqa: N815
    pairWith: str = Field(default="", max_length=80)  # noqa: N815
    words: ToolWords = Field(default_factory=ToolWords)
    asks: dict[Annotated[str, Field(max_length=64)], AskChoice] = Field(
        default_factory=dict, max_length=_LIMITS.recordingSteps
    )
    replaces: str | None = Field(default=None, max_length=64)
    repairStep: int | None = Field(default=None, ge=0)  # noqa: N815


LibraryAction = Literal[
    "run", "run_selection", "disable", "enable", "revoke", "ask", "relax", "review"
]


class LibraryAsk(_Strict):
    """A person pressed a button in the library."""

    kind: Literal["library"]
    action: LibraryAction
    tool: str = Field(max_length=64)
    input: dict[str, Any] = Field(default_factory=dict)
    # run_selection: the tickets the person selected in the queue (the tool runs on each).
    tickets: list[Annotated[str, Field(max_length=64)]] = Field(
        default_factory=list, max_length=rules().limits.selectionTickets
    )


class CallAsk(_Strict):
    """Something in the page called one of the shell's tools through the page's WebMCP
    registration (an in-page agent, or a page script): it is decided like an agent's call."""

    kind: Literal["call"]
    name: str = Field(max_length=128)
    arguments: dict[str, Any] = Field(default_factory=dict)


class CacheState(_Strict):
    generation: str | None = Field(default=None, max_length=64)
    revision: int = 0
    dirty: bool = False
    tickets: int = 0


class QueueAsk(_Strict):
    """The console is starting: which queue should it show, its cache or the saved copy?"""

    kind: Literal["queue"]
    cache: CacheState | None = None


Provenance = Literal["typed", "picked", "context"]


class CommandAsk(_Strict):
    """A person's command (a click, a key, a typed value): the shell applies it, commits,
    and answers. The page may draw it at once; the answer is final."""

    kind: Literal["command"]
    command: str = Field(max_length=64)
    payload: dict[str, Any] = Field(default_factory=dict)
    control: str | None = Field(default=None, max_length=64)
    provenance: dict[str, Provenance] = Field(default_factory=dict, max_length=20)


class UndoAsk(_Strict):
    """Ctrl+Z, Ctrl+Shift+Z, or a toast's Undo (with the change's `seq`)."""

    kind: Literal["undo", "redo"]
    seq: int | None = None


class TeachAsk(_Strict):
    """The Teach button, or Repair step N: start, or stop (the shell asks the person, in its
    own dialog, whether to keep what was recorded)."""

    kind: Literal["teach"]
    action: Literal["start", "stop"]
    repairTool: str | None = Field(default=None, max_length=64)  # noqa: N815
    repairStep: int | None = Field(default=None, ge=0)  # noqa: N815


class RecordingAsk(_Strict):
    """Rename or delete a recording: the shell asks the person in its own dialog."""

    kind: Literal["recording"]
    action: Literal["rename", "delete"]
    id: str = Field(max_length=80)


class TypingAsk(_Strict):
    """The person is typing a reply on `ticket` (sent again every few seconds while they
    type), or stopped (`ticket` null): an agent's run leaves that reply alone meanwhile."""

    kind: Literal["typing"]
    ticket: str | None = Field(default=None, max_length=64)


class ResyncAsk(_Strict):
    """The page saw a revision missing from the change feed: send the saved copy."""

    kind: Literal["resync"]


AskBody = Annotated[
    PublishAsk
    | LibraryAsk
    | CallAsk
    | QueueAsk
    | CommandAsk
    | UndoAsk
    | TeachAsk
    | RecordingAsk
    | TypingAsk
    | ResyncAsk,
    Field(discriminator="kind"),
]


class Ask(_Strict):
    event: Literal["ask"]
    ask: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")
    body: AskBody


Push = Annotated[Hello | ConsoleReady | PageTools | Ask, Field(discriminator="event")]
_PUSH = TypeAdapter(Push)


def parse_push(raw: Any) -> Push | None:
    """A push from the page, or None when it does not fit the protocol."""
    try:
        return _PUSH.validate_python(raw)
    except ValidationError:
        return None


# --- answers: page -> shell, to a request ---------------------------------------------------
class Summary(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tickets: int = 0
    matches: int = 0
    selected: str | None = None
    webmcp: str = "degraded"
    queueName: str = ""  # noqa: N815
    catalogueVersion: int = 0  # noqa: N815


class LoadTimes(BaseModel):
    model_config = ConfigDict(extra="ignore")

    fetch: float = 0
    show: float = 0
    store: float = 0


class QueueLoaded(BaseModel):
    """The answer to loadQueue: how many tickets are shown, and how long each part took (ms).
    The shell only needs to hear that it is shown; the numbers are for the benchmarks."""

    model_config = ConfigDict(extra="ignore")

    tickets: int = 0
    ms: LoadTimes = Field(default_factory=LoadTimes)


def parse_answer(model: type[BaseModel], raw: Any) -> Any:
    """An answer in its model, or None when the page sent something else."""
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None
