"""What the console page may ask of the shell, and what the shell does about it.

The page can only ask. A publish or repair is checked and put to the person in the native
dialog; a library button that changes what agents are shown (enable, turn off, review, revoke)
or gives a tool more power (stop asking) opens the dialog too; only "ask me before each run"
acts at once. A Run is the same run an agent gets. Whatever a script in the page sends through
this path, the worst it can do is open a dialog the person rejects.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from understudy_desktop.agent.calls import ToolCalls
from understudy_desktop.approval.service import PERSON, ConsentService, error
from understudy_desktop.approval.wording import SelectionPreview
from understudy_desktop.bridge import to_page
from understudy_desktop.bridge.console_port import ConsolePort
from understudy_desktop.bridge.protocol import CallAsk, LibraryAsk, PublishAsk
from understudy_desktop.bridge.to_page import Outcome, reply_of
from understudy_desktop.definition import Approved, Definition, ParamArg
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.draft_compiler import UnknownChoiceError, build_draft
from understudy_desktop.library.drafts import check_draft, draft_problems, repaired_description
from understudy_desktop.library.generalize import GeneralizeError
from understudy_desktop.library.library import Library, LibraryError
from understudy_desktop.library.refs import Known
from understudy_desktop.library.repair_compiler import RepairError, repair_definition
from understudy_desktop.library.trial import example_input, trial_sentence
from understudy_desktop.model.runs import RunOutcome, RunRequest
from understudy_desktop.model.service import ConsoleModel
from understudy_desktop.schema_check import argument_problems
from understudy_desktop.text import count_of

log = logging.getLogger(__name__)
PAGE_CALLER = "a script in the console page"


class ConsoleAsks(QObject):
    def __init__(
        self,
        port: ConsolePort,
        library: Library,
        consent: ConsentService,
        calls: ToolCalls,
        model: ConsoleModel,
        repairs: Callable[[str], tuple[int, dict[str, Any]] | None],
        parent: QObject | None = None,
        known: Callable[[], Known] = dict,
    ) -> None:
        super().__init__(parent)
        self._known = known
        self._port = port
        self._library = library
        self._consent = consent
        self._calls = calls
        self._model = model
        self._repairs = repairs  # a repair's re-done step and the shell's recording of it
        port.asked.connect(self._on_ask)

    def _on_ask(self, ask_id: str, body: object) -> None:
        def reply(value: dict[str, Any]) -> None:
            # The consent service and the calls answer agents too, with dicts; the page gets
            # them as the protocol's Outcome (or Refusal).
            self._port.reply(ask_id, reply_of(value, Outcome))

        if isinstance(body, PublishAsk):
            self._publish(body, reply)
        elif isinstance(body, LibraryAsk):
            self._library_action(body, reply)
        elif isinstance(body, CallAsk):
            self._calls.call(body.name, body.arguments, PAGE_CALLER, reply)

    def _publish(self, ask: PublishAsk, reply: Any) -> None:
        catalogue = self._library.catalogue
        recording: dict[str, Any] | None = None
        if ask.replaces is not None:
            old = self._library.get(ask.replaces)
            redoing = self._repairs(ask.replaces)
            # The step is the one the shell's repair session re-did, whatever the page says.
            if old is None or redoing is None or ask.repairStep != redoing[0]:
                reply(error(ErrorCode.NOT_FOUND, "There is no such tool to repair."))
                return
            step, redone = redoing
            # The shell makes the repair from the tool as approved and its own recording of
            # the re-done step: nothing of the definition comes from the page.
            try:
                repaired = repair_definition(
                    old.definition, step, redone.get("steps") or [], catalogue
                )
            except RepairError as exc:
                reply(error(ErrorCode.BLOCKED, str(exc)))
                return
            definition, problems = check_draft(
                repaired,
                catalogue,
                redone,
                (old.parsed, step),  # parsed once, when the tool was loaded
                known=self._known(),
            )
            if definition is not None and old.parsed is not None and not problems:
                # What agents read names the re-done step's new values, not the old ones.
                definition = repaired_description(old.parsed, definition, step)
        else:
            recording = self._library.recording(ask.recordingId) if ask.recordingId else None
            definition, problems = self._compiled(ask, recording)
        if definition is None or problems:
            reply(error(ErrorCode.BLOCKED, " ".join(problems) or "The tool is not well formed."))
            return
        draft = self._consent.drafts.add(
            definition,
            [],
            "person",
            recording_id=ask.recordingId,
            replaces=ask.replaces,
        )
        answers = None if ask.replaces is not None else example_input(definition, recording)
        if answers is None:
            self._consent.publish(draft.id, PERSON, None, False, reply)
            return

        def tried(result: RunOutcome) -> None:
            # The dialog opens either way; the trial changed nothing (it was rolled back).
            answer = result.answer
            changed = [str(t) for t in answer.get("changed") or []]
            more = int(answer.get("changed_more") or 0)
            message = str(answer.get("message") or "")
            trial = trial_sentence(result.ok, changed, message, answers, more)
            self._consent.publish(draft.id, PERSON, None, False, reply, trial=trial)

        request = RunRequest(definition.name, definition.steps, definition.inputSchema, answers)
        self._model.run(request, lambda _conn: None, "person", PERSON, tried, trial=True)

    def _compiled(
        self, ask: PublishAsk, recording: dict[str, Any] | None
    ) -> tuple[Approved | None, list[str]]:
        """A new tool as the shell compiles it from its own recordings, with the person's
        words and choices, and every problem that blocks it."""
        pair = self._library.recording(ask.pairWith) if ask.pairWith else None
        shown = to_page.recording(recording) if recording is not None else None
        shown_pair = to_page.recording(pair) if pair is not None else None
        if shown is None or (ask.pairWith and shown_pair is None):
            return None, ["The tool was not made from a recording this app knows."]
        author = {
            **ask.words.model_dump(),
            "parameters": {name: c.model_dump() for name, c in ask.asks.items()},
        }
        catalogue = self._library.catalogue
        try:
            built = build_draft(
                shown.model_dump(mode="json"),
                shown_pair.model_dump(mode="json") if shown_pair is not None else None,
                author,
                catalogue,
            )
        except UnknownChoiceError:
            # The page drafted with other rules than the shell's (they are held equal).
            return None, ["The tool no longer fits its recording. Make it again from it."]
        except GeneralizeError as exc:
            return None, [str(exc)]
        definition, problems = check_draft(
            built.definition, catalogue, recording, known=self._known()
        )
        return definition, draft_problems(built.problems, problems)

    def _library_action(self, ask: LibraryAsk, reply: Any) -> None:
        name = ask.tool
        if self._library.get(name) is None:
            reply(error(ErrorCode.NOT_FOUND, "That tool is not in your library any more."))
            return

        def done(err: LibraryError | None) -> None:
            reply(error(err.code, err.message) if err else {"status": "ok"})

        if ask.action == "run":
            self._run(name, ask.input, reply)
        elif ask.action == "run_selection":
            self._run_selection(name, ask.tickets, ask.input, reply)
        elif ask.action == "disable":
            self._consent.disable(name, reply)
        elif ask.action == "ask":
            self._library.ask_every_time(name, done)
        elif ask.action == "enable":
            self._consent.enable(name, PERSON, reply)
        elif ask.action == "revoke":
            self._consent.revoke(name, PERSON, None, False, reply)
        elif ask.action == "relax":
            self._consent.relax(name, reply)
        elif ask.action == "review":
            self._consent.review(name, PERSON, reply)

    def _cannot_run(self, name: str) -> dict[str, Any]:
        """The refusal for a Run of a tool that is not callable now, by its shown name."""
        known = self._library.get(name)
        shown = known.shown_name if known is not None else "That tool"
        return error(
            ErrorCode.NOT_FOUND, f"{shown} cannot run now. Check its status in the library."
        )

    def _run(self, name: str, arguments: dict[str, Any], reply: Any) -> None:
        """A person's Run from the library: the same checks and the same run as an agent's."""
        tool = self._library.callable(name)
        if tool is None:
            reply(self._cannot_run(name))
            return
        problems = argument_problems(tool.input_schema, arguments)
        if problems:
            reply(error(ErrorCode.INVALID_INPUT, "Some answers do not fit: " + "; ".join(problems)))
            return
        if not tool.ask_every_time:
            self._calls.run(tool, arguments, "person", PERSON, reply)
            return

        # "Ask me every time" is asked in the native dialog whoever starts the run: a Run…
        # that came from the page may be a script's, not the person's click.
        def decided(approved: bool) -> None:
            if approved:
                self._calls.run(tool, arguments, "person", PERSON, reply)
            else:
                reply(
                    error(
                        ErrorCode.CONSENT_DENIED,
                        f"{tool.shown_name} did not run: it asks before each run, and this one "
                        "was not approved.",
                    )
                )

        self._consent.confirm_run(name, arguments, PERSON, None, decided, self._known())

    def _run_selection(
        self, name: str, tickets: list[str], arguments: dict[str, Any], reply: Any
    ) -> None:
        """The person's run on the tickets they selected: the tool once per ticket, in one
        transaction. Tried first (rolled back), then put to them in the native dialog with how
        many would change; whatever the page sent, nothing runs until they press Run there."""
        tool = self._library.callable(name)
        if tool is None or tool.parsed is None:
            reply(self._cannot_run(name))
            return
        chosen = tuple(dict.fromkeys(tickets))
        asks_ticket = ticket_questions(tool.parsed)
        if not chosen or not asks_ticket:
            why = (
                "Select the tickets to run it on first."
                if not chosen
                else f"{tool.shown_name} does not work on a ticket you choose, so it cannot run "
                "on a selection."
            )
            reply(error(ErrorCode.INVALID_INPUT, why))
            return
        given = {k: v for k, v in arguments.items() if k not in asks_ticket}
        each = tuple((t, {**given, **dict.fromkeys(asks_ticket, t)}) for t in chosen)
        problems = argument_problems(tool.input_schema, each[0][1])
        if problems:
            reply(error(ErrorCode.INVALID_INPUT, "Some answers do not fit: " + "; ".join(problems)))
            return
        request = RunRequest(tool.name, tool.parsed.steps, tool.input_schema, {}, each)

        def tried(result: RunOutcome) -> None:
            answer = result.answer
            if not result.ok:
                reply(answer)  # it says on which ticket, and that nothing changed
                return
            named = tuple(str(t) for t in answer.get("changed") or [])
            count = len(named) + int(answer.get("changed_more") or 0)
            if count == 0:
                reply(
                    {
                        "ok": True,
                        "changed": [],
                        "message": f"{tool.shown_name} would change none of the "
                        f"{count_of(len(chosen), 'selected ticket')}: they are already as it "
                        "leaves them.",
                    }
                )
                return
            preview = SelectionPreview(chosen, named, count, given)
            self._consent.confirm_selection_run(name, preview, decided, self._known())

        def decided(approved: bool) -> None:
            if approved:
                self._calls.run(tool, {}, "person", PERSON, reply, each=each)
            else:
                reply(error(ErrorCode.CONSENT_DENIED, f"{tool.shown_name} did not run."))

        self._model.run(request, lambda _conn: None, "person", PERSON, tried, trial=True)


def ticket_questions(definition: Definition) -> list[str]:
    """The tool's questions that name the ticket a step works on."""
    names = [
        spec.name
        for step in definition.steps
        for field, spec in step.args.items()
        if field == "ticket_id" and isinstance(spec, ParamArg)
    ]
    return list(dict.fromkeys(names))
