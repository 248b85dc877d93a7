"""Sensitive actions on taught tools, decided in the native dialog and carried out by the
library. Everything runs on the Qt thread.

Whoever asks (an agent through the endpoint, a person's click in the page, a script in the
page), the flow is the same: the shell checks what it holds, refuses at once what cannot be
done (a name that is taken, a full library, a draft with problems) without opening a dialog,
composes the dialog's text from its own copy of the definition, and changes the library only
with the Grant the person's Approve produced.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from understudy_desktop.approval import wording
from understudy_desktop.approval.dialog import DialogText
from understudy_desktop.approval.gate import ConsentGate, Decision, Ticket
from understudy_desktop.catalogue import Catalogue
from understudy_desktop.consent.ledger import Grant
from understudy_desktop.consent.manifest import (
    DELETE_RECORDING,
    DISABLE_TOOL,
    ENABLE_TOOL,
    KEEP_RECORDING,
    PUBLISH_TOOL,
    RELAX_TOOL,
    REPAIR_TOOL,
    REVIEW_TOOL,
    REVOKE_TOOL,
    RUN_TOOL,
    SensitiveAction,
)
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.drafts import Draft, Drafts
from understudy_desktop.library.library import (
    Library,
    LibraryError,
    new_tool,
    publish_args,
    relax_args,
    repair_args,
    tool_args,
)
from understudy_desktop.library.model import Origin, definition_hash, shown_name
from understudy_desktop.rules import rules
from understudy_desktop.text import count_of

log = logging.getLogger(__name__)

Answer = Callable[[dict[str, Any]], None]
PERSON = "you, in the console"
AWAITING = (
    "A dialog is open in the Understudy window asking the person to approve. You cannot "
    "approve it yourself. Ask the user to answer it, then call again (poll: true checks)."
)


def error(code: ErrorCode, message: str, **extra: Any) -> dict[str, Any]:
    return {"isError": True, "code": code, "message": message, **extra}


def _library_error(err: LibraryError) -> dict[str, Any]:
    return error(err.code, err.message)


class ConsentService(QObject):
    # Done after its caller stopped waiting (approved after the hold): words for the window.
    done_later = Signal(str)

    def __init__(
        self,
        gate: ConsentGate,
        library: Library,
        drafts: Drafts,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.gate = gate
        self.library = library
        self.drafts = drafts

    @property
    def catalogue(self) -> Catalogue:
        return self.library.catalogue

    def _said_later(self, text: DialogText, payload: dict[str, Any]) -> None:
        if payload.get("isError"):
            words = f"It could not be done: {payload.get('message', '')}".strip()
        elif payload.get("status") == "published":
            words = f"Approved: {payload.get('name')} is in your tools, and agents can use it now."
        else:
            words = f"Approved and done: {text.headline}"
        self.done_later.emit(words)

    # --- publish and repair --------------------------------------------------------------
    def publish(
        self,
        draft_id: str,
        requester: str,
        hold_s: float | None,
        poll: bool,
        answer: Answer,
        trial: str = "",
    ) -> Ticket | None:
        """Put a draft to the person; `trial` says what it would change now (library/trial.py)
        for a person's own publish."""
        draft = self.drafts.get(draft_id)
        if draft is None:
            answer(error(ErrorCode.NOT_FOUND, "No draft has that id. Draft it again first."))
            return None
        if draft.problems:
            answer(
                error(
                    ErrorCode.BLOCKED,
                    "Fix these first, then draft again: " + " ".join(draft.problems),
                )
            )
            return None
        if draft.replaces is not None:
            return self._repair(draft, requester, hold_s, poll, answer)
        existing = self.library.get(draft.name)
        if existing is not None:
            if existing.digest == draft.digest and existing.callable:
                # Approved and published already: a retry is told so; nothing runs twice.
                answer({"status": "published", "name": draft.name})
            else:
                answer(
                    error(
                        ErrorCode.NAME_TAKEN,
                        "A tool with that name exists already. Choose another name; "
                        "nothing was changed.",
                    )
                )
            return None
        cap = rules().maxTaughtTools
        if self.library.active_count() >= cap:
            answer(
                error(
                    ErrorCode.CAP_REACHED,
                    f"{cap} tools are active already, the most agents can choose from well. "
                    "The person has to turn one off or revoke one first.",
                )
            )
            return None
        origin = Origin(by=draft.by, client=draft.client if draft.by == "agent" else "")
        tool = new_tool(draft.definition, origin)

        def carry_out(grant: Grant, reply: Answer) -> None:
            def done(err: LibraryError | None) -> None:
                if err is not None:
                    reply(_library_error(err))
                elif self.library.callable(tool.name) is None:
                    reply(error(ErrorCode.TOOL_ERROR, "The tool was saved but is not available."))
                else:
                    # The draft stays: a retry of the same publish is told "published".
                    reply({"status": "published", "name": tool.name, "tool": tool.listed()})

            self.library.publish(tool, grant, done)

        who = "An agent" if draft.by == "agent" else "You"
        text = DialogText(
            headline=f"{PUBLISH_TOOL.verb} “{tool.shown_name}”",
            details=f"{who} made this tool from a recording. Once you approve, agents can "
            "use it, and you can run it from your library.",
            requester=requester,
            sections=wording.tool_sections(tool.parsed, self.catalogue)
            + ((("If it ran now", trial),) if trial else ()),
        )
        return self._decide(PUBLISH_TOOL, publish_args(tool), text, hold_s, poll, answer, carry_out)

    def _repair(
        self, draft: Draft, requester: str, hold_s: float | None, poll: bool, answer: Answer
    ) -> Ticket | None:
        name = str(draft.replaces)
        old = self.library.get(name)
        if old is None:
            answer(error(ErrorCode.NOT_FOUND, "There is no tool with that name to repair."))
            return None
        new_digest = draft.digest

        def carry_out(grant: Grant, reply: Answer) -> None:
            def done(err: LibraryError | None) -> None:
                if err is not None:
                    reply(_library_error(err))
                else:
                    self.drafts.forget(draft.id)
                    reply({"status": "published", "name": name, "repaired": True})

            self.library.repair(name, draft.definition, grant, done)

        text = DialogText(
            headline=f"{REPAIR_TOOL.verb} “{self._shown(name)}”",
            details="You re-did one step. The rest of the tool stays as you approved it.",
            requester=requester,
            sections=wording.difference_sections(
                old.parsed, draft.definition, self.catalogue, always_description=True
            ),
        )
        args = repair_args(name, new_digest, old.digest)
        return self._decide(REPAIR_TOOL, args, text, hold_s, poll, answer, carry_out)

    # --- actions on a tool in the library ------------------------------------------------
    def revoke(
        self, name: str, requester: str, hold_s: float | None, poll: bool, answer: Answer
    ) -> Ticket | None:
        tool = self.library.get(name)
        if tool is None:
            answer(error(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return None

        def carry_out(grant: Grant, reply: Answer) -> None:
            self.library.revoke(
                name,
                grant,
                lambda err: reply(
                    _library_error(err) if err else {"status": "revoked", "name": name}
                ),
            )

        text = DialogText(
            headline=f"{REVOKE_TOOL.verb} “{self._shown(name)}”",
            details="Agents will no longer be able to use it, and it leaves your library. "
            "To have it again, you would teach it again or import it from a pack.",
            requester=requester,
        )
        return self._decide(REVOKE_TOOL, tool_args(tool), text, hold_s, poll, answer, carry_out)

    def _shown(self, name: str) -> str:
        """The tool as people know it (its title in words), for the dialog's headline."""
        tool = self.library.get(name)
        return tool.shown_name if tool is not None else shown_name(name)

    def enable(self, name: str, requester: str, answer: Answer) -> Ticket | None:
        tool = self.library.get(name)
        if tool is None or tool.status != "disabled":
            answer(error(ErrorCode.NOT_FOUND, "That tool is not turned off."))
            return None

        def carry_out(grant: Grant, reply: Answer) -> None:
            self.library.enable(
                name,
                grant,
                lambda err: reply(_library_error(err) if err else {"status": "enabled"}),
            )

        text = DialogText(
            headline=f"{ENABLE_TOOL.verb} “{self._shown(name)}”",
            details="Agents will be able to use it again.",
            requester=requester,
            sections=wording.tool_sections(tool.parsed, self.catalogue),
        )
        return self._decide(ENABLE_TOOL, tool_args(tool), text, None, False, answer, carry_out)

    def review(self, name: str, requester: str, answer: Answer) -> Ticket | None:
        """A tool held back (changed on disk, or the console changed under it): the person
        approves it as it is now."""
        tool = self.library.get(name)
        if tool is None or tool.status != "needs_review":
            answer(error(ErrorCode.NOT_FOUND, "That tool does not need a review."))
            return None
        digest = definition_hash(tool.definition)

        def carry_out(grant: Grant, reply: Answer) -> None:
            self.library.review(
                name,
                grant,
                lambda err: reply(_library_error(err) if err else {"status": "active"}),
            )

        text = DialogText(
            headline=f"{REVIEW_TOOL.verb} “{self._shown(name)}”",
            details=f"It was held back from agents: {tool.review_reason}. This is the tool as "
            "it is now.",
            requester=requester,
            sections=wording.tool_sections(tool.parsed, self.catalogue),
        )
        args = {"name": name, "definition": digest}
        return self._decide(REVIEW_TOOL, args, text, None, False, answer, carry_out)

    def relax(self, name: str, answer: Answer) -> Ticket | None:
        """Stop asking before each run: this weakens a safeguard, so the dialog asks first."""
        if self.library.get(name) is None:
            answer(error(ErrorCode.NOT_FOUND, "No taught tool has that name."))
            return None

        def carry_out(grant: Grant, reply: Answer) -> None:
            self.library.relax(
                name, grant, lambda err: reply(_library_error(err) if err else {"status": "ok"})
            )

        text = DialogText(
            headline=f"{RELAX_TOOL.verb} “{self._shown(name)}”",
            details="Agents will be able to run it without asking you each time.",
            requester=PERSON,
        )
        return self._decide(RELAX_TOOL, relax_args(name), text, None, False, answer, carry_out)

    def disable(self, name: str, answer: Answer) -> Ticket | None:
        """Turn a tool off, asked for from the console page: the person says so here."""
        tool = self.library.get(name)
        if tool is None or tool.status != "active":
            answer(error(ErrorCode.NOT_FOUND, "That tool is not active."))
            return None

        def carry_out(_grant: Grant, reply: Answer) -> None:
            self.library.disable(
                name, lambda err: reply(_library_error(err) if err else {"status": "disabled"})
            )

        text = DialogText(
            headline=f"{DISABLE_TOOL.verb} “{self._shown(name)}”",
            details="Agents will no longer see it until you turn it back on, and runs of it "
            "that are waiting will not happen. It stays in your library.",
            requester=PERSON,
            approve="Turn off",
            reject="Cancel",
        )
        return self._decide(DISABLE_TOOL, tool_args(tool), text, None, False, answer, carry_out)

    def keep_recording(
        self, recording: dict[str, Any], answer: Answer, steps_left_out: bool = False
    ) -> Ticket | None:
        """Teaching stopped: the person says whether to keep what the shell recorded."""
        lines = [
            f"{i + 1}. {wording.recorded_step_sentence(self.catalogue, step)}"
            for i, step in enumerate(recording.get("steps") or [])
        ]
        details = "This is what you did while teaching. Keep it to make a tool from it."
        if steps_left_out:
            details += " Only the first 200 steps were recorded."

        def carry_out(_grant: Grant, reply: Answer) -> None:
            self.library.save_recording(recording)
            reply({"status": "kept", "recording": recording})

        text = DialogText(
            headline=f"{KEEP_RECORDING.verb} “{recording.get('name', '')}”",
            details=details,
            requester=PERSON,
            sections=(("What you did", "\n".join(lines)),),
            approve="Keep it",
            reject="Discard",
            keep_by_default=True,
        )
        args = {"id": recording.get("id"), "steps": len(lines)}
        return self._decide(KEEP_RECORDING, args, text, None, False, answer, carry_out)

    def delete_recording(self, rec_id: str, answer: Answer) -> Ticket | None:
        recording = self.library.recording(rec_id)
        if recording is None:
            answer(error(ErrorCode.NOT_FOUND, "That recording is gone."))
            return None

        def carry_out(_grant: Grant, reply: Answer) -> None:
            self.library.delete_recording(rec_id)
            reply({"status": "deleted"})

        text = DialogText(
            headline=f"{DELETE_RECORDING.verb} “{recording.get('name', '')}”",
            details="Tools you made from it keep working. The recording cannot be brought back.",
            requester=PERSON,
            approve="Delete",
            reject="Keep it",
        )
        return self._decide(DELETE_RECORDING, {"id": rec_id}, text, None, False, answer, carry_out)

    def confirm_run(
        self,
        name: str,
        arguments: dict[str, Any],
        requester: str,
        hold_s: float | None,
        answer: Callable[[bool], None],
        known: dict[str, list[dict[str, str]]] | None = None,
    ) -> Ticket | None:
        """For a tool marked "ask me every time": one dialog per run, for these arguments."""
        tool = self.library.get(name)
        shown = wording.answers(
            tool.parsed if tool is not None else None, arguments, self.catalogue, known
        )
        text = DialogText(
            headline=f"{RUN_TOOL.verb} “{self._shown(name)}”",
            details="You asked to be asked before each run of this tool.",
            requester=requester,
            sections=(("With", shown or "Nothing chosen."),),
        )
        return self._decide(
            RUN_TOOL,
            {"name": name, "arguments": arguments},
            text,
            hold_s,
            False,
            lambda _payload: answer(False),
            lambda _grant, _reply: answer(True),
        )

    def confirm_selection_run(
        self,
        name: str,
        selection: wording.SelectionPreview,
        answer: Callable[[bool], None],
        known: dict[str, list[dict[str, str]]] | None = None,
    ) -> Ticket | None:
        """The person's run on the tickets they selected: how many it would change (tried
        and rolled back), and Run or Cancel. Enter runs: it is what they just chose, and Undo
        puts it back."""
        tool = self.library.get(name)
        shown = wording.answers(
            tool.parsed if tool is not None else None, selection.answers, self.catalogue, known
        )
        chosen, would = len(selection.tickets), selection.would_count
        sections = [("It would change", wording.ticket_list(selection.would_change, would))]
        if shown:
            sections.append(("With", shown))
        left = chosen - would
        if left:
            sections.append(("Left as they are", f"{count_of(left, 'ticket')}: nothing to change."))
        words = DialogText(
            headline=f"Run “{self._shown(name)}” on {count_of(chosen, 'selected ticket')}?",
            details=(
                f"It would change {count_of(would, 'ticket')}, all in one go. "
                "Edit › Undo (Ctrl+Z) puts them back."
            ),
            requester=PERSON,
            sections=tuple(sections),
            approve=f"Run on {count_of(would, 'ticket')}",
            reject="Cancel",
            approve_by_default=True,
        )
        return self._decide(
            RUN_TOOL,
            {"name": name, "tickets": list(selection.tickets), "arguments": selection.answers},
            words,
            None,
            False,
            lambda _payload: answer(False),
            lambda _grant, _reply: answer(True),
        )

    # --- the common decision ------------------------------------------------------------
    def _decide(
        self,
        action: SensitiveAction,
        args: dict[str, Any],
        text: DialogText,
        hold_s: float | None,
        poll: bool,
        answer: Answer,
        carry_out: Callable[[Grant, Answer], None],
    ) -> Ticket:
        answered = False
        decided_already = False  # granted and being carried out: carry_out will answer

        def reply(payload: dict[str, Any]) -> None:
            nonlocal answered
            if not answered:
                answered = True
                answer(payload)

        def decided(decision: Decision, grant: Grant | None) -> None:
            nonlocal decided_already
            if decided_already:
                return
            if answered:
                # The caller was told to call again; the person approved since: carry it
                # out now, and tell the person (the caller's next call finds it done).
                decided_already = True
                if decision is Decision.GRANTED and grant is not None:
                    carry_out(grant, lambda payload: self._said_later(text, payload))
                return
            decided_already = True
            if decision is Decision.GRANTED and grant is not None:
                carry_out(grant, reply)
            elif decision is Decision.DENIED:
                reply(error(ErrorCode.CONSENT_DENIED, "The person rejected this in the dialog."))
            else:
                reply(
                    error(
                        ErrorCode.CONSENT_USED, "This was approved once and has already been done."
                    )
                )

        ticket = self.gate.request(action, args, text, decided)
        if answered or decided_already:
            return ticket
        if poll:
            ticket.park()
            reply({"status": "awaiting_approval", "message": AWAITING})
            return ticket
        if hold_s is not None:

            def give_up() -> None:
                if not answered and not decided_already:
                    ticket.park()
                    reply({"status": "awaiting_approval", "message": AWAITING})

            QTimer.singleShot(int(hold_s * 1000), give_up)
        return ticket


__all__ = ["PERSON", "ConsentService", "error"]
