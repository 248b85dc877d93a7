"""A taught tool's run, applied by the shell: exactly its approved steps, in one transaction.

The same steps the page's runner takes (js/teach/runner.js), in Python, inside the database
writer's transaction, so a run is all or nothing on disk without undo records: a step that
fails, or a run that is stopped, rolls the transaction back. Nothing of the page is in the
call path; the page is told afterwards what changed (the change feed) and draws it.

- Every step must be a command of this console's catalogue, checked before anything runs.
- People and templates are found on this queue by id, else by the name the tool keeps.
- A run works in its own view: its filter and open ticket are never the person's.
- Failures are answers with isError and a stable code; no message repeats a value an agent
  gave.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import ConstArg, ParamArg, Step
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.js_text import js_lower, js_trim
from understudy_desktop.model import commands
from understudy_desktop.model.commands import CommandError, Context, People, Write
from understudy_desktop.model.compact import compact
from understudy_desktop.model.views import UNASSIGNED, View
from understudy_desktop.schema_check import argument_problems


class RunError(Exception):
    """Raised inside the transaction to roll a run back; `answer` is what its caller gets."""

    def __init__(self, answer: dict[str, Any]) -> None:
        super().__init__(str(answer.get("message", "")))
        self.answer = answer


@dataclass
class StepShown:
    """What the page shows of a step while a run's changes are drawn: the toast and the
    control it lights up."""

    index: int
    title: str
    control: str | None


@dataclass
class RunOutcome:
    answer: dict[str, Any]
    writes: list[Write] = field(default_factory=list)
    last_step: StepShown | None = None

    @property
    def ok(self) -> bool:
        return self.answer.get("ok") is True


def fail(code: ErrorCode, message: str, **extra: Any) -> dict[str, Any]:
    return {"isError": True, "code": code, "message": message, **extra}


@dataclass
class RunRequest:
    """Exactly what is to run: the approved definition's name, input schema and steps (parsed
    with the one Definition model, so the run reads typed sources, never a raw dict)."""

    tool: str
    steps: list[Step]
    input_schema: dict[str, Any]
    arguments: dict[str, Any]
    # A run on the person's selection: the steps once per (what it runs on, answers), all in
    # one transaction; `arguments` is then unused. Empty: once, with `arguments`.
    each: tuple[tuple[str, dict[str, Any]], ...] = ()


class _MissingRefError(Exception):
    def __init__(self, message: str, step: int, asked: bool = False) -> None:
        super().__init__(message)
        self.step = step
        self.asked = asked  # the value came from whoever called, not from the tool


# Failures of a step that name a value the caller gave (a ticket, a person), not the tool.
_CALLERS_VALUE = frozenset({ErrorCode.NOT_FOUND, ErrorCode.INVALID_PAYLOAD})


def _resolve_ref(
    people: People, kind: str, value: Any, name: str | None, asked: bool, step: int
) -> Any:
    if value is None or value in ("", UNASSIGNED):
        return value
    found = people.assignees if kind == "person" else people.templates
    if any(x.get("id") == value for x in found):
        return value
    wanted = js_lower(js_trim(str(name if name is not None else value)))
    for x in found:
        named = str(x.get("name") or "").lower()
        email = str(x.get("email") or "").lower()
        if wanted in (named, email):
            return x.get("id")
    if asked:
        # The value came from whoever called: it is not repeated back to them.
        what = "The person you chose is" if kind == "person" else "The reply template you chose is"
        raise _MissingRefError(f"{what} not on this queue. Choose one that is.", step, True)
    # Nor is a value the tool keeps: it may come from a colleague's pack or an agent's draft,
    # and an error is read by the next model. The step number says where; the library shows
    # that step, with its person or template, to whoever repairs it.
    if kind == "person":
        text = (
            f"The person step {step + 1} assigns to is not on this queue. Choose someone who"
            " is, or repair the tool."
        )
    else:
        text = (
            f"The reply template step {step + 1} uses is not on this queue. Choose one that"
            " is, or repair the tool."
        )
    raise _MissingRefError(text, step)


def _resolve_refs(
    catalogue: Catalogue, people: People, steps: list[Step], values: dict[str, Any]
) -> tuple[list[Step], dict[str, Any]]:
    """The tool's people and templates found on this queue before anything runs: by id, else
    by name (a tool made on another queue names Priya Raman where this one has priya-raman)."""
    resolved: list[Step] = []
    asked = dict(values)
    for index, step in enumerate(steps):
        info = catalogue.commands.get(step.command)
        args = dict(step.args)
        for name, spec in step.args.items():
            kind = info.refs.get(name) if info is not None else None
            if not kind:
                continue
            if isinstance(spec, ConstArg):
                named = spec.ref.name if spec.ref is not None else None
                found = _resolve_ref(people, kind, spec.value, named, False, index)
                args[name] = spec.model_copy(update={"value": found})
            elif isinstance(spec, ParamArg) and asked.get(spec.name) is not None:
                asked[spec.name] = _resolve_ref(people, kind, asked[spec.name], None, True, index)
        resolved.append(step.model_copy(update={"args": args}))
    return resolved, asked


def _arguments(step: Step, values: dict[str, Any], results: list[Any]) -> dict[str, Any]:
    payload: dict[str, Any] = {}
    for name, spec in step.args.items():
        if isinstance(spec, ParamArg):
            # A question left unanswered (optional, no default) leaves its field out.
            if spec.name in values:
                payload[name] = copy.deepcopy(values[spec.name])
        elif isinstance(spec, ConstArg):
            payload[name] = copy.deepcopy(spec.value)
        else:
            at = spec.step
            earlier = results[at] if 0 <= at < len(results) else None
            if not isinstance(earlier, dict) or spec.path not in earlier:
                raise ValueError(f"step {at + 1} gave no {spec.path}")
            payload[name] = copy.deepcopy(earlier[spec.path])
    return payload


def _with_defaults(schema: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    out = dict(given)
    for name, prop in (schema.get("properties") or {}).items():
        if name not in out and isinstance(prop, dict) and "default" in prop:
            out[name] = copy.deepcopy(prop["default"])
    return out


def _checked(catalogue: Catalogue, request: RunRequest) -> None:
    """Every step a command of this console, and the arguments fitting the tool."""
    steps = request.steps
    unknown = next((i for i, s in enumerate(steps) if s.command not in catalogue.commands), None)
    if unknown is not None:
        raise RunError(
            fail(
                ErrorCode.NOT_APPROVED,
                f"Step {unknown + 1} is not a command of this console. Nothing was changed.",
                failedStep=unknown + 1,
            )
        )
    problems = argument_problems(request.input_schema, request.arguments)
    if problems:
        raise RunError(
            fail(
                ErrorCode.INVALID_INPUT,
                "The arguments do not fit the tool: " + "; ".join(problems) + ".",
            )
        )


def _failed(
    index: int, title: str, command: str, why: str, writes: list[Write], **extra: Any
) -> RunError:
    return RunError(
        fail(
            ErrorCode.STEP_FAILED,
            f"Step {index + 1} ({title}) {why}",
            failedStep=index + 1,
            command=command,
            **extra,
            rolledBack=bool(writes),
            kept=[],
        )
    )


def execute(
    ctx_factory: Callable[[View], Context],
    catalogue: Catalogue,
    request: RunRequest,
    stopped: Callable[[], bool] = lambda: False,
) -> RunOutcome:
    """Run the steps inside the caller's transaction. Raises RunError (the caller rolls back)
    when a step fails or the run is stopped; returns the answer otherwise."""
    if request.each:
        return _execute_each(ctx_factory, catalogue, request, stopped)
    return _execute_once(ctx_factory, catalogue, request, stopped)


def _execute_each(
    ctx_factory: Callable[[View], Context],
    catalogue: Catalogue,
    request: RunRequest,
    stopped: Callable[[], bool],
) -> RunOutcome:
    """The steps once for each selected ticket, in the one transaction: all or nothing, so a
    ticket it fails on leaves every other one as it was (and says which it was)."""
    writes: list[Write] = []
    left: list[str] = []
    shown: StepShown | None = None
    last: Any = None
    for label, answers in request.each:
        once = RunRequest(request.tool, request.steps, request.input_schema, answers)
        try:
            outcome = _execute_once(ctx_factory, catalogue, once, stopped)
        except RunError as exc:
            message = str(exc.answer.get("message") or "It did not run.")
            whole = f" None of the {len(request.each)} tickets was changed."
            raise RunError({**exc.answer, "message": f"On {label}: {message}{whole}"}) from None
        writes.extend(outcome.writes)
        left.extend(str(t) for t in outcome.answer.get("reply_left_alone") or [])
        shown = outcome.last_step or shown
        last = outcome.answer.get("result")
    answer = _answer(request.tool, len(request.steps), writes, [last])
    answer["tickets"] = len(request.each)
    return RunOutcome(_with_reply_note(answer, left), writes, shown)


def _execute_once(
    ctx_factory: Callable[[View], Context],
    catalogue: Catalogue,
    request: RunRequest,
    stopped: Callable[[], bool],
) -> RunOutcome:
    _checked(catalogue, request)
    ctx = ctx_factory(View())  # the run's own view, never the person's
    steps, values = _resolved(catalogue, ctx, request)
    results: list[Any] = []
    writes: list[Write] = []
    shown: StepShown | None = None
    for index, step in enumerate(steps):
        command = step.command
        info = catalogue.commands[command]
        if stopped():
            raise _stopped(
                f"Stopped before step {index + 1} ({info.title}); the changes it had made "
                "were undone.",
                index + 1,
                writes,
            )
        try:
            payload = _arguments(step, values, results)
        except ValueError as exc:
            why = f"could not start: {exc}. Earlier changes were undone."
            raise _failed(index, info.title, command, why, writes) from None
        shown = StepShown(index, info.title, info.control)
        try:
            applied = commands.apply(catalogue, ctx, command, payload)
        except CommandError as exc:
            raise _command_failed(index, info.title, step, writes, exc) from None
        results.append(applied.result)
        writes.extend(applied.writes)
    # A step can take seconds on a big queue; a caller who gave up during the last one is
    # still told nothing was kept, and nothing is. This is the last look before COMMIT: a
    # cancel later than this finds the run saved (library/runner.py records that).
    if stopped():
        raise _stopped(
            "Stopped after its last step, before its changes were saved; they were undone.",
            len(steps),
            writes,
        )
    answer = _answer(request.tool, len(steps), writes, results)
    return RunOutcome(_with_reply_note(answer, ctx.left_alone), writes, shown)


def _stopped(message: str, at_step: int, writes: list[Write]) -> RunError:
    """The caller gave up: the run ends here, its transaction rolled back, nothing kept."""
    return RunError(
        fail(ErrorCode.CANCELLED, message, stoppedAt=at_step, rolledBack=bool(writes), kept=[])
    )


def _resolved(
    catalogue: Catalogue, ctx: Context, request: RunRequest
) -> tuple[list[Step], dict[str, Any]]:
    try:
        return _resolve_refs(
            catalogue,
            ctx.people,
            request.steps,
            _with_defaults(request.input_schema, request.arguments),
        )
    except _MissingRefError as missing:
        extra = {"badInput": True} if missing.asked else {}
        raise RunError(
            fail(
                ErrorCode.NOT_FOUND,
                f"{missing} Nothing was changed.",
                failedStep=missing.step + 1,
                **extra,
            )
        ) from None


def _command_failed(
    index: int, title: str, step: Step, writes: list[Write], exc: CommandError
) -> RunError:
    after = "The changes made before it were undone." if writes else "Nothing had changed yet."
    why = f"failed: {exc.message} {after}"
    # A value the caller gave that this queue does not have (a ticket id with a typo) is the
    # caller's to fix, not the tool's: it does not count against the tool.
    caller = exc.code in _CALLERS_VALUE and any(
        isinstance(spec, ParamArg) for spec in step.args.values()
    )
    extra = {"badInput": True} if caller else {}
    return _failed(index, title, step.command, why, writes, reason=exc.code, **extra)


def _with_reply_note(answer: dict[str, Any], left_alone: list[str]) -> dict[str, Any]:
    """The run left the reply the person is typing alone: the caller is told so, in words."""
    if not left_alone:
        return answer
    tickets = list(dict.fromkeys(left_alone))
    answer["reply_left_alone"] = tickets
    answer["note"] = (
        f"The reply on {', '.join(tickets)} was left as it is, because the person was typing "
        "it: your reply was not put in. The rest of the run was done."
    )
    return answer


# Ids beyond which the list of changed tickets surely overflows the output budget (each id
# takes at least three characters of JSON): the answer then names the first 20 and counts the
# rest, as the page's compact() would, without building a list of every id.
SURELY_TRIMMED = 1000
NAMED = 20


def _answer(tool: str, steps: int, writes: list[Write], results: list[Any]) -> dict[str, Any]:
    last = results[-1] if results else None
    if len(writes) == 1:
        ids: Any = writes[0].ids
        total = len(ids)
    else:
        ids = dict.fromkeys(t for w in writes for t in w.ids)
        total = len(ids)
    if total <= SURELY_TRIMMED:
        changed = list(ids)
        return dict(
            compact({"ok": True, "tool": tool, "steps": steps, "changed": changed, "result": last})
        )
    first: list[str] = []
    for ticket in ids:
        first.append(ticket)
        if len(first) == NAMED:
            break
    out = dict(
        compact({"ok": True, "tool": tool, "steps": steps, "changed": first, "result": last})
    )
    # The list was cut at NAMED before compact() saw it; what it cut further it counted.
    out["changed_more"] = int(out.get("changed_more", 0)) + total - NAMED
    return out
