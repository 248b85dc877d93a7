"""Teach, in the shell: while the person teaches, every command the shell applies for them
becomes a step of the recording. The page cannot add, change or drop a step: it only sends the
person's commands, and a recording is kept only when the person says so in the shell's own
dialog (shell/teach_dialogs.py).

A step is the command and its payload as applied (intent, not clicks), a compact summary of
its result, where each value came from (typed, picked, or the context), and the names of the
people and templates its values are, so a tool made from it travels. A routine that changes
"every matching ticket" without searching first acted on the filter the person had set before
teaching; that filter becomes its first step, since a run starts with no filter at all.
"""

from __future__ import annotations

import copy
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.js_text import js_length, js_slice
from understudy_desktop.model.commands import People
from understudy_desktop.model.views import Filter
from understudy_desktop.rules import rules

MAX_STEPS = rules().limits.recordingSteps  # a recording keeps this many steps
PROVENANCE = frozenset({"typed", "picked", "context"})


def summarise(result: Any) -> Any:
    """The page's compact echo of a result in a step (js/bus.js summarise)."""
    text = json.dumps(result, separators=(",", ":"), ensure_ascii=False)
    if js_length(text) <= 300:
        return copy.deepcopy(result)
    return {"summary": js_slice(text, 280) + "…", "bytes": js_length(text)}


def _filter_step(flt: Filter) -> dict[str, Any]:
    payload = {k: v for k, v in flt.as_dict().items() if v != ""}
    return {
        "command": "filter_tickets",
        "payload": payload,
        "result": None,
        "control": "filter-bar",
        "provenance": {k: "context" for k in payload},
    }


@dataclass
class Session:
    started: datetime
    filter_at_start: Filter
    repair: tuple[str, int] | None
    steps: list[dict[str, Any]] = field(default_factory=list)
    full: bool = False  # more than MAX_STEPS were done; the rest was not recorded


class Teaching:
    def __init__(self, catalogue: Catalogue) -> None:
        self._catalogue = catalogue
        self._session: Session | None = None

    @property
    def active(self) -> bool:
        return self._session is not None

    @property
    def steps(self) -> int:
        return len(self._session.steps) if self._session is not None else 0

    @property
    def repair(self) -> tuple[str, int] | None:
        return self._session.repair if self._session is not None else None

    def start(self, person_filter: Filter, repair: tuple[str, int] | None = None) -> None:
        if self._session is None:
            self._session = Session(datetime.now(UTC), person_filter, repair)

    def record(
        self,
        command: str,
        payload: Any,
        result: Any,
        control: str | None,
        provenance: dict[str, str] | None,
        people: People,
    ) -> None:
        session = self._session
        info = self._catalogue.commands.get(command)
        if session is None or info is None or not isinstance(payload, dict):
            return
        if len(session.steps) >= MAX_STEPS:
            session.full = True
            return
        searched = any(s["command"] == "filter_tickets" for s in session.steps)
        if info.set_based and not searched:
            session.steps.insert(0, _filter_step(session.filter_at_start))
        refs: dict[str, dict[str, str]] = {}
        for name, value in payload.items():
            kind = info.refs.get(name)
            found = _name_of(people, kind, value) if kind else None
            if kind and found:
                refs[name] = {"kind": kind, "name": found}
        step: dict[str, Any] = {
            "command": command,
            "payload": copy.deepcopy(payload),
            "result": summarise(result),
            "control": control,
            "provenance": {
                k: v for k, v in (provenance or {}).items() if k in payload and v in PROVENANCE
            },
        }
        if refs:
            step["refs"] = refs
        if session.steps and _picked_again(session.steps[-1], step):
            # Arrow keys in a dropdown apply each value they pass on the way: the value the
            # person settles on is the one step (one step per value committed, not per key).
            session.steps[-1] = step
            return
        session.steps.append(step)

    def stop(self) -> tuple[dict[str, Any] | None, bool]:
        """The recording (None if nothing was done), and whether steps were left out."""
        session, self._session = self._session, None
        if session is None or not session.steps:
            return None, False
        local = session.started.astimezone()
        recording = {
            "id": f"rec-{int(session.started.timestamp() * 1000):x}-{secrets.token_hex(3)}",
            "name": f"Recording {local.day} {local:%b %Y}, {local:%H:%M}",
            "createdAt": session.started.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "steps": session.steps,
        }
        return recording, session.full


def _picked_again(last: dict[str, Any], step: dict[str, Any]) -> bool:
    """`step` picks another value in the same control for the same thing as `last` did."""
    picked = {k for k, v in step["provenance"].items() if v == "picked"}
    if not picked or step["control"] is None:
        return False
    if (last["command"], last["control"]) != (step["command"], step["control"]):
        return False
    before, after = last["payload"], step["payload"]
    if set(before) != set(after):
        return False
    return all(before[k] == after[k] for k in after if k not in picked)


def _name_of(people: People, kind: str, value: Any) -> str | None:
    found = people.assignees if kind == "person" else people.templates
    for item in found:
        if item.get("id") == value and item.get("name"):
            return str(item["name"])
    return None
