"""A helpdesk's export read the way its person means it, and saved so that a spreadsheet cannot
run it: "No Agent" is nobody, a requester's name over their address, plain text over HTML,
JSON Lines exports, and cells that a spreadsheet would run as formulas written as text."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from understudy_desktop.queue_io import QueueFileError, load_queue_file, save_queue_file
from understudy_desktop.queue_io.plain_text import defused, html_to_text, means_nobody


def write(tmp_path: Path, name: str, content: str) -> Path:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8", newline="")
    return path


def rows(path: Path) -> list[list[str]]:
    return list(csv.reader(path.open(encoding="utf-8-sig", newline="")))


# --- nobody, names, plain text --------------------------------------------------------------


@pytest.mark.parametrize("nobody", ["No Agent", "Unassigned", "-", "none", "N/A", "  no  agent "])
def test_the_words_exports_use_for_nobody_mean_nobody(tmp_path, nobody):
    path = write(tmp_path, "q.csv", f"id,subject,assignee\n1,A,{nobody}\n2,B,Chen Wei\n")
    queue = load_queue_file(path)
    tickets = {t.id: t for t in queue.tickets}
    assert tickets["1"].assignee is None  # the Unassigned filter finds it
    assert tickets["2"].assignee == "chen-wei"
    assert [a.name for a in queue.assignees] == ["Chen Wei"]  # "No Agent" is nobody's name
    assert means_nobody(nobody)
    assert not means_nobody("Nora Agent")


def test_a_requesters_name_is_used_over_their_address(tmp_path):
    path = write(
        tmp_path,
        "q.csv",
        "id,Requester Email,Requester Name,subject\n1,chloe@dubois.example,Chloé Dubois,Hi\n",
    )
    assert load_queue_file(path).tickets[0].requester == "Chloé Dubois"
    nested = [{"id": "1", "requester": {"email": "chloe@dubois.example", "name": "Chloé Dubois"}}]
    path = write(tmp_path, "q.json", json.dumps(nested))
    assert load_queue_file(path).tickets[0].requester == "Chloé Dubois"
    only_address = [{"id": "1", "requester": {"email": "chloe@dubois.example"}}]
    path = write(tmp_path, "r.json", json.dumps(only_address))
    assert load_queue_file(path).tickets[0].requester == "chloe@dubois.example"


def test_the_plain_text_description_is_used_over_the_html_one(tmp_path):
    path = write(
        tmp_path,
        "q.csv",
        'id,description,description_text\n1,"<div>Hello<br>there</div>","Hello\nthere"\n',
    )
    queue = load_queue_file(path)
    assert queue.source.mapping["description_text"] == "body"
    assert queue.tickets[0].body == "Hello\nthere"


def test_a_description_written_only_in_html_reads_as_the_text_it_shows(tmp_path):
    body = "<div>Hi team,<br>the link &amp; the code fail.</div><p>Thanks</p><script>x()</script>"
    path = write(tmp_path, "q.json", json.dumps([{"id": "1", "description": body}]))
    assert load_queue_file(path).tickets[0].body == "Hi team,\nthe link & the code fail.\n\nThanks"
    assert html_to_text("<ul><li>one</li><li>two</li></ul>") == "one\n\ntwo"
    # Text that merely mentions a bracket is not HTML.
    plain = [{"id": "1", "description": "Use a < b and x > y"}]
    path = write(tmp_path, "p.json", json.dumps(plain))
    assert load_queue_file(path).tickets[0].body == "Use a < b and x > y"


# --- JSON Lines ------------------------------------------------------------------------------


def test_a_json_lines_export_opens_and_saves_back_one_ticket_per_line(tmp_path):
    tickets = [
        {"id": 101, "subject": "Cannot log in", "status": "open", "assignee_id": 7},
        {"id": 102, "subject": "Refund", "status": "pending", "assignee_id": None},
        {"id": 103, "subject": "Invoice", "status": "solved", "assignee_id": 7},
    ]
    text = "".join(json.dumps(t) + "\n" for t in tickets)
    path = write(tmp_path, "tickets.jsonl", text)
    queue = load_queue_file(path)
    assert [t.id for t in queue.tickets] == ["101", "102", "103"]
    assert queue.source.kind == "json-lines"
    changed = [
        t.model_copy(update={"status": "solved"}) if t.id == "102" else t for t in queue.tickets
    ]
    save_queue_file(path, changed, queue.assignees, [], queue.source)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line) for line in lines] == [
        tickets[0],
        {**tickets[1], "status": "solved"},
        tickets[2],
    ]
    # The same file without its .jsonl name opens too (Zendesk names it .json).
    other = write(tmp_path, "export.json", text)
    assert len(load_queue_file(other).tickets) == 3


def test_a_json_lines_file_with_a_broken_line_is_refused_in_words_and_kept(tmp_path):
    text = '{"id": 1, "subject": "A"}\n{"id": 2, "subject": "B"\n'
    path = write(tmp_path, "tickets.jsonl", text)
    with pytest.raises(QueueFileError) as raised:
        load_queue_file(path)
    assert "line 1" in str(raised.value) or "line 2" in str(raised.value)
    assert "JSONDecodeError" not in str(raised.value)
    assert path.read_text(encoding="utf-8") == text


# --- cells a spreadsheet would run -----------------------------------------------------------

FORMULAS = ['=HYPERLINK("http://evil.example","Click")', "+cmd|' /C calc'!A0", "@SUM(1+1)*cmd"]


def test_cells_a_spreadsheet_would_run_are_saved_as_text(tmp_path):
    source = write(tmp_path, "q.json", json.dumps([{"id": "1", "subject": "x"}]))
    queue = load_queue_file(source)
    tickets = [
        queue.tickets[0].model_copy(update={"subject": f, "id": str(i)})
        for i, f in enumerate(FORMULAS)
    ]
    out = tmp_path / "saved.csv"
    save_queue_file(out, tickets, [], [], None)
    subjects = [row[1] for row in rows(out)[1:]]
    assert subjects == ["'" + f for f in FORMULAS]
    assert defused("-") == "-" and defused("a=b") == "a=b"


def test_a_formula_in_a_row_nobody_changed_is_saved_as_text_too(tmp_path):
    path = write(
        tmp_path,
        "q.csv",
        'id,subject,status\n1,"=HYPERLINK(""http://evil.example"")",open\n2,Fine,open\n',
    )
    queue = load_queue_file(path)
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    saved = rows(path)
    assert saved[1][1] == '\'=HYPERLINK("http://evil.example")'
    assert saved[2] == ["2", "Fine", "open"]  # other rows as they were


def test_a_cell_made_safe_with_a_leading_tab_is_kept_as_it_was(tmp_path):
    path = write(tmp_path, "q.csv", 'id,subject,status\n1,"\t=1+1",open\n2,Plain,open\n')
    queue = load_queue_file(path)
    first = {t.id: t for t in queue.tickets}["1"]
    assert first.subject == "\t=1+1"
    changed = [t.model_copy(update={"status": "pending"}) for t in queue.tickets]
    save_queue_file(path, changed, queue.assignees, [], queue.source)
    assert rows(path)[1] == ["1", "\t=1+1", "pending"]
    # Saved as a new CSV, the tab is kept too, not turned into a live formula.
    out = tmp_path / "new.csv"
    save_queue_file(out, changed, queue.assignees, [], None)
    assert rows(out)[1][1] == "\t=1+1"
