"""The protocol between the shell and the console page: every message, typed.

The page's main world is untrusted (any script in it can send anything), so everything it
sends is parsed here with pydantic and dropped when it does not fit. docs/protocol.md lists
every message, who may send it and what it may change; js/shell_api.js is the page's side.

Shell -> page: a request {id, op, ...} answered by {id, ok, value | error}; or a request
without an answer expected (op "library", "reply"). Page -> shell: pushes {event, ...}.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError


class Op(StrEnum):
    """What the shell may ask of the page."""

    RUN = "run"  # run these approved steps with these arguments
    DRAFT = "draft"  # compile a recording into a draft (pure; changes nothing)
    LIBRARY = "library"  # here is the library to show and mirror (no answer needed)
    REPLY = "reply"  # the answer to one of the page's asks
    SUMMARY = "summary"
    EXPORT_QUEUE = "exportQueue"
    LOAD_QUEUE = "loadQueue"
    FLUSH = "flush"
    SAVED = "saved"  # a run's changes are in the database (or could not be saved)
    SHOW = "show"  # open a part of the console: the library, the recordings, the shortcuts
    UNDO = "undo"  # the person's last change (Edit › Undo)
    REDO = "redo"
    TRIAL = "trial"  # run these steps on a copy of the queue: what would change (nothing does)
    CANCEL = "cancel"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# --- pushes: page -> shell --------------------------------------------------------------------
class Hello(_Strict):
    event: Literal["hello"]
    webmcp: Literal["native", "bridged", "degraded"] = "degraded"


class ConsoleReady(_Strict):
    event: Literal["console-ready"]


class PageTools(_Strict):
    """What the page registered with WebMCP (diagnostics only: never what agents see)."""

    event: Literal["tools"]
    tools: list[dict[str, Any]] = Field(default_factory=list, max_length=200)


class RecordedRef(_Strict):
    """The name of the person or template a recorded value was (kept so a tool travels)."""

    kind: Literal["person", "template"]
    name: str = Field(min_length=1, max_length=200)


class RecordedStep(_Strict):
    command: str = Field(max_length=64)
    payload: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    control: str | None = Field(default=None, max_length=64)
    provenance: dict[str, str] = Field(default_factory=dict)
    refs: dict[str, RecordedRef] = Field(default_factory=dict)


class Recording(_Strict):
    id: str = Field(pattern=r"^[A-Za-z0-9_.-]{1,80}$")
    name: str = Field(max_length=200)
    createdAt: str = Field(max_length=40)  # noqa: N815 (the page's key)
    revision: int = Field(default=0, ge=0)
    steps: list[RecordedStep] = Field(min_length=1, max_length=200)


class RecordingSaved(_Strict):
    event: Literal["recording-saved"]
    recording: Recording


class RecordingDeleted(_Strict):
    event: Literal["recording-deleted"]
    id: str = Field(max_length=80)


class ViewChanged(_Strict):
    """The person's filter and open ticket, remembered for the next start."""

    event: Literal["view"]
    view: dict[str, Any]


class PublishAsk(_Strict):
    """A person pressed Publish… (or finished a repair) in the console."""

    kind: Literal["publish"]
    definition: dict[str, Any]
    recordingId: str = Field(default="", max_length=80)  # noqa: N815
    replaces: str | None = Field(default=None, max_length=64)
    repairStep: int | None = Field(default=None, ge=0)  # noqa: N815
    repairRecording: Recording | None = None  # noqa: N815


LibraryAction = Literal["run", "disable", "enable", "revoke", "ask", "relax", "review"]


class LibraryAsk(_Strict):
    """A person pressed a button in the library."""

    kind: Literal["library"]
    action: LibraryAction
    tool: str = Field(max_length=64)
    input: dict[str, Any] = Field(default_factory=dict)


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


class CommitAsk(_Strict):
    """A person's change, applied on screen: keep it, then say it is saved."""

    kind: Literal["commit"]
    command: str = Field(max_length=64)
    changes: list[tuple[str, str, Any]] = Field(max_length=500_000)


AskBody = Annotated[
    PublishAsk | LibraryAsk | CallAsk | QueueAsk | CommitAsk, Field(discriminator="kind")
]


class Ask(_Strict):
    event: Literal["ask"]
    ask: str = Field(pattern=r"^[A-Za-z0-9_-]{1,40}$")
    body: AskBody


Push = Annotated[
    Hello | ConsoleReady | PageTools | RecordingSaved | RecordingDeleted | ViewChanged | Ask,
    Field(discriminator="event"),
]
_PUSH = TypeAdapter(Push)


def parse_push(raw: Any) -> Push | None:
    """A push from the page, or None when it does not fit the protocol."""
    try:
        return _PUSH.validate_python(raw)
    except ValidationError:
        return None


# --- answers: page -> shell, to a request ---------------------------------------------------
class RunAnswer(BaseModel):
    """What a run did. `ok` false carries a code and a plain message; changed names tickets."""

    model_config = ConfigDict(extra="allow")

    ok: bool = False
    isError: bool = False  # noqa: N815
    code: str = ""
    message: str = ""
    tool: str = ""
    changed: list[str] = Field(default_factory=list)
    failedStep: int | None = None  # noqa: N815
    result: Any = None
    # The run's net changes, [ticket, field, value]: for the shell to save, never for agents.
    changes: list[tuple[str, str, Any]] = Field(default_factory=list)

    @property
    def succeeded(self) -> bool:
        return self.ok and not self.isError

    def for_agent(self) -> dict[str, Any]:
        """The page's answer as an agent receives it (the shell's own fields dropped)."""
        return self.model_dump(exclude_none=True, exclude_defaults=True, exclude={"changes"})


class DraftAnswer(BaseModel):
    model_config = ConfigDict(extra="ignore")

    definition: dict[str, Any] | None = None
    problems: list[str] = Field(default_factory=list, max_length=50)
    warnings: list[str] = Field(default_factory=list, max_length=50)
    error: str = ""


class Summary(BaseModel):
    model_config = ConfigDict(extra="ignore")

    tickets: int = 0
    matches: int = 0
    selected: str | None = None
    webmcp: str = "degraded"
    queueName: str = ""  # noqa: N815


def parse_answer(model: type[BaseModel], raw: Any) -> Any:
    """An answer in its model, or None when the page sent something else."""
    try:
        return model.model_validate(raw)
    except ValidationError:
        return None
