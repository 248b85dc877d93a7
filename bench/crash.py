"""Kill the real app with SIGKILL at random moments; check that nothing acknowledged is lost.

Scenarios, each on its own data dir, the app started again on it after every kill:
  single   an agent runs a one-ticket tool over and over (an MCP client in the app's process)
  set      an agent runs a set-based tool over 1,000 matching tickets
  person   a person's edits in the console: priority, tags, reply drafts
  open     a large queue file opened, then another, over and over
  import   a 5-tool Tool Pack imported again and again, replacing the last one
The app process writes what was acknowledged (an agent's result, the shell's "saved" to the
page, an import or open reported done) to a log, fsync'd, before it goes on. After each kill
the harness opens the database itself and checks:
  - PRAGMA integrity_check is "ok";
  - every acknowledged change is there (a change sent after the last acknowledged one may be
    there too: it may have been committed just before the kill);
  - no run and no import is there in part, and no queue is there in part;
  - the queue is the person's queue (the one they opened, never the demo queue again).
At every start the app also compares what the page shows with the database.

Usage: .venv/bin/python bench/crash.py [kills per scenario] [scenario ...]
(bench/run-all runs 40 kills for each of the five: 200 kills.)
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SCENARIOS = ("single", "set", "person", "open", "import")
SINGLE_TICKETS = [f"T-{1001 + i}" for i in range(20)]
PRIORITIES = ["low", "normal", "high", "urgent"]


# --- the app side: runs inside the process that gets killed ---------------------------------
class AckLog:
    def __init__(self, path: Path) -> None:
        self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)

    def write(self, **entry: Any) -> None:
        os.write(self._fd, (json.dumps(entry) + "\n").encode())
        os.fsync(self._fd)


def tool_definitions() -> list[dict[str, Any]]:
    ticket = {"type": "string", "pattern": "^[A-Z]+-[0-9]+$", "description": "The ticket."}
    priority = {"enum": PRIORITIES, "description": "The priority."}
    return [
        {
            "name": "set_priority_of",
            "title": "",
            "description": "Set one ticket's priority.",
            "inputSchema": {
                "type": "object",
                "properties": {"ticket_id": ticket, "priority": priority},
                "required": ["priority", "ticket_id"],
                "additionalProperties": False,
            },
            "steps": [
                {
                    "command": "set_ticket_priority",
                    "args": {
                        "ticket_id": {"from": "param", "name": "ticket_id"},
                        "priority": {"from": "param", "name": "priority"},
                    },
                }
            ],
        },
        {
            "name": "prioritise_matches",
            "title": "",
            "description": "Set the priority of every ticket mentioning a phrase.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "phrase": {"type": "string", "maxLength": 200, "description": "Words."},
                    "priority": priority,
                },
                "required": ["phrase", "priority"],
                "additionalProperties": False,
            },
            "steps": [
                {
                    "command": "filter_tickets",
                    "args": {"text": {"from": "param", "name": "phrase"}},
                },
                {
                    "command": "set_matching_priority",
                    "args": {"priority": {"from": "param", "name": "priority"}},
                },
            ],
        },
    ]


def big_queue(n: int, status: str, prefix: str) -> dict[str, Any]:
    tickets = [
        {
            "id": f"{prefix}-{i}",
            "subject": "Bank feed stopped" if i % 10 else "Question about VAT",
            "body": "Please help.",
            "requester": "Kim <kim@example.com>",
            "created": "2026-11-20T10:00:00Z",
            "status": status,
            "priority": "normal",
            "assignee": None,
            "tags": [],
        }
        for i in range(n)
    ]
    return {"format": "understudy-queue", "version": 1, "tickets": tickets, "assignees": []}


def drive(scenario: str, data: Path, work: Path, log_path: Path) -> None:
    """The app, doing the scenario's work until it is killed."""
    sys.path.insert(0, str(BENCH))
    from harness import application, js, publish_definitions, start_console, wait

    log = AckLog(log_path)
    app = application()
    session = start_console(app, data, agent=True)
    window = session.window
    keeper = window.keeper
    if os.environ.get("UNDERSTUDY_CRASH_SABOTAGE"):
        # The harness's own check: acknowledge without saving, and it must report losses.
        session.model.forgetful = True
    log.write(event="started", page=page_check(app, js, window, keeper.store))

    def until(predicate: Callable[[], Any], timeout_s: float = 120) -> None:
        wait(app, predicate, timeout_s)

    if scenario in ("single", "set") and session.library.callable("set_priority_of") is None:
        publish_definitions(session, tool_definitions(), lambda p: until(p, 30))
    if scenario == "set" and keeper.store.state().tickets != SET_SIZE:
        open_file(window, work / "set-queue.json", until)
    log.write(event="ready")
    rng = random.Random(os.getpid())
    i = 0
    if scenario in ("single", "set"):
        agent_loop(app, session, scenario, rng, log)
    while scenario == "person":
        i += 1
        edit = person_edit(rng, rng.choice(SINGLE_TICKETS), i)
        log.write(event="sent", key=[edit["ticket"], edit["field"]], value=edit["value"])
        js(
            app,
            window.page,
            f"window.understudyShell.api.dispatch({json.dumps(edit['command'])},"
            f" {json.dumps(edit['payload'])}, 'ui'); true",
        )
        # The person's acknowledgement: the page has heard "saved" from the shell.
        until(lambda: js(app, window.page, "window.understudyShell.api.saveState().unsaved") == 0)
        log.write(event="acked", key=[edit["ticket"], edit["field"]], value=edit["value"])
    while scenario == "open":
        i += 1
        name = "open-a.json" if i % 2 else "open-b.json"
        log.write(event="sent", key="queue", value=name)
        open_file(window, work / name, until)
        log.write(event="acked", key="queue", value=name)
    while scenario == "import":
        i += 1
        k = i % 3
        log.write(event="sent", key="pack", value=k)
        imported: list[list[str]] = []
        packs = window.packs
        packs.imported.connect(imported.append)
        packs.import_pack(work / f"pack-{k}.understudy-pack.json", confirm=False, replace=True)
        until(lambda imported=imported: bool(imported), 60)
        packs.imported.disconnect()
        log.write(event="acked", key="pack", value=k)


def page_check(app: Any, js: Any, window: Any, store: Any) -> str:
    """Does the page show what the database holds? (the count, and the first tickets)"""
    summary = json.loads(
        js(app, window.page, "JSON.stringify(window.understudyShell.api.summary())")
    )
    stored = store.state()
    if stored is None or summary["tickets"] != stored.tickets:
        return f"mismatch: the page has {summary['tickets']} tickets"
    first = [r[0] for r in store._db.read("SELECT id FROM tickets ORDER BY position LIMIT 5")]
    for ticket_id, expected in store.rows(first).items():
        shown = json.loads(
            js(
                app,
                window.page,
                "JSON.stringify(window.understudyShell.api.dispatch('get_ticket',"
                f" {{ticket_id: {json.dumps(ticket_id)}}}, 'bench').result)",
            )
        )
        keys = ("status", "priority", "tags", "reply_draft", "assignee")
        if any(shown.get(k) != expected.get(k) for k in keys):
            return f"mismatch: {ticket_id}"
    return "ok"


def person_edit(rng: random.Random, ticket: str, i: int) -> dict[str, Any]:
    kind = rng.choice(["priority", "tags", "reply_draft"])
    value: Any
    if kind == "priority":
        value = rng.choice(PRIORITIES)
        command, payload = "set_ticket_priority", {"ticket_id": ticket, "priority": value}
    elif kind == "tags":
        value = sorted({f"t{rng.randrange(5)}", f"t{rng.randrange(5)}"})
        command, payload = "set_ticket_tags", {"ticket_id": ticket, "tags": value}
    else:
        value = f"Reply {i} to {ticket}"
        command, payload = "set_reply_draft", {"ticket_id": ticket, "text": value}
    return {"ticket": ticket, "field": kind, "value": value, "command": command, "payload": payload}


def agent_loop(app: Any, session: Any, scenario: str, rng: random.Random, log: AckLog) -> None:
    """An agent calling the app's endpoint, from a thread of the app's own process (so the
    kill takes it too): an answer received is an answer acknowledged."""
    import asyncio
    import threading

    from harness import wait

    server = session.agent

    async def calls() -> None:
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client

        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {server.token}"}) as http,
            Client(streamable_http_client(server.url, http_client=http), mode="legacy") as c,
        ):
            while True:
                priority = rng.choice(PRIORITIES)
                if scenario == "single":
                    ticket = rng.choice(SINGLE_TICKETS)
                    name, args = "set_priority_of", {"ticket_id": ticket, "priority": priority}
                else:
                    ticket = "matches"
                    name, args = "prioritise_matches", {"phrase": "bank feed", "priority": priority}
                log.write(event="sent", key=ticket, value=priority)
                result = await c.call_tool(name, args)
                if not result.is_error:
                    log.write(event="acked", key=ticket, value=priority)

    thread = threading.Thread(target=lambda: asyncio.run(calls()), daemon=True)
    thread.start()
    wait(app, lambda: False, 3600)  # until killed


def open_file(window: Any, path: Path, until: Callable[..., None]) -> None:
    loaded: list[int] = []
    window.queue_loaded.connect(loaded.append)
    window.open_queue(path, confirm=False)
    until(lambda: bool(loaded), 300)
    window.queue_loaded.disconnect()


# --- the harness side ----------------------------------------------------------------------
@dataclass
class Tally:
    kills: int = 0
    acked: int = 0  # acknowledgements checked (the log's, over every life)
    losses: int = 0
    partial: int = 0
    not_theirs: int = 0
    damaged: int = 0
    page_mismatches: int = 0
    notes: list[str] = field(default_factory=list)


def read_log(path: Path, start: int = 0) -> list[dict[str, Any]]:
    """The log's entries from byte `start` on (the whole log by default)."""
    if not path.exists():
        return []
    entries = []
    with path.open("rb") as f:
        f.seek(start)
        text = f.read().decode("utf-8", errors="replace")
    for line in text.splitlines():
        try:
            entries.append(json.loads(line))
        except ValueError:
            break  # the line being written at the kill
    return entries


def tickets_in(db: sqlite3.Connection) -> dict[str, dict[str, Any]]:
    rows = db.execute("SELECT id, subject, status, priority, tags, reply_draft FROM tickets")
    return {
        r[0]: {
            "subject": r[1],
            "status": r[2],
            "priority": r[3],
            "tags": json.loads(r[4]),
            "reply_draft": r[5],
        }
        for r in rows
    }


def may_hold(log: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """Per key, what the database may hold: the last acknowledged value, or a value sent after
    it (committed just before a kill, answer never heard). Keys never acknowledged are left
    out: anything sent may or may not have landed."""
    history: dict[str, list[dict[str, Any]]] = {}
    for e in log:
        if e.get("event") in ("sent", "acked"):
            history.setdefault(json.dumps(e["key"]), []).append(e)
    out: dict[str, list[Any]] = {}
    for key, items in history.items():
        acked = [i for i, e in enumerate(items) if e["event"] == "acked"]
        if acked:
            out[key] = [e["value"] for e in items[acked[-1] :]]
    return out


def verify(scenario: str, data: Path, log: list[dict[str, Any]], tally: Tally) -> None:
    kills = [i for i, e in enumerate(log) if e.get("event") == "killed"]
    for entry in log[kills[-1] + 1 if kills else 0 :]:  # this life: what the page showed
        if entry.get("event") == "started" and entry.get("page") != "ok":
            tally.page_mismatches += 1
            tally.notes.append(f"{scenario}: {entry.get('page')}")
    path = data / "understudy.sqlite3"
    if not path.exists():
        return
    db = sqlite3.connect(path)
    try:
        if db.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            tally.damaged += 1
            return
        allowed = may_hold(log)
        tickets = tickets_in(db)
        if scenario in ("single", "person"):
            if len(tickets) != 40 or "T-1001" not in tickets:
                tally.not_theirs += 1
            for key, values in allowed.items():
                ticket, fld = (
                    json.loads(key) if scenario == "person" else (json.loads(key), "priority")
                )
                if tickets[ticket][fld] not in values:
                    tally.losses += 1
                    tally.notes.append(f"{scenario}: {ticket}.{fld} is not what was saved")
        elif scenario == "set":
            matches = [t for t in tickets.values() if "bank feed" in t["subject"].lower()]
            seen = {t["priority"] for t in matches}
            if len(seen) > 1:
                tally.partial += 1
                tally.notes.append(f"set: a run is there in part ({sorted(seen)})")
            values = allowed.get(json.dumps("matches"))
            if values is not None and seen and next(iter(seen)) not in values:
                tally.losses += 1
            if values is not None and len(tickets) != SET_SIZE:
                tally.not_theirs += 1
        elif scenario == "open":
            values = allowed.get(json.dumps("queue"))
            statuses = {t["status"] for t in tickets.values()}
            whole = len(tickets) == OPEN_SIZE and len(statuses) == 1
            if len(tickets) != 40 and not whole:
                tally.partial += 1
                tally.notes.append(f"open: {len(tickets)} tickets, statuses {sorted(statuses)}")
            elif values is not None:
                status_of = {"open-a.json": "new", "open-b.json": "open"}
                if not whole or statuses.pop() not in {status_of[v] for v in values}:
                    tally.losses += 1
        elif scenario == "import":
            rows = db.execute("SELECT json_extract(definition, '$.description') FROM tools")
            descriptions = [r[0] for r in rows]
            packs = {d.rsplit("(pack ", 1)[-1] for d in descriptions}
            if len(descriptions) not in (0, 5) or len(packs) > 1:
                tally.partial += 1
                tally.notes.append(f"import: {len(descriptions)} tools from {len(packs)} packs")
            values = allowed.get(json.dumps("pack"))
            if values is not None and (
                not descriptions or int(next(iter(packs)).rstrip(").")) not in values
            ):
                tally.losses += 1
    finally:
        db.close()


OPEN_SIZE = int(os.environ.get("UNDERSTUDY_CRASH_OPEN_SIZE", "100000"))
SET_SIZE = 1200


def prepare(work: Path) -> None:
    from understudy_desktop.catalogue import current_catalogue
    from understudy_desktop.definition import Definition
    from understudy_desktop.library.checks import complete
    from understudy_desktop.packs.export import build_pack, pack_bytes

    (work / "set-queue.json").write_text(json.dumps(big_queue(SET_SIZE, "open", "S")))
    (work / "open-a.json").write_text(json.dumps(big_queue(OPEN_SIZE, "new", "A")))
    (work / "open-b.json").write_text(json.dumps(big_queue(OPEN_SIZE, "open", "B")))
    catalogue = current_catalogue()
    for k in range(3):
        tools = [
            complete(
                Definition.of(
                    {
                        "name": f"set_status_{s}",
                        "title": "",
                        "description": f"Set one ticket to {s} (pack {k}).",
                        "inputSchema": {
                            "type": "object",
                            "properties": {
                                "ticket_id": {"type": "string", "description": "The ticket."}
                            },
                            "required": ["ticket_id"],
                            "additionalProperties": False,
                        },
                        "steps": [
                            {
                                "command": "set_ticket_status",
                                "args": {
                                    "ticket_id": {"from": "param", "name": "ticket_id"},
                                    "status": {"from": "const", "value": s},
                                },
                            }
                        ],
                    }
                ),
                catalogue,
            )
            for s in ("new", "open", "pending", "solved", "closed")
        ]
        path = work / f"pack-{k}.understudy-pack.json"
        path.write_bytes(pack_bytes(build_pack(tools, catalogue, "Crash test")))


def run_scenario(
    scenario: str, kills: int, work: Path, seed: int = 7, acked_first: bool = False
) -> Tally:
    """`kills` lives of the app, each killed at a random moment after it is ready; with
    `acked_first` (the tests), only after it acknowledged something in that life, so a busy
    machine cannot make a life that proves nothing."""
    tally = Tally()
    data = work / f"data-{scenario}"
    log_path = work / f"acks-{scenario}.jsonl"
    rng = random.Random(seed)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    for _ in range(kills):
        child = subprocess.Popen(
            [sys.executable, __file__, "--drive", scenario, str(data), str(work), str(log_path)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        # Only this life's part of the log is read while waiting: the log of a fast scenario
        # grows to hundreds of thousands of lines, and reading it all every 50 ms is slow.
        start = log_path.stat().st_size if log_path.exists() else 0
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline and child.poll() is None:
            events = [e.get("event") for e in read_log(log_path, start)]
            if "ready" in events and (not acked_first or "acked" in events):
                break
            time.sleep(0.05)
        time.sleep(rng.uniform(0.2, 3.0 if scenario != "open" else 8.0))
        child.send_signal(signal.SIGKILL)
        child.wait()
        tally.kills += 1
        log = read_log(log_path)
        tally.acked = sum(1 for e in log if e.get("event") == "acked")
        verify(scenario, data, log, tally)
        with log_path.open("a") as f:
            f.write(json.dumps({"event": "killed"}) + "\n")
    return tally


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--drive":
        drive(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]), Path(sys.argv[5]))
        return 0
    kills = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    chosen = sys.argv[2:] or list(SCENARIOS)
    rows = []
    with tempfile.TemporaryDirectory(prefix="understudy-crash-") as tmp:
        work = Path(tmp)
        prepare(work)
        for scenario in chosen:
            started = time.monotonic()
            tally = run_scenario(scenario, kills, work)
            rows.append((scenario, tally, time.monotonic() - started))
    print()
    print(f"SIGKILL at random moments, {kills} kills per scenario (this machine)")
    head = (
        f"{'scenario':<8} | {'kills':>5} | {'acks':>5} | {'lost':>4} | {'partial':>7} | "
        f"{'not theirs':>10} | "
        f"{'damaged':>7} | {'page differs':>12} | {'time':>6}"
    )
    print(head)
    print("-" * len(head))
    total = Tally()
    for scenario, t, seconds in rows:
        print(
            f"{scenario:<8} | {t.kills:>5} | {t.acked:>5} | {t.losses:>4} | {t.partial:>7} | "
            f"{t.not_theirs:>10} | "
            f"{t.damaged:>7} | {t.page_mismatches:>12} | {seconds:>5.0f}s"
        )
        total.kills += t.kills
        total.losses += t.losses + t.partial + t.not_theirs + t.damaged + t.page_mismatches
        for note in t.notes[:5]:
            print(f"  {note}")
    print(f"total: {total.kills} kills, {total.losses} problems")
    return 1 if total.losses else 0


if __name__ == "__main__":
    sys.exit(main())
