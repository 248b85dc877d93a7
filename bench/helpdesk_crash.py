"""Kill the real app with SIGKILL while it sends changes to a real Request Tracker; check that
no acknowledged change is lost and none reaches RT twice.

The app runs on a queue connected to RT (a queue of a few tickets, with a Tags field). In each
life it starts, carries on with the connection, and a person's edits follow one another: each
sets one ticket's tags to a value never used before ("c17"), and is acknowledged when the page
hears "saved" from the shell (written to a log, fsync'd). The app is killed at a random moment,
often in the middle of a send. A bad day happens in between, in some lives:

  RT restarts   RT's server is killed while the app sends, and comes back (or not, before the
                app is killed in turn)
  new token     the token is revoked in RT (the app meets "sign-in refused") and a new one is
                made; the app is given it as a person gives it after that message (Connect to
                helpdesk…, same place: the sign-in is replaced, the waiting changes kept)
  reconnect     the person connects again to the same place with the same token

After the last kill the app runs once more until its outbox is empty, and RT's own history of
each ticket is read:

  lost        a ticket whose tags in RT are not the newest change the app committed for it,
              or a change acknowledged for it that the app did not keep
  duplicated  a value RT was given twice, or given after a newer one (a change sent again)
  unsettled   a change still waiting, refused or in question when the outbox should be empty

With UNDERSTUDY_HELPDESK_SABOTAGE=1 the app acknowledges changes without putting them in the
outbox (its triggers dropped), and the harness must report them lost: its own check.

Usage: .venv/bin/python bench/helpdesk_crash.py [kills]   (200 for the issue's target)
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(ROOT / "tests"))
TICKETS = 4


@dataclass
class Tally:
    kills: int = 0
    rt_restarts: int = 0
    token_changes: int = 0
    reconnects: int = 0
    acked: int = 0
    committed: int = 0
    sent_to_rt: int = 0
    lost: int = 0
    duplicated: int = 0
    unsettled: int = 0
    notes: list[str] = field(default_factory=list)


# --- the app side: runs inside the process that gets killed ---------------------------------
def drive(data: Path, log_path: Path, drain: bool) -> None:
    sys.path.insert(0, str(BENCH))
    from crash import AckLog
    from harness import application, js, start_console, wait

    log = AckLog(log_path)
    app = application()
    session = start_console(app, data)
    window = session.window
    if os.environ.get("UNDERSTUDY_HELPDESK_SABOTAGE"):
        for name in ("status", "priority", "assignee", "tags"):
            session.db.write(lambda conn, n=name: conn.execute(f"DROP TRIGGER outbox_{n}"))
    wait(app, lambda: session.helpdesk is not None and session.helpdesk.connected, 60)
    sign_in = SignIn(data, session)
    sign_in.check(app)
    log.write(event="ready")
    if drain:
        started = time.monotonic()
        wait(app, lambda: _open_changes(session.db) == 0, 170)
        log.write(event="drained", seconds=round(time.monotonic() - started, 1))
        return
    used = sum(1 for e in _read(log_path) if e.get("event") == "sent")
    rng = random.Random(os.getpid())
    tickets = [str(r[0]) for r in session.db.read("SELECT id FROM tickets ORDER BY position")]
    i = used
    while True:
        sign_in.check(app)
        i += 1
        ticket = rng.choice(tickets)
        value = [f"c{i}"]
        log.write(event="sent", ticket=ticket, i=i)
        payload = {"ticket_id": ticket, "tags": value}
        js(
            app,
            window.page,
            "window.understudyShell.api.dispatch('set_ticket_tags', "
            f"{json.dumps(payload)}, 'ui'); true",
        )
        wait(
            app, lambda: js(app, window.page, "window.understudyShell.api.saveState().unsaved") == 0
        )
        log.write(event="acked", ticket=ticket, i=i)
        pause_until = time.monotonic() + rng.uniform(0.0, 0.15)
        wait(app, lambda t=pause_until: time.monotonic() >= t)


class SignIn:
    """The harness's word on the sign-in (a file: the token, and a number that changes for
    each new sign-in or reconnection), acted on as a person does: File › Connect to helpdesk…
    to the same place, which replaces the sign-in and keeps every waiting change."""

    def __init__(self, data: Path, session: Any) -> None:
        self.path = data.parent / "sign-in.json"
        self.session = session
        self.seen = -1

    def check(self, app: Any) -> bool:
        from harness import wait

        try:
            said = json.loads(self.path.read_text())
        except (OSError, ValueError):
            return False
        if said["n"] == self.seen:
            return False
        link = self.session.helpdesk
        done: list[Any] = []
        link.sign_in_again(link.settings, said["token"], done.append)
        wait(app, lambda: bool(done), 60)
        self.seen = said["n"]
        return False


def _open_changes(db: Any) -> int:
    rows = db.read("SELECT count(*) FROM outbox WHERE state = 'waiting'")
    return int(rows[0][0])


def _read(path: Path) -> list[dict[str, Any]]:
    if not path.exists():
        return []
    out = []
    for line in path.read_text().splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue  # the line being written when the process was killed
    return out


# --- the harness side ------------------------------------------------------------------------
def prepare(work: Path, rt: Any) -> tuple[Path, Any]:
    """A data dir whose queue is connected to a fresh RT queue, as connecting leaves it."""
    from helpdesk_helpers import Desk, make_desk

    from understudy_desktop.helpdesk import sync
    from understudy_desktop.helpdesk.credentials import Credentials
    from understudy_desktop.store.database import Database
    from understudy_desktop.store.queue_store import write_queue

    desk: Desk = make_desk(rt, tickets=TICKETS)
    data = work / "data"
    data.mkdir(parents=True, exist_ok=True)
    first = sync.read_all(desk.adapter, desk.queue)
    first.settings = {"kind": "rt", "url": rt.web_url, "queue": desk.queue, "email": ""}
    db = Database(data)
    db.write(
        lambda conn: write_queue(
            conn, first.meta, first.rows, None, "crash-g1", [lambda c, _m: first.store(c)]
        )
    )
    db.close()
    token = rt.new_token("bench-0")
    Credentials(data, use_keyring=False).save(rt.web_url, token)
    return data, desk


def _life(data: Path, log_path: Path, drain: bool, env: dict[str, str]) -> subprocess.Popen[bytes]:
    args = [sys.executable, __file__, "--drive", str(data), str(log_path)]
    if drain:
        args.append("--drain")
    return subprocess.Popen(args, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _wait_event(
    child: subprocess.Popen[bytes], log_path: Path, event: str, start: int, timeout_s: float
) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and child.poll() is None:
        if any(e.get("event") == event for e in _read(log_path)[start:]):
            return True
        time.sleep(0.05)
    return False


def _rt_restart(rt: Any, rng: random.Random, tally: Tally) -> None:
    """RT's server dies while the app sends; it comes back before the app is killed, or not."""
    time.sleep(rng.uniform(0.2, 1.2))
    rt.halt()
    tally.rt_restarts += 1
    time.sleep(rng.uniform(0.3, 2.0))
    if rng.random() < 0.6:
        rt.resume()
        time.sleep(rng.uniform(0.2, 2.0))


def _new_token(rt: Any, work: Path, rng: random.Random, tally: Tally) -> None:
    """The token is revoked in RT, then a new one is made and given to the app (maybe after it
    is killed: the next life is given it at its start)."""
    time.sleep(rng.uniform(0.2, 1.2))
    tally.token_changes += 1
    n = tally.token_changes
    rt.revoke_tokens(f"bench-{n - 1}")
    time.sleep(rng.uniform(0.2, 1.5))
    _say_sign_in(work, rt.new_token(f"bench-{n}"))
    time.sleep(rng.uniform(0.0, 1.5))


def _reconnect(work: Path, rng: random.Random, tally: Tally) -> None:
    """The person connects again to the same place with the sign-in it has."""
    time.sleep(rng.uniform(0.2, 1.5))
    path = work / "sign-in.json"
    token = json.loads(path.read_text())["token"] if path.exists() else None
    if token is None:
        from understudy_desktop.helpdesk.credentials import Credentials

        settings = json.loads(
            sqlite3.connect(work / "data" / "understudy.sqlite3")
            .execute("SELECT settings FROM helpdesk_link")
            .fetchone()[0]
        )
        token = Credentials(work / "data", use_keyring=False).load(settings["url"])
    _say_sign_in(work, str(token))
    tally.reconnects += 1
    time.sleep(rng.uniform(0.0, 1.5))


def _say_sign_in(work: Path, token: str) -> None:
    path = work / "sign-in.json"
    n = json.loads(path.read_text())["n"] + 1 if path.exists() else 1
    partial = path.with_suffix(".part")
    partial.write_text(json.dumps({"token": token, "n": n}))
    os.replace(partial, path)


def run(kills: int, work: Path, rt: Any, seed: int = 11, bad_day: bool = True) -> Tally:
    tally = Tally()
    data, desk = prepare(work, rt)
    log_path = work / "acks.jsonl"
    rng = random.Random(seed)
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
    )
    for life in range(kills):
        start = len(_read(log_path))
        child = _life(data, log_path, False, env)
        _wait_event(child, log_path, "ready", start, 120)
        # Every third life has a bad day, its kind taken in turn: RT restarts, new token,
        # reconnect (lives 1, 4 and 7 of every 9).
        trouble = bad_day and life % 3 == 1
        if trouble and life % 9 == 1:
            _rt_restart(rt, rng, tally)
        elif trouble and life % 9 == 4:
            _new_token(rt, work, rng, tally)
        elif trouble:
            _reconnect(work, rng, tally)
        else:
            time.sleep(rng.uniform(0.2, 2.5))
        child.send_signal(signal.SIGKILL)
        child.wait()
        tally.kills += 1
        rt.resume()  # down when the app was killed: back before the next life
        with log_path.open("a") as f:
            f.write(json.dumps({"event": "killed"}) + "\n")
    start = len(_read(log_path))
    child = _life(data, log_path, True, env)
    if not _wait_event(child, log_path, "drained", start, 240):
        tally.notes.append("the outbox did not empty after the last start")
    child.send_signal(signal.SIGTERM)
    child.wait(30)
    drained = [e for e in _read(log_path)[start:] if e.get("event") == "drained"]
    if drained:
        tally.notes.append(f"the last start emptied the outbox in {drained[0]['seconds']} s")
    verify(data, log_path, desk, tally)
    return tally


def verify(data: Path, log_path: Path, desk: Any, tally: Tally) -> None:
    log = _read(log_path)
    acked: dict[str, int] = {}
    for entry in log:
        if entry.get("event") == "acked":
            tally.acked += 1
            acked[entry["ticket"]] = max(acked.get(entry["ticket"], 0), int(entry["i"]))
    db = sqlite3.connect(data / "understudy.sqlite3")
    committed: dict[str, int] = {}
    for ticket, tags in db.execute("SELECT id, tags FROM tickets"):
        values = json.loads(tags)
        committed[ticket] = int(values[0][1:]) if values else 0
    tally.committed = int(db.execute("SELECT count(*) FROM outbox").fetchone()[0])
    for ticket, state, words, attempts, value, base, theirs in db.execute(
        "SELECT ticket, state, words, attempts, value, base, theirs FROM outbox"
        " WHERE state != 'sent'"
    ):
        tally.unsettled += 1
        tally.notes.append(
            f"{ticket}: still {state} after {attempts} tries ({words}); ours {value},"
            f" made over {base}, RT had {theirs}"
        )
    db.close()
    for number in desk.ids:
        ticket = f"RT-{number}"
        added = _added_tags(desk, number)
        tally.sent_to_rt += len(added)
        seen: set[int] = set()
        last = 0
        for k in added:
            if k in seen or k < last:
                tally.duplicated += 1
                tally.notes.append(f"{ticket}: c{k} reached RT again (after c{last})")
            seen.add(k)
            last = max(last, k)
        final = [int(t[1:]) for t in desk.tags(number)]
        if acked.get(ticket, 0) > committed.get(ticket, 0):
            tally.lost += 1
            tally.notes.append(f"{ticket}: c{acked[ticket]} was acknowledged but not kept")
        elif committed.get(ticket, 0) and final != [committed[ticket]]:
            tally.lost += 1
            tally.notes.append(
                f"{ticket}: RT has {final}, the app's newest is c{committed[ticket]}"
            )


def _added_tags(desk: Any, number: int) -> list[int]:
    """Every Tags value RT was given for the ticket, in the order it was given."""
    out = []
    for transaction in desk.history(number):
        if transaction.get("Type") == "CustomField" and transaction.get("NewValue"):
            value = str(transaction["NewValue"])
            if value.startswith("c") and value[1:].isdigit():
                out.append(int(value[1:]))
    return out


def main() -> int:
    if len(sys.argv) > 1 and sys.argv[1] == "--drive":
        drive(Path(sys.argv[2]), Path(sys.argv[3]), "--drain" in sys.argv)
        return 0
    from rt_server import RTServer

    kills = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    with tempfile.TemporaryDirectory() as tmp, RTServer(Path(tmp) / "rt", workers=4) as rt:
        started = time.monotonic()
        tally = run(kills, Path(tmp) / "work", rt)
        took = time.monotonic() - started
    heads = ("kills", "RT down", "tokens", "reconn.", "acked", "committed", "to RT", "lost")
    heads += ("dup", "unsettled", "minutes")
    print(" ".join(f"{h:>9}" for h in heads))
    row = (tally.kills, tally.rt_restarts, tally.token_changes, tally.reconnects, tally.acked)
    row += (tally.committed, tally.sent_to_rt, tally.lost, tally.duplicated, tally.unsettled)
    print(" ".join(f"{v:>9,}" for v in row) + f" {took / 60:>9.1f}")
    for note in tally.notes[:20]:
        print("  " + note)
    return 0 if (tally.lost, tally.duplicated, tally.unsettled) == (0, 0, 0) else 1


if __name__ == "__main__":
    raise SystemExit(main())
