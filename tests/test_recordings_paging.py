"""understudy_list_recordings answers in pages that fit the output budget (issue 36): past a
dozen recordings a single answer was cut into text that was not JSON, with no structured
content. Each page is whole JSON within the budget, and `more` says how to get the rest."""

from __future__ import annotations

import json

from agent_helpers import mcp_client, run_client
from test_agent_endpoint import endpoint

from understudy_desktop.agent.results import OUTPUT_BUDGET


def save_recordings(console, count: int, steps: int = 3) -> list[str]:
    ids = []
    for i in range(count):
        rec_id = f"rec-{i:03d}-a-fairly-long-identifier"
        console.library.save_recording(
            {
                "id": rec_id,
                "name": f"Routine number {i} that the person recorded on a busy morning",
                "createdAt": f"2026-12-01T09:{i // 60:02d}:{i % 60:02d}Z",
                "revision": 1,
                "steps": [{"command": "set_ticket_priority", "payload": {}}] * steps,
            }
        )
        ids.append(rec_id)
    return ids


def test_many_recordings_come_in_pages_of_whole_json(agent_console):
    console = agent_console
    ids = save_recordings(console, 40)
    ids.append(save_recordings_long(console))
    url, token = endpoint(console)

    async def every_page():
        pages = []
        async with mcp_client(url, token) as c:
            arguments: dict = {}
            while True:
                result = await c.call_tool("understudy_list_recordings", arguments)
                pages.append(result)
                more = (result.structured_content or {}).get("more")
                if not more:
                    return pages
                arguments = more["callAgainWith"]

    pages = run_client(console.qtbot, every_page)
    assert len(pages) > 2
    seen = []
    for result in pages:
        text = result.content[0].text
        assert result.is_error is False
        assert len(text) <= OUTPUT_BUDGET
        assert json.loads(text) == result.structured_content  # whole JSON, never cut
        seen += [r["id"] for r in result.structured_content["recordings"]]
    assert seen == ids  # every recording once, oldest first
    assert "tools" in pages[0].structured_content
    long_one = pages[-1].structured_content["recordings"][-1]
    assert long_one["steps"] == 150  # too long to name each step: counted


def save_recordings_long(console) -> str:
    console.library.save_recording(
        {
            "id": "rec-long",
            "name": "A long routine",
            "createdAt": "2026-12-02T09:00:00Z",
            "revision": 1,
            "steps": [{"command": "set_ticket_priority", "payload": {}}] * 150,
        }
    )
    return "rec-long"


def test_a_page_after_a_recording_there_is_not_is_refused(agent_console):
    console = agent_console
    save_recordings(console, 2)
    url, token = endpoint(console)

    async def ask():
        async with mcp_client(url, token) as c:
            return await c.call_tool("understudy_list_recordings", {"after": "rec-nope"})

    result = run_client(console.qtbot, ask)
    assert result.is_error is True
    assert result.structured_content["code"] == "not_found"
    assert result.structured_content["message"] == (
        "No recording has that id. Call understudy_list_recordings without it."
    )
