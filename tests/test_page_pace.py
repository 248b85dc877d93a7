"""The page's pace (bridge/page_pace.py): the numbers rules.json gives, counted with a clock
the test moves, and a page script in a loop against the real app: its extra asks are refused
in words, the database barely grows, and an agent's call is answered meanwhile."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from typing import Any

from agent_helpers import TEST_TOOLS, mcp_client, publish_definitions, stored_ticket
from test_shell_authority import page_script
from waiting import until

from understudy_desktop.bridge.page_pace import PagePace
from understudy_desktop.rules import rules


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_burst_goes_at_once_then_asks_wait_in_order_then_are_refused():
    limits = rules().pageAsks
    clock = Clock()
    pace: PagePace[int] = PagePace(limits, clock)
    burst, line = int(limits.burst), limits.waiting
    said = [pace.admit(i, 100) for i in range(burst + line + 5)]
    assert said[:burst] == ["now"] * burst
    assert said[burst : burst + line] == ["later"] * line
    assert said[burst + line :] == ["refused"] * 5
    assert pace.due() == []  # nothing more until time passes
    assert abs(pace.next_in() - 1 / limits.perSecond) < 1e-9
    clock.now += 1.0  # a second later: a second's worth goes on, first come first
    assert pace.due() == list(range(burst, burst + int(limits.perSecond)))
    # While any ask waits, a new one waits behind it, even with room in the buckets.
    assert pace.admit(-1, 100) == "later"
    went: list[int] = []
    while pace.waiting:
        clock.now += 1.0
        went += pace.due()
    assert went == [*range(burst + int(limits.perSecond), burst + line), -1]


def test_bytes_are_counted_too():
    limits = rules().pageAsks
    clock = Clock()
    pace: PagePace[str] = PagePace(limits, clock)
    quarter = int(limits.burstBytes) // 4
    assert [pace.admit("big", quarter) for _ in range(5)] == ["now"] * 4 + ["later"]
    assert abs(pace.next_in() - quarter / limits.bytesPerSecond) < 1e-6
    clock.now += quarter / limits.bytesPerSecond
    assert pace.due() == ["big"]
    # One message larger than the whole bucket still goes, once the bucket is full.
    clock.now += 100.0
    assert pace.admit("huge", int(limits.burstBytes) * 10) == "now"


def test_a_person_holding_an_arrow_key_never_waits():
    clock = Clock()
    pace: PagePace[int] = PagePace(rules().pageAsks, clock)
    for i in range(60 * 30):  # a minute at key-repeat speed, each ask the size of a reply
        clock.now += 1 / 30
        assert pace.admit(i, 4000) == "now"
    assert pace.held == 0 and pace.refused == 0


FLOOD = """
  const api = window.understudyShell.api;
  const text = 'x'.repeat(4000);
  const until = performance.now() + 3000;
  let i = 0;
  window.__refusals = 0;
  while (performance.now() < until) {
    const answer = api.dispatch('set_reply_draft', {ticket_id: 'T-100' + (1 + (i % 9)),
      text: text + i}, 'ui');
    i += 1;
    if (i % 20 === 0) await new Promise((r) => setTimeout(r, 0));
  }
  window.__sent = i;
"""


def test_a_page_flooding_changes_is_held_to_the_pace_and_agents_still_run(agent_console, data_dir):
    console = agent_console
    publish_definitions(console, [TEST_TOOLS["close_ticket"]])
    db_file = data_dir / "understudy.sqlite3"

    def person_rows() -> int:
        with sqlite3.connect(db_file) as db:
            return int(
                db.execute("SELECT count(*) FROM journal WHERE actor = 'person'").fetchone()[0]
            )

    before = person_rows()
    server = console.session.agent
    agent: dict[str, Any] = {}

    async def call() -> Any:
        async with mcp_client(server.url, server.token) as c:
            return await c.call_tool("close_ticket", {"ticket_id": "T-1012"})

    flood_over = threading.Event()

    def in_the_middle() -> None:
        # Once the flood is being held (or it is over without being held, which fails below).
        until(
            lambda: console.window.bridge.pace.held > 0 or flood_over.is_set(),
            "the flood is being held to the pace",
        )
        start = time.monotonic()
        agent["result"] = asyncio.run(call())
        agent["took"] = time.monotonic() - start

    caller = threading.Thread(target=in_the_middle, daemon=True)
    caller.start()
    flood_began = time.monotonic()
    page_script(console, FLOOD)
    flood_over.set()
    console.qtbot.waitUntil(lambda: not caller.is_alive())
    sent = int(console.js("window.__sent"))
    assert agent["result"].is_error is False, agent
    assert stored_ticket(data_dir, "T-1012")["status"] == "closed"
    limits = rules().pageAsks
    pace = console.window.bridge.pace
    # What waited its turn goes on at the pace, then stops: every ask not refused was made
    # (a careful script loses nothing), and no more than the pace lets through, however many
    # came: its burst and its rate over the time it all took, as long as a busy machine makes
    # that (measured, not guessed: the flood is 3 s of the page's time, however slow).
    console.qtbot.waitUntil(lambda: pace.waiting == 0)
    took = time.monotonic() - flood_began
    console.written()  # every ask let through is in the journal (the page may still be saving)
    made = person_rows() - before
    assert pace.refused > 0 and pace.held > 0  # the flood was more than the pace lets through
    assert made == sent - pace.refused
    most = limits.burst + limits.perSecond * took
    assert made <= most, (made, most)
    print(f"sent {sent}, made {made}, agent answered in {agent['took']:.2f} s")
