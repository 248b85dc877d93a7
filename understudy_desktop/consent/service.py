"""Sensitive actions, decided in the native dialog and carried out by the page.

Both paths meet here: an agent's understudy_publish_tool (intercepted by the endpoint, the
page's own meta-tool never runs for it) and a person's Publish in the console (the page asks
through the bridge). Python composes what the dialog says from the definition, records the
approval hash on disk when the person approves, and only then tells the page to publish.
Everything here runs on the Qt thread.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, QTimer

from understudy_desktop.bridge.page_bridge import PageBridge
from understudy_desktop.consent.approvals import ApprovalStore, definition_hash
from understudy_desktop.consent.gate import ConsentGate, Decision
from understudy_desktop.consent.manifest import PUBLISH_TOOL, RELAX_TOOL, REVOKE_TOOL, RUN_TOOL
from understudy_desktop.web.console_link import CallResult, ConsoleLink

log = logging.getLogger(__name__)

Answer = Callable[[dict[str, Any]], None]
AWAITING = (
    "A dialog is open in the Understudy window asking the person to approve. You cannot "
    "approve it yourself. Ask the user to answer it, then call again (poll: true checks)."
)


def _error(code: str, message: str) -> dict[str, Any]:
    return {"isError": True, "code": code, "message": message}


def describe(definition: dict[str, Any]) -> str:
    """The dialog's sentence about a tool, composed from its definition (never by a model)."""
    params = list((definition.get("inputSchema") or {}).get("properties", {}).keys())
    read_only = bool((definition.get("annotations") or {}).get("readOnlyHint"))
    steps = definition.get("steps") or []
    with_params = f"with parameters {', '.join(params)}" if params else "with no parameters"
    effect = "which only reads tickets" if read_only else "which changes tickets"
    return (
        f"{with_params}, {effect}. It runs {len(steps)} recorded step(s): "
        + ", ".join(str(s.get("command")) for s in steps)
        + "."
    )


class ConsentService(QObject):
    def __init__(
        self,
        gate: ConsentGate,
        approvals: ApprovalStore,
        link: ConsoleLink,
        bridge: PageBridge,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self.gate = gate
        self.approvals = approvals
        self._link = link
        bridge.consent_requested.connect(self._on_page_request)

    # --- publish -----------------------------------------------------------------------
    def publish(
        self, draft_id: str, requester: str, hold_s: float | None, poll: bool, answer: Answer
    ) -> None:
        def got_draft(result: CallResult) -> None:
            draft = result.value if result.ok else None
            if not isinstance(draft, dict) or not isinstance(draft.get("definition"), dict):
                answer(_error("not_found", "No draft has that id. Draft it again first."))
                return
            if draft.get("problems"):
                answer(_error("blocked", "Fix these first: " + " ".join(draft["problems"])))
                return
            definition: dict[str, Any] = draft["definition"]
            digest = definition_hash(definition)
            name = str(definition.get("name"))
            if self.approvals.matches(name, digest) and not draft.get("replaces"):
                # Approved and published already: a retry is told so, and nothing runs twice.
                answer({"status": "published", "name": name})
                return
            args = {"name": name, "definition": digest}
            verb = "Repair tool" if draft.get("replaces") else PUBLISH_TOOL.verb
            self._decide(
                PUBLISH_TOOL,
                args,
                f'{verb} "{name}"',
                describe(definition),
                requester,
                hold_s,
                poll,
                answer,
                lambda: self._carry_out_publish(draft_id, name, digest, answer),
            )

        self._link.call("draftDefinition", [draft_id], got_draft)

    def _carry_out_publish(self, draft_id: str, name: str, digest: str, answer: Answer) -> None:
        self.approvals.record(name, digest)

        def published(result: CallResult) -> None:
            if not result.ok:
                answer(_error("tool_error", "The console could not publish the tool."))
            elif isinstance(result.value, dict):
                answer(result.value)
            else:
                answer(_error("already_decided", "That draft was already decided."))

        self._link.call("publishApproved", [draft_id, digest], published)

    # --- revoke ------------------------------------------------------------------------
    def revoke(
        self, name: str, requester: str, hold_s: float | None, poll: bool, answer: Answer
    ) -> None:
        def got_tools(result: CallResult) -> None:
            tools = result.value if result.ok and isinstance(result.value, dict) else {}
            if name not in tools:
                answer(_error("not_found", "No taught tool has that name."))
                return
            definition = tools[name]["definition"]
            args = {"name": name, "definition": definition_hash(definition)}

            def carry_out() -> None:
                self.approvals.forget(name)
                self._link.call(
                    "revokeTool",
                    [name],
                    lambda r: answer(
                        {"status": "revoked", "name": name}
                        if r.ok and r.value
                        else _error("not_found", "The tool was already gone.")
                    ),
                )

            self._decide(
                REVOKE_TOOL,
                args,
                f'{REVOKE_TOOL.verb} "{name}"',
                "Agents will no longer be able to use it, and it leaves your library.",
                requester,
                hold_s,
                poll,
                answer,
                carry_out,
            )

        self._link.call("toolDefinitions", [], got_tools)

    # --- the common decision ------------------------------------------------------------
    def _decide(
        self,
        action: Any,
        args: dict[str, Any],
        headline: str,
        details: str,
        requester: str,
        hold_s: float | None,
        poll: bool,
        answer: Answer,
        carry_out: Callable[[], None],
    ) -> None:
        answered = False

        def reply(payload: dict[str, Any]) -> None:
            nonlocal answered
            if not answered:
                answered = True
                answer(payload)

        def decided(decision: Decision) -> None:
            if decision is Decision.GRANTED:
                carry_out_once()
            elif decision is Decision.DENIED:
                reply(_error("consent_denied", "The person rejected this in the dialog."))
            else:
                reply(_error("consent_used", "This was approved once and has already been done."))

        def carry_out_once() -> None:
            nonlocal answered
            if answered:
                return
            answered = True  # from here on `carry_out` answers
            carry_out()

        stop = self.gate.request(action, args, headline, details, requester, decided)
        if answered:
            return
        if poll:
            stop()
            reply({"status": "awaiting_approval", "message": AWAITING})
            return
        if hold_s is not None:

            def give_up() -> None:
                if not answered:
                    stop()
                    reply({"status": "awaiting_approval", "message": AWAITING})

            QTimer.singleShot(int(hold_s * 1000), give_up)

    # --- requests from the console page (a person's clicks) ----------------------------
    def _on_page_request(self, request: dict[str, Any]) -> None:
        kind = request.get("kind")
        if kind == "publish":
            draft_id = str(request.get("id"))

            def done(result: dict[str, Any]) -> None:
                if result.get("code") == "consent_denied":
                    self._link.call("approvalDeclined", [draft_id], lambda _r: None)

            self.publish(draft_id, "you, in the console", None, False, done)
        elif kind == "review":
            self.review(str(request.get("tool")))
        elif kind == "ask":
            # Asking more often only adds safety: no dialog needed.
            self.set_ask_every_time(str(request.get("tool")), True)
        elif kind == "relax":
            self.relax(str(request.get("tool")))

    def set_ask_every_time(self, name: str, value: bool) -> None:
        if self.approvals.set_ask_every_time(name, value):
            self._link.call("setAskEveryTime", [name, value], lambda _r: None)

    def relax(self, name: str) -> None:
        """Stop asking before each run: this weakens a safeguard, so the dialog asks first."""
        if self.approvals.get(name) is None:
            return
        self._decide(
            RELAX_TOOL,
            {"name": name},
            f'{RELAX_TOOL.verb} "{name}"',
            "Agents will be able to run it without asking you each time.",
            "you, in the console",
            None,
            False,
            lambda _a: None,
            lambda: self.set_ask_every_time(name, False),
        )

    def confirm_run(
        self,
        name: str,
        arguments: dict[str, Any],
        requester: str,
        hold_s: float,
        answer: Callable[[bool], None],
    ) -> None:
        """For a tool marked "ask me every time": one dialog per run, for these arguments."""
        shown = ", ".join(f"{k} = {str(v)[:40]}" for k, v in sorted(arguments.items()))
        self._decide(
            RUN_TOOL,
            {"name": name, "arguments": arguments},
            f'{RUN_TOOL.verb} "{name}"',
            f"With: {shown or 'no arguments'}. You asked to be asked before each run.",
            requester,
            hold_s,
            False,
            lambda payload: answer(False),
            lambda: answer(True),
        )

    def review(self, name: str) -> None:
        """A tool held back because it changed: the person approves its current definition."""

        def got_tools(result: CallResult) -> None:
            tools = result.value if result.ok and isinstance(result.value, dict) else {}
            if name not in tools:
                return
            definition = tools[name]["definition"]
            digest = definition_hash(definition)

            def carry_out() -> None:
                self.approvals.record(name, digest)
                self._link.call("reapproved", [name, digest], lambda _r: None)

            self._decide(
                PUBLISH_TOOL,
                {"name": name, "definition": digest},
                f'Approve the changed tool "{name}" again',
                describe(definition),
                "you, in the console",
                None,
                False,
                lambda _a: None,
                carry_out,
            )

        self._link.call("toolDefinitions", [], got_tools)


__all__ = ["ConsentService", "describe"]
