"""File › Open queue… and Save queue as… through the real window and page."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from understudy_desktop.queue_io import load_queue_file
from understudy_desktop.shell.queue_preview import QueuePreviewDialog

FIXTURES = Path(__file__).parent / "fixtures" / "queues"


def open_and_wait(console, path: Path) -> None:
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(path, confirm=False)


def open_and_fail(console, path: Path, confirm: bool = False) -> str:
    with console.qtbot.waitSignal(console.window.queue_failed) as blocker:
        console.window.open_queue(path, confirm=confirm)
    return str(blocker.args[0])


def problems_of(console, monkeypatch) -> list[tuple[str, str]]:
    seen: list[tuple[str, str]] = []
    monkeypatch.setattr(console.window, "show_problem", lambda t, m: seen.append((t, m)))
    return seen


def test_opening_a_helpdesk_csv_replaces_the_queue(console):
    open_and_wait(console, FIXTURES / "helpdesk_comma.csv")
    summary = console.api_json("summary")
    assert summary["tickets"] == 5
    ticket = console.dispatch("get_ticket", {"ticket_id": "1002"})["result"]
    assert ticket["status"] == "open"  # "In Progress" in the file
    assert ticket["priority"] == "normal"  # "Medium"
    names = {a["id"]: a["name"] for a in console.dispatch("list_assignees", {})["result"]}
    assert names[ticket["assignee"]] == "Ana García"
    # A helpdesk export has no templates: the console keeps its own.
    assert len(console.dispatch("list_templates", {})["result"]) == 8
    console.qtbot.waitUntil(lambda: "helpdesk_comma.csv" in console.window._status.text())


def test_triaged_csv_saves_back_in_the_same_format(console, tmp_path):
    source = FIXTURES / "helpdesk_comma.csv"
    open_and_wait(console, source)
    assert console.dispatch("set_ticket_status", {"ticket_id": "1001", "status": "solved"})["ok"]
    assert console.dispatch("add_ticket_tag", {"ticket_id": "1001", "tag": "vip"})["ok"]
    target = tmp_path / "triaged.csv"
    with console.qtbot.waitSignal(console.window.queue_saved):
        console.window.save_queue(target)
    again = load_queue_file(target)
    by_id = {t.id: t for t in again.tickets}
    assert by_id["1001"].status == "solved"
    assert "vip" in by_id["1001"].tags
    assert by_id["1002"].status == "open"
    with target.open(encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f))
    with source.open(encoding="utf-8", newline="") as f:
        original = list(csv.reader(f))
    assert rows[0] == original[0]  # same headers, same order, extra columns kept
    assert rows[2] == original[2]  # an untouched ticket is written back unchanged
    assert rows[1][9:] == original[1][9:]  # Group and Satisfaction survive the edit


@pytest.mark.parametrize(
    ("content", "words"),
    [
        ("{ not json", "JSON"),
        ("subject,body\nhello,world\n", "id"),
        ("", "empty"),
    ],
)
def test_a_bad_file_is_refused_and_the_queue_stays(console, tmp_path, monkeypatch, content, words):
    seen = problems_of(console, monkeypatch)
    console.dispatch("set_ticket_priority", {"ticket_id": "T-1001", "priority": "urgent"})
    before = console.api("exportQueue")
    bad = tmp_path / ("bad.json" if content.startswith("{") else "bad.csv")
    bad.write_text(content, encoding="utf-8")
    open_and_fail(console, bad)
    assert len(seen) == 1
    title, message = seen[0]
    assert title == "This queue could not be opened"
    assert words.lower() in message.lower()
    assert console.api("exportQueue") == before


def test_an_unknown_encoding_is_refused(console, tmp_path, monkeypatch):
    seen = problems_of(console, monkeypatch)
    bad = tmp_path / "binary.csv"
    bad.write_bytes(bytes(range(256)) * 40)
    message = open_and_fail(console, bad)
    assert "encoded" in message.lower()
    assert seen and console.api_json("summary")["tickets"] == 40


def test_cancelling_the_preview_changes_nothing(console, monkeypatch):
    monkeypatch.setattr(QueuePreviewDialog, "exec", lambda self: 0)
    before = console.api("exportQueue")
    assert open_and_fail(console, FIXTURES / "helpdesk_comma.csv", confirm=True) == "cancelled"
    assert console.api("exportQueue") == before


def test_customer_text_from_a_file_is_shown_as_text(console, tmp_path):
    hostile = "<img src=x onerror=\"document.title='pwned'\"></div><b>bold</b>"
    queue = [{"id": "H-1", "subject": hostile, "description": hostile, "status": "new"}]
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps(queue), encoding="utf-8")
    open_and_wait(console, path)
    console.dispatch("select_ticket", {"ticket_id": "H-1"})
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('d-subject').textContent") == hostile
    )
    # A description written in HTML is read as the text it shows; the subject, as typed.
    assert console.js("document.getElementById('d-body').textContent") == "bold"
    assert (
        console.js("document.querySelectorAll('#d-subject *, #d-body *, .row .subject *').length")
        == 0
    )
    assert console.js("document.title") == "Understudy — Triage console"


def test_an_opened_queue_survives_a_restart(console_factory, data_dir):
    first = console_factory(data_dir)
    open_and_wait(first, FIXTURES / "tickets_array.json")
    first.flush()
    first.session.close()
    second = console_factory(data_dir)
    summary = second.api_json("summary")
    assert summary["tickets"] == len(load_queue_file(FIXTURES / "tickets_array.json").tickets)
    assert second.dispatch("get_ticket", {"ticket_id": "501"})["ok"]


@pytest.mark.slow
def test_a_100k_queue_opens_filters_and_stays_virtualised(console, tmp_path):
    path = tmp_path / "big.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "subject", "body", "status", "priority", "tags", "created"])
        for i in range(100_000):
            status = "open" if i % 3 else "new"
            w.writerow(
                [
                    f"B-{i}",
                    f"Bank feed stopped #{i}" if i % 10 == 0 else f"Question {i}",
                    "text",
                    status,
                    "normal",
                    "bank-feed" if i % 10 == 0 else "",
                    "2026-11-20T10:00:00Z",
                ]
            )
    open_and_wait(console, path)
    assert console.api_json("summary")["tickets"] == 100_000
    console.qtbot.waitUntil(lambda: console.js("document.querySelectorAll('.row').length") > 0)
    rendered = console.js("document.querySelectorAll('.row').length")
    assert 0 < rendered < 80  # only what is on screen exists in the DOM
    out = console.dispatch("filter_tickets", {"text": "bank feed", "status": "open"})
    # Every 10th ticket mentions the bank feed; of those, two in three are open.
    assert out["result"]["matched"] == sum(1 for i in range(0, 100_000, 10) if i % 3)
    console.js("document.getElementById('queue-list').scrollTop = 200000; true")
    console.qtbot.waitUntil(
        lambda: (
            console.js("Number(document.querySelector('.row').getAttribute('aria-rowindex'))")
            > 1000
        )
    )


def test_the_demo_queue_saves_as_json_and_csv_and_opens_again(console_factory, tmp_path):
    first = console_factory(tmp_path / "a")
    first.dispatch("apply_template", {"ticket_id": "T-1006", "template_id": "refund_approved"})
    for name in ("saved.json", "saved.csv"):
        with first.qtbot.waitSignal(first.window.queue_saved):
            first.window.save_queue(tmp_path / name)
    from_json = load_queue_file(tmp_path / "saved.json")
    assert len(from_json.tickets) == 40
    assert {a.id for a in from_json.assignees} == {"priya", "marcus", "elena", "tomasz", "aisha"}
    drafts = {t.id: t.reply_draft for t in from_json.tickets}
    assert drafts["T-1006"].startswith("Hi Derek")
    from_csv = load_queue_file(tmp_path / "saved.csv")
    assert [t.id for t in from_csv.tickets] == [t.id for t in from_json.tickets]
    second = console_factory(tmp_path / "b")
    open_and_wait(second, tmp_path / "saved.json")
    assert (
        second.dispatch("get_ticket", {"ticket_id": "T-1006"})["result"]["reply_draft"]
        == (drafts["T-1006"])
    )


def test_a_helpdesks_columns_and_values_are_chosen_once_and_remembered(console, monkeypatch):
    """Freshdesk: the person says what group_name holds and what "Escalated to L2" means; the
    next export of the same helpdesk opens that way at once. (Its plain-text description and
    its agent's name are guessed.)"""
    seen: list[dict[str, object]] = []

    def choose(dialog):
        seen.append(dialog.choices.to_json())
        if len(seen) == 1:
            dialog.column_combo("group_name").setCurrentText("Tags")
            dialog.value_combo("status", "Escalated to L2").setCurrentText("Pending")
        dialog.open_button.click()
        return dialog.result()

    monkeypatch.setattr(QueuePreviewDialog, "exec", choose)
    path = FIXTURES / "freshdesk_export.csv"
    for _ in range(2):
        with console.qtbot.waitSignal(console.window.queue_loaded):
            console.window.open_queue(path, confirm=True)
        ticket = console.dispatch("get_ticket", {"ticket_id": "4101"})["result"]
        assert ticket["body"].startswith("Hi, the reset link says it has expired.")
        names = {a["id"]: a["name"] for a in console.dispatch("list_assignees", {})["result"]}
        assert names[ticket["assignee"]] == "Chen Wei"
        assert ticket["status"] == "open"  # Freshdesk's 2
        assert ticket["tags"] == ["1", "tier"]  # from group_name "Tier 1", as chosen
    # The second time the preview started from the first time's choices.
    first_columns = seen[0]["columns"]
    assert first_columns["description_text"] == "body"  # guessed
    assert first_columns["group_name"] is None  # guessed "not used" at first
    assert seen[1]["columns"]["group_name"] == "tags"
    assert seen[1]["columns"]["responder_name"] == "assignee"
    assert seen[1]["values"]["status"]["Escalated to L2"] == "pending"
    # The ticket marked "Escalated to L2" is pending, as chosen.
    assert console.dispatch("get_ticket", {"ticket_id": "4103"})["result"]["status"] == "pending"
    assert console.js("document.getElementById('queue-name').textContent") == path.name


def test_reply_templates_stay_after_a_restart_with_a_helpdesk_file(console_factory, data_dir):
    first = console_factory(data_dir)
    open_and_wait(first, FIXTURES / "helpdesk_comma.csv")
    assert len(first.dispatch("list_templates", {})["result"]) == 8
    first.session.close()
    second = console_factory(data_dir)
    assert len(second.dispatch("list_templates", {})["result"]) == 8


def test_a_failure_while_opening_says_so_and_leaves_open_queue_usable(console, monkeypatch):
    """Whatever breaks after the file was read (here the preview itself), the open ends: the
    person reads plain words, the queue they had stays, and Open queue works again."""
    seen = problems_of(console, monkeypatch)
    before = console.api_json("summary")["tickets"]

    def broken(*_args, **_kwargs):
        raise KeyError("json-lines")

    monkeypatch.setattr("understudy_desktop.shell.queue_files.QueuePreviewDialog", broken)
    message = open_and_fail(console, FIXTURES / "helpdesk_comma.csv", confirm=True)
    assert "the queue you had is unchanged" in message and "json-lines" not in message
    assert seen and seen[-1][0] == "This queue could not be opened"
    assert console.window.queue_files._busy is None
    assert console.api_json("summary")["tickets"] == before
    monkeypatch.undo()
    open_and_wait(console, FIXTURES / "helpdesk_comma.csv")
    assert console.api_json("summary")["tickets"] == 5


def test_an_empty_queue_says_it_is_empty_not_that_filters_match_nothing(console, tmp_path):
    import json

    path = tmp_path / "empty.json"
    path.write_text(
        json.dumps({"format": "understudy-queue", "version": 1, "tickets": []}), encoding="utf-8"
    )
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(path, confirm=False)
    console.qtbot.waitUntil(
        lambda: console.js("document.getElementById('queue-empty').hidden") is False
    )
    assert console.js("document.getElementById('queue-empty-text').textContent") == (
        "This queue has no tickets. Open a queue from the File menu."
    )
    assert console.js("document.getElementById('empty-clear').hidden") is True
    # A filter that matches nothing on a queue with tickets still says so, with Clear.
    full = tmp_path / "one.json"
    one = {
        "id": "N-1",
        "subject": "Refund please",
        "body": "",
        "requester": "Kim <kim@example.com>",
        "created": "2026-11-20T10:00:00Z",
        "status": "new",
        "priority": "normal",
        "assignee": None,
        "tags": [],
    }
    full.write_text(
        json.dumps({"format": "understudy-queue", "version": 1, "tickets": [one]}),
        encoding="utf-8",
    )
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(full, confirm=False)
    console.dispatch("filter_tickets", {"text": "nothing like this"}, "ui")
    console.qtbot.waitUntil(
        lambda: (
            console.js("document.getElementById('queue-empty-text').textContent")
            == "No ticket matches these filters."
        )
    )
    assert console.js("document.getElementById('empty-clear').hidden") is False
