"""The page draws what the shell applied: a change the shell refuses is put back and said in
words, and a change-feed message that never arrives makes the page fetch the saved copy."""

from __future__ import annotations

from agent_helpers import stored_ticket
from test_teach_e2e import choose, click


def ticket(console, ticket_id: str) -> dict:
    return console.dispatch("get_ticket", {"ticket_id": ticket_id})["result"]


def test_a_change_the_shell_refuses_is_put_back_and_said_in_words(console, data_dir):
    click(console, "#row-T-1004")
    console.qtbot.waitUntil(lambda: console.api_json("summary")["selected"] == "T-1004")
    before = ticket(console, "T-1004")["priority"]
    assert before != "urgent"
    refusal = "That ticket is not in this queue any more."

    def refuse(command, payload, reply, *_args):
        reply({"isError": True, "code": "not_found", "message": refusal})

    console.session.model.person = refuse
    choose(console, "#priority-select", "urgent")
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('toast-text').textContent") == refusal
    )
    console.qtbot.waitUntil(lambda: ticket(console, "T-1004")["priority"] == before)
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('priority-select').value") == before
    )
    assert stored_ticket(data_dir, "T-1004")["priority"] == before


def test_a_lost_change_feed_message_brings_the_saved_copy_back(console, data_dir):
    person = console.window.person
    port = console.window.port
    sent = port.feed
    lost: list[dict] = []

    def lose_the_first(batch):
        if not lost:
            lost.append(batch)  # this one never reaches the page
            return
        sent(batch)

    port.feed = lose_the_first
    assert person is not None
    # Something the page cannot know of yet, written in the database directly.
    console.session.db.write(
        lambda conn: conn.execute("UPDATE tickets SET reply_draft = 'edited' WHERE id = 'T-1003'")
    )
    console.dispatch("set_reply_draft", {"ticket_id": "T-1002", "text": "Thanks, done."})
    console.qtbot.waitUntil(lambda: bool(lost))
    # The answer names a revision the page never drew: it fetches the saved copy, which
    # holds both the change whose message was lost and the one written directly.
    console.qtbot.waitUntil(lambda: ticket(console, "T-1003")["reply_draft"] == "edited")
    assert ticket(console, "T-1002")["reply_draft"] == "Thanks, done."
    assert stored_ticket(data_dir, "T-1002")["reply_draft"] == "Thanks, done."
    # And the page goes on drawing what comes next.
    port.feed = sent
    console.dispatch("set_ticket_priority", {"ticket_id": "T-1005", "priority": "urgent"})
    console.flush()
    console.qtbot.waitUntil(lambda: ticket(console, "T-1005")["priority"] == "urgent")
    assert stored_ticket(data_dir, "T-1005")["priority"] == "urgent"


def test_all_matches_changes_exactly_the_tickets_the_persons_search_shows(console, data_dir):
    """The shell keeps the person's filter: a change to every match, applied there, is a
    change to the tickets the person sees listed, and to no other."""
    console.js(
        "(() => { const f = document.getElementById('filter-text'); f.value = 'refund';"
        " f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'})); return true; })()"
    )
    rows = "document.querySelectorAll('.row').length"
    console.qtbot.waitUntil(
        lambda: (
            0 < console.api_json("summary")["matches"] < 40
            and console.js(rows) == console.api_json("summary")["matches"]
        )
    )
    shown = set(
        console.value("[...document.querySelectorAll('.row')].map((r) => r.dataset.ticketId)")
    )
    listed = console.api_json("summary")["matches"]
    assert 0 < listed == len(shown)
    before = {
        t: stored_ticket(data_dir, t)["priority"] for t in (f"T-{1001 + i}" for i in range(40))
    }
    console.js(
        "(() => { const s = document.getElementById('bulk-priority'); s.value = 'urgent';"
        " s.dispatchEvent(new Event('change')); return true; })()"
    )
    console.qtbot.waitUntil(
        lambda: (
            "matching tickets" in console.js("document.getElementById('toast-text').textContent")
        )
    )
    after = {t: stored_ticket(data_dir, t)["priority"] for t in before}
    changed = {t for t in before if after[t] != before[t]}
    assert changed <= shown
    assert {t for t in shown if after[t] != "urgent"} == set()
    assert {t: after[t] for t in before if t not in shown} == {
        t: before[t] for t in before if t not in shown
    }
