"""Run as a program (by tests/test_limits_from_rules.py) under UNDERSTUDY_WEB_ASSETS pointing at
a copy of web_assets whose rules.json has other numbers: measures what each limit does, from
the outside, and prints it as JSON. A module that copied a number from rules.json into its
code still acts on the old number here, and the test sees it."""

from __future__ import annotations

import json
import sys
from types import SimpleNamespace
from typing import Any


def lifetime_of_a_consent() -> float:
    """Seconds an approval stays usable: the last whole second it is still consumed."""
    from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval, consent_key

    now = [0.0]
    lasted = 0.0
    for second in range(1, 100_000):
        ledger = ConsentLedger(clock=lambda: now[0])
        now[0] = 0.0
        ledger.grant(DialogApproval(consent_key("publish", {"n": second})))
        now[0] = float(second)
        if ledger.consume("publish", {"n": second}) is None:
            return lasted
        lasted = float(second)
    return lasted


def output_budget() -> int:
    """The most characters an agent is handed: a long result cut by the default budget."""
    from understudy_desktop.agent.results import fit

    return len(fit("x" * 1_000_000))


def approval_hold() -> float:
    from understudy_desktop.agent.calls import ToolCalls

    runner = SimpleNamespace(cancelled_late=SimpleNamespace(connect=lambda _slot: None))
    calls: Any = ToolCalls(None, None, runner, None, None)  # type: ignore[arg-type]
    return float(calls.approval_hold_s)


def recorded_steps() -> int:
    """How many steps a recording keeps of far more done."""
    from understudy_desktop.catalogue import current_catalogue
    from understudy_desktop.model.commands import People
    from understudy_desktop.model.teaching import Teaching
    from understudy_desktop.model.views import Filter

    teaching = Teaching(current_catalogue())
    teaching.start(Filter())
    people = People([], [])
    for i in range(1_000):
        payload = {"ticket_id": f"T-{i}"}
        teaching.record("select_ticket", payload, {"ticket_id": f"T-{i}"}, None, None, people)
    return teaching.steps


def most_selected() -> int:
    """The most tickets a run on the person's selection takes."""
    from pydantic import ValidationError

    from understudy_desktop.bridge.protocol import LibraryAsk

    most = 0
    for count in range(0, 100_000):
        ask = {"kind": "library", "action": "run_selection", "tool": "t"}
        try:
            LibraryAsk.model_validate({**ask, "tickets": ["T-1"] * count})
        except ValidationError:
            return most
        most = count
    return most


def longest_person_name() -> int:
    from understudy_desktop.queue_io import choices
    from understudy_desktop.queue_io.errors import QueueFileError

    longest = 0
    for length in range(1, 100_000):
        try:
            choices._check_people({"Sam (temp)": "n" * length})
        except QueueFileError:
            return longest
        longest = length
    return longest


def ticket_body_kept() -> int:
    """Characters of a helpdesk ticket's text kept before the note saying the rest is cut."""
    from understudy_desktop.helpdesk.base import RemoteTicket

    body = "b" * 1_000_000
    ticket = RemoteTicket("1", "v", "", "s", body, "r", "", "open", "normal", None)
    return len(ticket.body) - len(ticket.body.lstrip("b"))


def author_name_kept() -> int:
    """Characters of a signer's name kept when a person trusts them (what an accept records)."""
    from understudy_desktop.team.documents import review_document

    return len(review_document("a" * 10_000, "t", "0" * 64, "0" * 64)["author"])


def cap_on_import(active: int) -> str:
    """Why importing one more tool beside `active` would not fit ('' when it fits)."""
    from understudy_desktop.packs.adding import over_cap

    plan = SimpleNamespace(definitions=[SimpleNamespace(name="t")], hold_back={})
    return over_cap(plan, active)  # type: ignore[arg-type]


def active_tools_allowed() -> tuple[int, int]:
    """How many tools publishing makes active before it refuses one, and how many are active
    once every tool is published turned off and then turned on in turn (the library's own
    database, its answers waited for on a Qt event loop as the app waits)."""
    import tempfile
    import time
    from pathlib import Path

    from PySide6.QtCore import QCoreApplication

    from understudy_desktop.catalogue import current_catalogue
    from understudy_desktop.consent.ledger import ConsentLedger, DialogApproval, Grant, consent_key
    from understudy_desktop.consent.manifest import ENABLE_TOOL, PUBLISH_TOOL
    from understudy_desktop.consent.seal import load_seal
    from understudy_desktop.definition import Definition
    from understudy_desktop.library.checks import complete
    from understudy_desktop.library.library import Library, new_tool, publish_args, tool_args
    from understudy_desktop.library.model import Origin
    from understudy_desktop.qt_thread import init_main_thread_dispatch
    from understudy_desktop.store.database import Database

    app = QCoreApplication.instance() or QCoreApplication([])
    init_main_thread_dispatch()

    def grant(action: Any, args: dict[str, Any]) -> Grant:
        ledger = ConsentLedger()
        ledger.grant(DialogApproval(consent_key(action.name, args)))
        made = ledger.consume(action.name, args)
        assert made is not None
        return made

    def settle(call: Any, *args: Any) -> Any:
        """call(*args, done), and its answer once the library gives it."""
        answers: list[Any] = []
        call(*args, answers.append)
        deadline = time.monotonic() + 60  # only reports a hang
        while not answers and time.monotonic() < deadline:
            app.processEvents()
            time.sleep(0.001)
        assert answers, "the library did not answer"
        return answers[0]

    def tool(name: str, status: str) -> Any:
        raw = {
            "name": name,
            "description": "Lists the templates.",
            "inputSchema": {"type": "object", "properties": {}},
            "steps": [{"command": "list_templates", "args": {}}],
        }
        approved = complete(Definition.of(raw), current_catalogue())
        return new_tool(approved, Origin(by="person"), status=status)

    def fill(library: Library, status: str) -> int:
        """Publish tools (turned on, or turned off then turned on) until one is refused."""
        for i in range(40):
            made = tool(f"tool_{i}", status)
            given = grant(PUBLISH_TOOL, publish_args(made))
            if settle(library.publish, made, given) is not None:
                break
            if status == "disabled":
                on = grant(ENABLE_TOOL, tool_args(made))
                if settle(library.enable, made.name, on) is not None:
                    break
        return library.active_count()

    counts = []
    for status in ("active", "disabled"):
        with tempfile.TemporaryDirectory() as tmp:
            db = Database(Path(tmp))
            library = Library(db, load_seal(Path(tmp) / "keys"))
            library.load()
            counts.append(fill(library, status))
            db.close()
    return counts[0], counts[1]


def main() -> int:
    from understudy_desktop.rules import rules

    cap = rules().maxTaughtTools
    measured = {
        "consentTtlSeconds": lifetime_of_a_consent(),
        "approvalHoldSeconds": approval_hold(),
        "output": output_budget(),
        "recordingSteps": recorded_steps(),
        "selectionTickets": most_selected(),
        "personName": longest_person_name(),
        "ticketBody": ticket_body_kept(),
        "authorName": author_name_kept(),
        "maxTaughtTools": (cap_on_import(cap - 1) == "", cap_on_import(cap) != ""),
        "activeTools": active_tools_allowed(),
    }
    json.dump(measured, sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())
