"""Tool calls, decided in one place on the Qt thread: what is listed, what may run, and how.

The MCP endpoint (on its own thread) and the page's WebMCP mirror both come here. Built-in
tools are answered by the shell; a taught tool runs only if the library says it is callable,
with arguments that fit its approved schema, after the person's approval when it asks every
time, and then as exactly its approved steps (library/runner.py).

Answers are dicts: a tool's result, or {"isError": true, "code", "message"} with a stable
code. Messages never repeat an argument's value.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from understudy_desktop.agent import builtins
from understudy_desktop.approval import wording
from understudy_desktop.approval.gate import Ticket
from understudy_desktop.approval.service import Answer, ConsentService, error
from understudy_desktop.bridge import to_page
from understudy_desktop.consent.manifest import (
    PUBLISH_TOOL,
    REVOKE_TOOL,
    SENSITIVE_META_TOOLS,
    SensitiveAction,
)
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.draft_compiler import build_draft
from understudy_desktop.library.drafts import Drafts, check_draft, draft_problems
from understudy_desktop.library.generalize import GeneralizeError
from understudy_desktop.library.library import Library
from understudy_desktop.library.may_run import may_run
from understudy_desktop.library.model import PUBLIC_FIELDS, TaughtTool
from understudy_desktop.library.refs import Known
from understudy_desktop.library.runner import RunJob, RunResult, ToolRunner, tool_state
from understudy_desktop.rules import rules
from understudy_desktop.schema_check import argument_problems

log = logging.getLogger(__name__)
# Characters an agent receives per call (rules.json; agent/results.py cuts to the same). Read
# here, not imported from results.py: that module brings in the MCP SDK's types, about 0.2 s
# of imports the window would otherwise wait for at start (the endpoint imports them later,
# on a thread of its own: app.start_agent_soon).
OUTPUT_BUDGET = rules().budgets.output
DEFAULT_RUN_TIMEOUT_S = 30.0
MAX_UNTOLD = 10  # notes kept for a caller that has not called again


_STEPS_LISTED = 12  # a recording's commands listed by name; a longer one says how many


def _length(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":")))


def _more(count: int, after: object) -> dict[str, Any]:
    return {"more": {"count": count, "callAgainWith": {"after": after}}}


def _recording_entries(recording: dict[str, Any]) -> list[dict[str, Any]]:
    """A recording as an agent reads it, then shorter: its steps counted, not named."""
    commands = [s.get("command") for s in recording.get("steps") or []]
    entry = {
        "id": recording.get("id"),
        "name": recording.get("name"),
        "created": recording.get("createdAt"),
        "steps": commands if len(commands) <= _STEPS_LISTED else len(commands),
    }
    return [entry, {**entry, "steps": len(commands)}]


class CallHandle:
    """Returned for every call: cancel() when the caller gave up (MCP cancellation)."""

    def __init__(self) -> None:
        self._cancel: Callable[[], None] | None = None
        self.cancelled = False

    def on_cancel(self, action: Callable[[], None]) -> None:
        self._cancel = action

    def cancel(self) -> None:
        self.cancelled = True
        if self._cancel is not None:
            self._cancel()


def _ticket_cancel(ticket: Ticket | None) -> Callable[[], None]:
    return ticket.withdraw if ticket is not None else (lambda: None)


class ToolCalls(QObject):
    def __init__(
        self,
        library: Library,
        drafts: Drafts,
        runner: ToolRunner,
        consent: ConsentService,
        parent: QObject | None = None,
        known: Callable[[], Known] = dict,
    ) -> None:
        super().__init__(parent)
        self.library = library
        self.drafts = drafts
        self.known = known  # the saved queue's people and templates (names for the dialog)
        self.runner = runner
        self.consent = consent
        self.run_timeout_s = DEFAULT_RUN_TIMEOUT_S
        self.approval_hold_s = float(rules().approvalHoldSeconds)
        # What a caller could not be told (it had cancelled), said with its next answer.
        self._untold: dict[str, list[str]] = {}
        runner.cancelled_late.connect(self._cancelled_late)

    # --- listing (any thread) -----------------------------------------------------------
    def listed(self) -> list[dict[str, Any]]:
        """What agents may see, sorted by name: the built-in tools and every callable taught
        tool, each as approved. Never anything the page reports."""
        tools = [dict(t) for t in builtins.listed_builtins()]
        tools += [t.listed() for t in self.library.callable_tools()]
        return sorted(tools, key=lambda t: str(t["name"]))

    def knows(self, name: str) -> bool:
        """A built-in tool, or a taught one in the library in any state (a turned-off or
        held-back tool is known: a call to it is told why it cannot run)."""
        return name in builtins.builtin_tools() or self.library.get(name) is not None

    # --- calls (Qt thread) ----------------------------------------------------------------
    def call(
        self, name: str, arguments: dict[str, Any], requester: str, answer: Answer
    ) -> CallHandle:
        handle = CallHandle()
        answer = self._telling_earlier(requester, answer)
        builtin = builtins.builtin_tools().get(name)
        if builtin is not None:
            problems = argument_problems(builtins.argument_schema(name), arguments)
            if problems:
                answer(
                    error(
                        ErrorCode.INVALID_INPUT, "The arguments do not fit: " + "; ".join(problems)
                    )
                )
                return handle
            self._builtin(name, arguments, requester, answer, handle)
            return handle
        self._taught(name, arguments, requester, answer, handle)
        return handle

    def _builtin(
        self,
        name: str,
        args: dict[str, Any],
        requester: str,
        answer: Answer,
        handle: CallHandle,
    ) -> None:
        who = requester or "an agent"
        # Which built-in tools are sensitive is the consent manifest's to say, not this code's.
        action = SENSITIVE_META_TOOLS.get(name)
        if action is PUBLISH_TOOL and "revoke" in args:
            # Publishing's other half: asking the person to revoke a taught tool.
            action, args = REVOKE_TOOL, {"name": args["revoke"], "poll": args.get("poll")}
        if action is not None:
            ticket = self._sensitive(action, args, who, answer)
            handle.on_cancel(_ticket_cancel(ticket))
        elif name == builtins.LIST_RECORDINGS:
            after = args.get("after")
            answer(self._recordings(str(after) if after is not None else None))
        elif name == builtins.DRAFT_TOOL:
            self._draft(args, requester, answer)
        elif name == builtins.RUN_TOOL:
            inner = args.get("arguments")
            self._taught(
                str(args["name"]),
                inner if isinstance(inner, dict) else {},
                requester,
                answer,
                handle,
            )
        else:
            # builtin_tools.json lists a tool this code has no answer for: a bug, not a refusal
            # (tests/test_refusals_said.py checks every listed built-in is handled here).
            raise LookupError(f"no handler for the built-in tool {name}")

    def _sensitive(
        self, action: SensitiveAction, args: dict[str, Any], who: str, answer: Answer
    ) -> Ticket | None:
        poll = bool(args.get("poll"))
        if action is PUBLISH_TOOL:
            return self.consent.publish(
                str(args["draft_id"]), who, self.approval_hold_s, poll, answer
            )
        if action is REVOKE_TOOL:
            return self.consent.revoke(str(args["name"]), who, self.approval_hold_s, poll, answer)
        # A sensitive action that is not a built-in tool (export is the person's, from the
        # menu) never gets here: the tool is not listed, so the call is to an unknown tool.
        raise LookupError(f"no agent tool carries out {action.name}")

    def _recordings(self, after: str | None) -> dict[str, Any]:
        """The recordings, oldest first, and the taught tools, as many as fit the output
        budget (a result cut short would not be JSON). When more are left, `more` says how
        many and what to call again with."""
        recordings = self.library.recordings()
        if after is not None:
            ids = [r.get("id") for r in recordings]
            if after not in ids:
                return error(
                    ErrorCode.NOT_FOUND,
                    "No recording has that id. Call understudy_list_recordings without it.",
                )
            recordings = recordings[ids.index(after) + 1 :]
        page: dict[str, Any] = {"recordings": []}
        if after is None:
            tools = [{"name": t.name, "status": t.status} for t in self.library.tools()]
            while tools and _length(tools) > OUTPUT_BUDGET // 2:
                tools.pop()
                page["toolsNotListed"] = len(self.library.tools()) - len(tools)
            page["tools"] = tools
        for index, recording in enumerate(recordings):
            left = len(recordings) - index - 1
            more = _more(left, recording.get("id")) if left else {}
            for entry in _recording_entries(recording):
                page["recordings"].append(entry)
                if _length({**page, **more}) <= OUTPUT_BUDGET:
                    break
                page["recordings"].pop()
            else:
                # Not even in its shortest form: the page ends before it.
                if page["recordings"]:
                    page.update(_more(left + 1, page["recordings"][-1]["id"]))
                return page
        return page

    def _draft(self, args: dict[str, Any], requester: str, answer: Answer) -> None:
        recording = self.library.recording(str(args["recording_id"]))
        if recording is None:
            answer(
                error(
                    ErrorCode.NOT_FOUND,
                    "No recording has that id. Call understudy_list_recordings.",
                )
            )
            return
        pair = None
        if args.get("pair_with"):
            pair = self.library.recording(str(args["pair_with"]))
            if pair is None:
                answer(error(ErrorCode.NOT_FOUND, "The recording to pair with does not exist."))
                return
        shown = _shown(recording)
        shown_pair = _shown(pair) if pair is not None else None
        if shown is None or (pair is not None and shown_pair is None):
            answer(error(ErrorCode.CANNOT_GENERALIZE, "The recording cannot be used."))
            return
        catalogue = self.library.catalogue
        try:
            # Compiled here, from the recordings the shell holds: the page is not asked, so a
            # page that navigates, hangs or lies cannot break or change an agent's draft.
            built = build_draft(shown, shown_pair, args, catalogue)
        except GeneralizeError as exc:
            answer(error(ErrorCode.CANNOT_GENERALIZE, str(exc)))
            return
        definition, problems = check_draft(
            built.definition, catalogue, recording, known=self.known()
        )
        if definition is None:
            answer(error(ErrorCode.TOOL_ERROR, " ".join(problems)))
            return
        problems = draft_problems(built.problems, problems)
        draft = self.drafts.add(
            definition, problems, "agent", requester, str(recording["id"]), built.warnings
        )
        answer(
            {
                "draft_id": draft.id,
                "tool": {k: v for k, v in definition.stored().items() if k in PUBLIC_FIELDS},
                "summary": wording.summary(definition, catalogue),
                "problems": problems,
                "warnings": built.warnings,
            }
        )

    # --- cancelled too late ----------------------------------------------------------------
    def _cancelled_late(self, job: RunJob) -> None:
        result = job.result.answer if job.result is not None else {}
        changed = len(result.get("changed") or []) + int(result.get("changed_more") or 0)
        what = f"{changed} ticket{'' if changed == 1 else 's'}" if changed else "the queue"
        note = (
            f"Your earlier call to {job.tool.name} was cancelled after its changes to {what} "
            "had been saved, so they were kept. Change them back with another call if they "
            "are not wanted."
        )
        notes = self._untold.setdefault(job.client, [])
        notes.append(note)
        del notes[:-MAX_UNTOLD]

    def _telling_earlier(self, requester: str, answer: Answer) -> Answer:
        def told(reply: dict[str, Any]) -> None:
            notes = self._untold.pop(requester, [])
            if not notes:
                answer(reply)
            elif reply.get("isError") is True:
                message = str(reply.get("message") or "")
                answer({**reply, "message": " ".join([message, *notes]), "earlier": notes})
            else:
                answer({**reply, "earlier": notes})

        return told

    # --- taught tools -------------------------------------------------------------------
    def _taught(
        self,
        name: str,
        arguments: dict[str, Any],
        requester: str,
        answer: Answer,
        handle: CallHandle,
    ) -> None:
        tool = self.library.get(name)
        if tool is None:
            answer(error(ErrorCode.NOT_FOUND, "There is no tool by that name. Call tools/list."))
            return
        state = tool_state(tool, self.library.paused_for(tool))
        refusal = may_run(name, state, tool.digest, None, time.monotonic())
        if refusal is not None:
            answer(refusal)
            return
        warning = self.library.team_warning if tool.origin.by == "team" else ""
        if warning:
            # The lead's rules are not confirmed lately, and the lead lets team tools run:
            # the agent is told so with each answer, as the person is in the window.
            told = answer

            def answer(reply: dict[str, Any]) -> None:
                told({**reply, "teamRules": warning})

        problems = argument_problems(tool.input_schema, arguments)
        if problems:
            answer(
                error(
                    ErrorCode.INVALID_INPUT,
                    "The arguments do not fit the tool's schema: " + "; ".join(problems),
                )
            )
            return
        if tool.ask_every_time:

            def decided(approved: bool) -> None:
                if handle.cancelled:
                    return
                if approved:
                    # The run is asked again whether it may run (the tool the person approved
                    # this run of may have been turned off, revoked or changed meanwhile).
                    self.run(tool, arguments, "agent", requester, answer, handle)
                else:
                    answer(
                        error(
                            ErrorCode.CONSENT_DENIED,
                            f"{name} asks the person before each run, and they did not approve "
                            "this one (or did not answer in time). You cannot approve it yourself.",
                        )
                    )

            ticket = self.consent.confirm_run(
                name,
                arguments,
                requester or "an agent",
                self.approval_hold_s,
                decided,
                self.known(),
            )
            handle.on_cancel(_ticket_cancel(ticket))
            return
        self.run(tool, arguments, "agent", requester, answer, handle)

    def run(
        self,
        tool: TaughtTool,
        arguments: dict[str, Any],
        by: str,
        requester: str,
        answer: Answer,
        handle: CallHandle | None = None,
        each: tuple[tuple[str, dict[str, Any]], ...] = (),
    ) -> RunJob:
        """Queue a run of the approved tool; `answer` gets its result. `each`: the person's
        run on their selection (the steps once per ticket, one transaction)."""

        def finished(result: RunResult) -> None:
            answer(result.answer)

        job = self.runner.submit(
            RunJob(
                tool=tool,
                arguments=arguments,
                by="person" if by == "person" else "agent",
                client=requester,
                timeout_s=self.run_timeout_s,
                done=finished,
                each=each,
            )
        )
        if handle is not None:
            handle.on_cancel(lambda: self.runner.cancel(job))
        return job


def _shown(recording: dict[str, Any]) -> dict[str, Any] | None:
    """A stored recording in the shape every recording is drafted from (people and templates
    by name, each value's provenance one the recorder gives), or None when an odd one left by
    an older version does not fit it."""
    shown = to_page.recording(recording)
    return shown.model_dump(mode="json") if shown is not None else None
