"""Queue files: helpdesk CSV/JSON exports and our own queue document, in and out."""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from understudy_desktop.queue_io import (
    FIELDS,
    ImportChoices,
    LoadedQueue,
    QueueFileError,
    Ticket,
    file_text,
    load_queue_file,
    preview_queue_file,
    save_queue_file,
    source_from_state,
    source_signature,
    source_to_state,
)
from understudy_desktop.queue_io.columns import (
    CellValueError,
    assignee_slug,
    map_columns,
    normalise_priority,
    normalise_status,
    parse_date,
    split_tags,
)

FIXTURES = Path(__file__).parent / "fixtures" / "queues"


def copy_fixture(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def by_id(queue: LoadedQueue) -> dict[str, Ticket]:
    return {t.id: t for t in queue.tickets}


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8", newline="")
    return path


def open_error(path: Path) -> QueueFileError:
    with pytest.raises(QueueFileError) as caught:
        load_queue_file(path)
    return caught.value


# ---- columns and values -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "field"),
    [
        ("Ticket ID", "id"),
        ("ticket_id", "id"),
        ("#", "id"),
        ("KEY", "id"),
        ("Title", "subject"),
        ("Summary", "subject"),
        ("Details", "body"),
        ("Requester Email", "requester"),
        ("From", "requester"),
        ("Assigned to", "assignee"),
        ("agent", "assignee"),
        ("Labels", "tags"),
        ("created_at", "created"),
        ("Opened", "created"),
        (" Status ", "status"),
        ("PRIORITY", "priority"),
        ("Group", None),
    ],
)
def test_headers_map_regardless_of_case_and_punctuation(header: str, field: str | None) -> None:
    assert map_columns([header]) == [field]


def test_each_field_goes_to_one_column_preferring_the_closest_name() -> None:
    assert map_columns(["Email", "Requester", "Date", "Created at", "Id"]) == [
        None,
        "requester",
        None,
        "created",
        "id",
    ]


@pytest.mark.parametrize(
    ("raw", "status"),
    [
        ("In Progress", "open"),
        ("active", "open"),
        ("Waiting", "pending"),
        ("on_hold", "pending"),
        ("HOLD", "pending"),
        ("Resolved", "solved"),
        ("done", "solved"),
        ("Fixed", "solved"),
        ("Closed", "closed"),
        ("", "new"),
    ],
)
def test_status_synonyms(raw: str, status: str) -> None:
    assert normalise_status(raw) == status


@pytest.mark.parametrize(
    ("raw", "priority"),
    [("Medium", "normal"), ("critical", "urgent"), ("P1", "urgent"), ("Highest", "urgent"),
     ("lowest", "low"), ("p4", "low"), ("", "normal"), ("High", "high")],
)  # fmt: skip
def test_priority_synonyms(raw: str, priority: str) -> None:
    assert normalise_priority(raw) == priority


def test_unknown_words_are_refused_with_the_allowed_list() -> None:
    with pytest.raises(CellValueError, match=r"“maybe” is not one we know.*new, open, pending"):
        normalise_status("maybe")
    with pytest.raises(CellValueError, match=r"low, normal, high, urgent"):
        normalise_priority("sky-high")


@pytest.mark.parametrize(
    ("raw", "iso"),
    [
        ("2026-11-02T09:14:00Z", "2026-11-02T09:14:00Z"),
        ("2026-11-02 09:14", "2026-11-02T09:14:00Z"),
        ("2026-11-02T10:14:00+01:00", "2026-11-02T09:14:00Z"),
        ("2026-11-02", "2026-11-02T00:00:00Z"),
        ("2026/11/02 9:14", "2026-11-02T09:14:00Z"),
        ("2 Nov 2026", "2026-11-02T00:00:00Z"),
        ("November 2, 2026 9:14 PM", "2026-11-02T21:14:00Z"),
        ("Mon, 02 Nov 2026 09:14:00 +0100", "2026-11-02T08:14:00Z"),
        ("02/Nov/26 9:14 AM", "2026-11-02T09:14:00Z"),
        ("2026-11-02T09:14:00.250Z", "2026-11-02T09:14:00.25Z"),
    ],
)
def test_unambiguous_dates_become_iso_utc(raw: str, iso: str) -> None:
    assert parse_date(raw) == iso


@pytest.mark.parametrize("raw", ["02/11/2026", "11/02/2026", "13.11.2026", "2/3/26"])
def test_day_month_dates_are_refused_because_they_are_ambiguous(raw: str) -> None:
    with pytest.raises(CellValueError, match="day/month or month/day"):
        parse_date(raw)


@pytest.mark.parametrize("raw", ["yesterday", "2026-02-30", "2026-11-02 25:00", "Smarch 3, 2026"])
def test_unreadable_dates_are_refused(raw: str) -> None:
    with pytest.raises(CellValueError):
        parse_date(raw)


def test_tags_split_on_commas_semicolons_and_spaces_lowercased_once_each() -> None:
    assert split_tags("Billing, VIP;refund  billing\tvip") == ["billing", "vip", "refund"]
    assert split_tags("") == []


def test_assignee_slug_is_stable_and_case_insensitive() -> None:
    assert assignee_slug("Ana García") == assignee_slug(" ana garcía ") == "ana-garcía"
    assert assignee_slug("???") == assignee_slug("???") != assignee_slug("!!!")


# ---- CSV ----------------------------------------------------------------------------------------


def test_comma_csv_is_read_with_synonyms_dates_and_extra_columns() -> None:
    queue = load_queue_file(FIXTURES / "helpdesk_comma.csv")
    tickets = by_id(queue)
    assert list(tickets) == ["1001", "1002", "1003", "1004", "1005"]
    first = tickets["1001"]
    assert first.body == 'Hi team,\nI get "invalid password" since Monday.\nThanks, Ana'
    assert first.tags == ["login", "sso"]
    assert first.assignee == "chen-wei"
    assert tickets["1002"].status == "open"  # "In Progress"
    assert tickets["1002"].priority == "normal"  # "Medium"
    assert tickets["1003"].status == "pending"  # "On Hold"
    assert tickets["1003"].created == "2026-11-03T07:00:00Z"  # +01:00 converted
    assert tickets["1004"].priority == "urgent"  # "P1"
    assert tickets["1004"].assignee == "chen-wei"  # "chen wei" is the same person
    assert tickets["1005"].status == "new" and tickets["1005"].priority == "normal"
    assert tickets["1005"].assignee is None
    assert [(a.id, a.name) for a in queue.assignees] == [
        ("chen-wei", "Chen Wei"),
        ("ana-garcía", "Ana García"),
    ]
    assert queue.templates == []
    source = queue.source
    assert (source.kind, source.delimiter, source.encoding) == ("csv", ",", "utf-8")
    assert source.mapping["Group"] is None and source.mapping["Id"] == "id"
    assert source.extras("1001") == {"Group": "Tier 1", "Satisfaction": "good"}
    assert source.extra_columns["1003"] == {"Group": "Billing", "Satisfaction": "bad"}


@pytest.mark.parametrize(
    "name", ["helpdesk_comma.csv", "helpdesk_semicolon.csv", "all_quoted.csv", "excel_cp1252.csv"]
)
def test_unchanged_csv_is_saved_byte_for_byte(name: str, tmp_path: Path) -> None:
    queue = load_queue_file(FIXTURES / name)
    target = tmp_path / name
    save_queue_file(target, queue.tickets, queue.assignees, queue.templates, queue.source)
    assert target.read_bytes() == (FIXTURES / name).read_bytes()


def test_changed_csv_differs_only_in_the_changed_cells(tmp_path: Path) -> None:
    path = copy_fixture("helpdesk_comma.csv", tmp_path)
    queue = load_queue_file(path)
    tickets = by_id(queue)
    tickets["1002"].status = "solved"
    tickets["1003"].assignee = "chen-wei"
    tickets["1004"].tags = ["ui", "dark-mode"]
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)

    before = (FIXTURES / "helpdesk_comma.csv").read_text(encoding="utf-8").split("\n")
    after = path.read_text(encoding="utf-8").split("\n")
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed == [
        (
            "1002,Refund for order 5531,Please refund the duplicate charge.,bob@example.com,"
            "In Progress,Medium,Ana García,billing,2026-11-02 10:30,Billing,",
            # The file's own word for "solved", its assignee names, its tag separator.
            "1002,Refund for order 5531,Please refund the duplicate charge.,bob@example.com,"
            "Resolved,Medium,Ana García,billing,2026-11-02 10:30,Billing,",
        ),
        (
            "1003,Invoice address wrong,,carla@example.com,On Hold,Low,,,"
            "2026-11-03T08:00:00+01:00,Billing,bad",
            "1003,Invoice address wrong,,carla@example.com,On Hold,Low,Chen Wei,,"
            "2026-11-03T08:00:00+01:00,Billing,bad",
        ),
        (
            '1004,"Feature request: dark mode",Would love a dark theme.,dan@example.com,'
            'Resolved,P1,chen wei,"feature-request, ui",3 Nov 2026 14:05,Tier 2,',
            '1004,"Feature request: dark mode",Would love a dark theme.,dan@example.com,'
            'Resolved,P1,chen wei,"ui, dark-mode",3 Nov 2026 14:05,Tier 2,',
        ),
    ]
    again = load_queue_file(path)
    assert again.tickets == queue.tickets
    assert again.source.extra_columns == queue.source.extra_columns


def test_semicolon_csv_keeps_bom_crlf_and_delimiter(tmp_path: Path) -> None:
    path = copy_fixture("helpdesk_semicolon.csv", tmp_path)
    queue = load_queue_file(path)
    assert queue.source.delimiter == ";"
    assert queue.source.bom and queue.source.newline == "\r\n"
    tickets = by_id(queue)
    assert tickets["A-1"].subject == "Lieferung fehlt, bitte prüfen"
    assert tickets["A-2"].status == "pending"  # "waiting"
    assert tickets["A-3"].body == "Zeile eins\r\nZeile zwei"
    assert tickets["A-3"].created == "2026-11-01T07:45:00Z"  # 2026/11/01 07:45
    tickets["A-1"].tags = ["shipping", "late"]
    tickets["A-2"].priority = "urgent"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)

    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf")
    text = raw[3:].decode("utf-8")
    assert text.startswith(
        "Ticket ID;Title;Message;Customer;State;Priority;Owner;Labels;Date;Country\r\n"
    )
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    assert rows[1][7] == "shipping late"  # joined the way the file wrote tags
    assert rows[2][1] == "Rechnung; doppelt"
    assert rows[2][5] == "urgent"  # lower case, like the file's other priorities
    again = load_queue_file(path)
    assert again.tickets == queue.tickets
    assert again.source.extras("A-2") == {"Country": "FR"}


def test_new_and_removed_tickets_are_written_in_the_file_style(tmp_path: Path) -> None:
    path = copy_fixture("helpdesk_comma.csv", tmp_path)
    queue = load_queue_file(path)
    tickets = [t for t in queue.tickets if t.id != "1003"]
    tickets.append(
        Ticket(
            id="2001",
            subject="New, with comma",
            body="",
            requester="zed@example.com",
            created="2026-11-05T08:00:00Z",
            status="pending",
            priority="normal",
            assignee="ana-garcía",
            tags=["a", "b"],
        )
    )
    save_queue_file(path, tickets, queue.assignees, [], queue.source)
    rows = list(csv.reader(path.open(encoding="utf-8", newline="")))
    assert [r[0] for r in rows[1:]] == ["1001", "1002", "1004", "1005", "2001"]
    assert rows[-1] == [
        "2001",
        "New, with comma",
        "",
        "zed@example.com",
        "On Hold",
        "Medium",
        "Ana García",
        "a, b",
        "2026-11-05T08:00:00Z",
        "",
        "",
    ]
    assert load_queue_file(path).tickets == tickets


def test_a_field_the_file_lacked_gets_its_own_column_only_when_used(tmp_path: Path) -> None:
    path = write(tmp_path, "plain.csv", "id,subject\n1,Hello\n2,World\n")
    queue = load_queue_file(path)
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_text(encoding="utf-8") == "id,subject\n1,Hello\n2,World\n"

    queue.tickets[1].status = "solved"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_text(encoding="utf-8") == "id,subject,status\n1,Hello,new\n2,World,solved\n"


def test_file_without_final_newline_stays_without(tmp_path: Path) -> None:
    path = write(tmp_path, "t.csv", "id,status\n1,open\n2,new")
    queue = load_queue_file(path)
    queue.tickets[1].status = "closed"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_text(encoding="utf-8") == "id,status\n1,open\n2,closed"


def test_header_only_csv_and_empty_json_list_are_empty_queues(tmp_path: Path) -> None:
    csv_path = write(tmp_path, "none.csv", "id,subject\n")
    queue = load_queue_file(csv_path)
    assert queue.tickets == [] and queue.source.mapping == {"id": "id", "subject": "subject"}
    save_queue_file(csv_path, [], [], [], queue.source)
    assert csv_path.read_text(encoding="utf-8") == "id,subject\n"
    assert load_queue_file(write(tmp_path, "none.json", "[]")).tickets == []


def test_repeated_headers_are_kept_apart(tmp_path: Path) -> None:
    path = write(tmp_path, "jira.csv", "Issue key,Labels,Labels\nJ-1,a,b\n")
    queue = load_queue_file(path)
    assert queue.tickets[0].tags == ["a"]
    assert queue.source.extras("J-1") == {"Labels (2)": "b"}


def test_cp1252_file_from_excel_loads_with_accents() -> None:
    queue = load_queue_file(FIXTURES / "excel_cp1252.csv")
    assert queue.source.encoding == "cp1252"
    tickets = by_id(queue)
    assert tickets["W-1"].body == "The crème brûlée was missing – €12 refund?"
    assert tickets["W-2"].subject == "“Smart quotes” in subject"
    assert queue.assignees[0].name == "Zoë Françoise"


def test_utf16_tab_separated_file_loads_and_saves_back_identically(tmp_path: Path) -> None:
    path = copy_fixture("excel_unicode.txt", tmp_path)
    queue = load_queue_file(path)
    assert (queue.source.encoding, queue.source.bom, queue.source.delimiter) == (
        "utf-16-le",
        True,
        "\t",
    )
    assert by_id(queue)["U-1"].subject == "Проблема с оплатой"  # noqa: RUF001 (Cyrillic)
    assert by_id(queue)["U-2"].body == "Works now 🎉"
    assert queue.source.extras("U-1") == {"notes": "日本語のメモ"}
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_bytes() == (FIXTURES / "excel_unicode.txt").read_bytes()


def test_character_the_file_encoding_cannot_hold_is_refused_and_file_kept(tmp_path: Path) -> None:
    path = copy_fixture("excel_cp1252.csv", tmp_path)
    queue = load_queue_file(path)
    queue.tickets[0].subject = "Done ✓"
    with pytest.raises(QueueFileError, match=r"“✓” cannot be stored.*Windows-1252"):
        save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_bytes() == (FIXTURES / "excel_cp1252.csv").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["excel_cp1252.csv"]


def test_hundred_thousand_row_csv_loads(tmp_path: Path) -> None:
    path = tmp_path / "big.csv"
    statuses = ["New", "Open", "In Progress", "Waiting", "Solved", "Closed"]
    with path.open("w", encoding="utf-8", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["Ticket ID", "Subject", "Description", "Requester", "Status", "Priority",
                      "Assignee", "Tags", "Created at", "Channel"])  # fmt: skip
        for i in range(100_000):
            out.writerow(
                [
                    f"T-{i}",
                    f"Subject {i}",
                    "Hello,\nit broke.",
                    f"u{i}@example.com",
                    statuses[i % 6],
                    "Medium",
                    ("Ana", "Bob", "")[i % 3],
                    "a, b",
                    f"2026-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:15",
                    "email",
                ]
            )
    queue = load_queue_file(path)
    assert len(queue.tickets) == 100_000
    last = queue.tickets[-1]
    assert (last.id, last.status, last.tags) == ("T-99999", "pending", ["a", "b"])
    assert last.created == "2026-04-12T15:15:00Z"
    assert {a.name for a in queue.assignees} == {"Ana", "Bob"}
    assert queue.source.extras("T-500") == {"Channel": "email"}


# ---- JSON ---------------------------------------------------------------------------------------


def test_json_array_round_trip_keeps_types_extras_and_layout(tmp_path: Path) -> None:
    path = copy_fixture("tickets_array.json", tmp_path)
    queue = load_queue_file(path)
    assert queue.source.kind == "json-array"
    tickets = by_id(queue)
    assert tickets["501"].tags == ["network", "vpn"]
    assert tickets["502"].created == "2026-11-01T06:30:00Z"
    assert tickets["503"].status == "solved"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_bytes() == (FIXTURES / "tickets_array.json").read_bytes()

    tickets["502"].assignee = "ana-garcía"
    tickets["502"].status = "open"
    tickets["502"].tags = ["password"]
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    saved = json.loads(path.read_text(encoding="utf-8"))
    original = json.loads((FIXTURES / "tickets_array.json").read_text(encoding="utf-8"))
    assert saved[0] == original[0] and saved[2] == original[2]
    assert saved[1] == {
        **original[1],
        "assignee": "Ana García",
        "status": "Open",  # spelled as the file spelled it
        "labels": ["password"],
    }
    assert isinstance(saved[1]["id"], int)
    again = load_queue_file(path)
    assert again.tickets == queue.tickets
    assert again.source.extras("501") == {"custom_fields": {"plan": "pro", "seats": 12}}


def test_json_object_with_tickets_keeps_the_rest_of_the_export(tmp_path: Path) -> None:
    path = copy_fixture("tickets_object.json", tmp_path)
    queue = load_queue_file(path)
    assert queue.source.kind == "json-object"
    tickets = by_id(queue)
    assert tickets["Z-1"].assignee == "chen-wei"  # from {"id": 7, "name": "Chen Wei"}
    assert tickets["Z-1"].tags == ["mobile", "crash"]
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    assert path.read_bytes() == (FIXTURES / "tickets_object.json").read_bytes()

    tickets["Z-2"].tags = ["thanks", "happy"]
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert list(saved) == ["export", "tickets", "count", "next_page"]
    assert saved["tickets"][1]["tags"] == "thanks happy"
    assert saved["tickets"][0]["agent"] == {"id": 7, "name": "Chen Wei"}
    assert load_queue_file(path).tickets == queue.tickets


def test_understudy_document_round_trip(tmp_path: Path) -> None:
    path = copy_fixture("understudy_queue.json", tmp_path)
    queue = load_queue_file(path)
    assert queue.source.kind == "understudy"
    assert [a.id for a in queue.assignees] == ["chen", "ana"]
    assert queue.templates[0].name == "Refund approved"
    queue.tickets[1].assignee = "ana"
    save_queue_file(path, queue.tickets, queue.assignees, queue.templates, queue.source)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert (document["format"], document["version"]) == ("understudy-queue", 1)
    again = load_queue_file(path)
    assert again.tickets == queue.tickets
    assert again.assignees == queue.assignees and again.templates == queue.templates


def test_save_without_source_writes_our_document_and_accepts_dicts(tmp_path: Path) -> None:
    ticket: dict[str, Any] = {
        "id": "P-1",
        "subject": "From the page",
        "body": "",
        "requester": "a@example.com",
        "created": "2026-11-02T10:14:00+01:00",
        "status": "open",
        "priority": "high",
        "assignee": "sam",
        "tags": ["x"],
    }
    path = tmp_path / "queue.json"
    save_queue_file(path, [ticket], [{"id": "sam", "name": "Sam"}], [], None)
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["format"] == "understudy-queue"
    assert document["tickets"][0]["created"] == "2026-11-02T09:14:00Z"
    assert load_queue_file(path).tickets[0].assignee == "sam"


def test_save_as_csv_from_json_writes_standard_headers(tmp_path: Path) -> None:
    queue = load_queue_file(FIXTURES / "tickets_array.json")
    path = tmp_path / "export.csv"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    rows = list(csv.reader(path.read_text(encoding="utf-8-sig").splitlines()))
    assert tuple(rows[0]) == FIELDS
    assert rows[1] == [
        "501",
        "VPN keeps dropping",
        "Every 10 minutes.",
        "kim@example.com",
        "open",
        "high",
        "Ana García",
        "network,vpn",
        "2026-11-01T07:00:00Z",
    ]
    assert load_queue_file(path).tickets == queue.tickets


def test_save_as_json_from_csv_writes_our_document(tmp_path: Path) -> None:
    queue = load_queue_file(FIXTURES / "helpdesk_comma.csv")
    path = tmp_path / "triaged.json"
    save_queue_file(path, queue.tickets, queue.assignees, [], queue.source)
    again = load_queue_file(path)
    assert again.source.kind == "understudy"
    assert again.tickets == queue.tickets and again.assignees == queue.assignees


def test_invalid_tickets_are_not_saved(tmp_path: Path) -> None:
    path = write(tmp_path, "queue.json", "keep me")
    bad = {"id": "1", "subject": "", "body": "", "requester": "", "created": "2026-01-01",
           "status": "maybe", "priority": "low", "assignee": None, "tags": []}  # fmt: skip
    with pytest.raises(QueueFileError, match=r"Ticket 1, field “status”.*“maybe”"):
        save_queue_file(path, [bad], [], [], None)
    good = {**bad, "status": "new"}
    with pytest.raises(QueueFileError, match="used twice"):
        save_queue_file(path, [good, good], [], [], None)
    assert path.read_text(encoding="utf-8") == "keep me"


def test_failed_replace_leaves_the_old_file_and_no_temp_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = copy_fixture("understudy_queue.json", tmp_path)
    queue = load_queue_file(path)

    def refuse(*_args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "replace", refuse)
    with pytest.raises(QueueFileError, match="permission to save"):
        save_queue_file(path, queue.tickets, queue.assignees, queue.templates, None)
    assert path.read_bytes() == (FIXTURES / "understudy_queue.json").read_bytes()
    assert [p.name for p in tmp_path.iterdir()] == ["understudy_queue.json"]


def test_saving_into_a_missing_folder_says_so(tmp_path: Path) -> None:
    with pytest.raises(QueueFileError, match="folder does not exist"):
        save_queue_file(tmp_path / "gone" / "q.json", [], [], [], None)


# ---- preview ------------------------------------------------------------------------------------


def test_preview_describes_format_mapping_and_first_rows() -> None:
    preview = preview_queue_file(FIXTURES / "helpdesk_comma.csv", rows=2)
    assert preview.description == "CSV, UTF-8, comma-separated"
    assert preview.total == 5
    assert [t.id for t in preview.tickets] == ["1001", "1002"]
    mapping = {c.name: (c.field, c.example) for c in preview.columns}
    assert mapping["Status"] == ("status", "Open")
    assert mapping["Group"] == (None, "Tier 1")
    assert mapping["Satisfaction"] == (None, "good")
    assert mapping["Description"][1].startswith("Hi team, I get")
    assert len(mapping["Description"][1]) <= 40
    assert any("“Group”, “Satisfaction”" in note for note in preview.notes)
    assert preview.queue.tickets[4].id == "1005"


@pytest.mark.parametrize(
    ("name", "description"),
    [
        ("helpdesk_semicolon.csv", "CSV, UTF-8, semicolon-separated"),
        ("excel_cp1252.csv", "CSV, Windows-1252, semicolon-separated"),
        ("excel_unicode.txt", "CSV, UTF-16, tab-separated"),
        ("tickets_array.json", "JSON, UTF-8"),
        ("understudy_queue.json", "Understudy queue, UTF-8"),
    ],
)
def test_preview_names_the_detected_format(name: str, description: str) -> None:
    assert preview_queue_file(FIXTURES / name).description == description


def test_preview_raises_the_same_errors(tmp_path: Path) -> None:
    path = write(tmp_path, "x.csv", "subject\nhello\n")
    with pytest.raises(QueueFileError, match="no ticket id column"):
        preview_queue_file(path)


# ---- files that cannot be opened ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("empty.csv", b"", ["empty"]),
        ("blank.csv", b"\xef\xbb\xbf \r\n", ["empty"]),
        ("noid.csv", "Subject,Status\nHi,open\n", ["no ticket id column", '“id”', '“Subject”']),
        ("noid.json", '[{"title": "x"}]', ["no id field", '“id”']),
        ("dup.csv", "id,status\n1,open\n2,open\n1,new\n", ["Row 4", '“1”', "used twice", "row 2"]),
        ("emptyid.csv", "id,status\n1,open\n  ,open\n", ["Row 3", "id is empty"]),
        ("emptyid.json", '[{"id": "a"}, {"id": ""}]', ["Ticket 2", "id is empty"]),
        ("status.json", '[{"id": 1, "status": {"name": "Open"}}]',
         ["Ticket 1", 'column “status”', "a word or a number"]),
        ("date.csv", "id,created\n1,yesterday\n", ["Row 2", '“yesterday”', "year-month-day"]),
        ("ambiguous.csv", "id,created\n1,02/11/2026\n", ["Row 2", "day/month or month/day"]),
        ("impossible.csv", "id,created\n1,2026-02-30\n", ["Row 2", "does not exist"]),
        ("cells.csv", "id,subject\n1,a\n2,b,c\n", ["Row 3", "3 cells", "2 columns", "quotes"]),
        ("quote.csv", 'id,subject\n1,ok\n2,"never closed\n3,x\n', ["Line 3", "never closed"]),
        ("broken.json", '[{"id": 1},\n {"id": 2}\n {"id": 3}]', ["not valid JSON", "line 3",
                                                               "comma is missing"]),
        ("trailing.json", '[{"id": 1},]', ["not valid JSON", "line 1", "extra comma"]),
        ("scalar.json", '"tickets"', ["no list of tickets"]),
        ("nottickets.json", '{"items": []}', ["no list of tickets"]),
        ("items.json", "[1, 2]", ["Ticket 1", "not a ticket"]),
        ("nul.csv", b"id,subject\n1,a\x00b\n", ["not look like a text file"]),
        ("tickets.xlsx", b"PK\x03\x04\x14\x00\x06\x00" + bytes(200), ["workbook", "CSV UTF-8"]),
        ("binary.csv", bytes(range(256)) * 8 + b"\x81\x8d\x8f\x90\x9d" * 50,
         ["could not work out", "encoded", "CSV UTF-8"]),
        (
            "newer.json",
            '{"format": "understudy-queue", "version": 2, "tickets": []}',
            ["newer version", "Update the app"],
        ),
        (
            "baddoc.json",
            '{"format": "understudy-queue", "version": 1, "tickets": [{"id": "1", "subject": "",'
            ' "body": "", "requester": "", "created": "2026-01-01T00:00:00Z", "status": "maybe",'
            ' "priority": "low", "assignee": null, "tags": []}]}',
            ["Ticket 1", 'field “status”', '“maybe”'],
        ),
        (
            "unknown_assignee.json",
            '{"format": "understudy-queue", "version": 1, "tickets": [{"id": "1", "subject": "",'
            ' "body": "", "requester": "", "created": "2026-01-01T00:00:00Z", "status": "new",'
            ' "priority": "low", "assignee": "ghost", "tags": []}], "assignees": []}',
            ['“ghost”', "not in the list of assignees"],
        ),
    ],
)  # fmt: skip
def test_bad_files_get_a_plain_error_naming_file_and_place(
    tmp_path: Path, name: str, content: str | bytes, words: list[str]
) -> None:
    error = open_error(write(tmp_path, name, content))
    message = str(error)
    assert message.startswith(f"Could not open {name}. ")
    for word in words:
        assert word in message
    assert "Traceback" not in message and "pydantic" not in message.lower()


PYTHON_JSON_WORDS = ("Expecting", "delimiter", "Illegal", "Unterminated", "char ", "Invalid")


@pytest.mark.parametrize(
    "text",
    [
        '[{"id": 1},]',  # trailing comma in a list (Python 3.13 words it anew)
        '[{"id": 1,}]',  # trailing comma in an object
        '[{"id" 1}]',
        '[{"id": "open]',
        '[{"id": 1}] x',
        "[{id: 1}]",
        '[{"id": 1}',
        "[\x01]",
        '["a\\q"]',  # an escape JSON does not know: Python says "Invalid \\escape"
    ],
)
def test_every_json_mistake_is_said_in_our_words_whatever_python_says(
    tmp_path: Path, text: str
) -> None:
    """Python's own messages differ between versions and are not for people: each mistake
    gets one of the app's phrases, never Python's."""
    message = str(open_error(write(tmp_path, "bad.json", text)))
    assert "It is not valid JSON: line 1, column " in message
    assert not [w for w in PYTHON_JSON_WORDS if w in message], message


def test_every_bad_row_is_counted_not_just_the_first(tmp_path: Path) -> None:
    path = write(tmp_path, "many.csv", "id,created\n1,maybe\n2,2026-01-01\n3,perhaps\n4,nah\n")
    error = open_error(path)
    assert "(There are 2 more problems like this in the file.)" in str(error)
    assert (error.row, error.column) == (2, "created")
    assert [p.split(":")[0] for p in error.problems] == [
        "Row 2, column “created”",
        "Row 4, column “created”",
        "Row 5, column “created”",
    ]


def test_huge_cell_values_are_cut_short_in_messages(tmp_path: Path) -> None:
    path = write(tmp_path, "long.csv", "id,created\n1," + "x" * 5000 + "\n")
    message = str(open_error(path))
    assert "x" * 39 + "…" in message
    assert "x" * 41 not in message
    assert len(message) < 300


def test_missing_file(tmp_path: Path) -> None:
    message = str(open_error(tmp_path / "gone.csv"))
    assert "gone.csv" in message and "not found" in message


def test_folder_is_not_a_file(tmp_path: Path) -> None:
    (tmp_path / "folder.csv").mkdir()
    assert "folder, not a file" in str(open_error(tmp_path / "folder.csv"))


def test_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = write(tmp_path, "locked.csv", "id\n1\n")

    def refuse(_self: Path) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_bytes", refuse)
    assert "permission to read" in str(open_error(path))


def test_file_over_the_size_limit_is_refused_before_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert file_text.MAX_FILE_BYTES == 200 * 1024 * 1024
    monkeypatch.setattr(file_text, "MAX_FILE_BYTES", 1024 * 1024)
    path = write(tmp_path, "huge.csv", b"id\n" + b"1\n" * (1024 * 1024))
    message = str(open_error(path))
    assert "too large" in message and "2 MB" in message and "limit is 1 MB" in message


# ---- numeric codes, unknown values and import choices -------------------------------------------

FRESHDESK = "freshdesk_export.csv"
FRESHDESK_CHOICES = ImportChoices(
    columns={"description_text": "body", "responder_name": "assignee"},
    values={"status": {"Escalated to L2": "pending"}},
)


def csv_lines(path: Path) -> list[str]:
    return path.read_bytes().decode("utf-8").split("\r\n")


@pytest.mark.parametrize(
    ("raw", "status", "priority"),
    [("2", "open", "normal"), ("3", "pending", "high"), ("4", "solved", "urgent"),
     ("5", "closed", None), ("1", None, "low"), (" 02 ", "open", "normal")],
)  # fmt: skip
def test_freshdesk_numbers_are_known_words(
    raw: str, status: str | None, priority: str | None
) -> None:
    for parse, expected in ((normalise_status, status), (normalise_priority, priority)):
        if expected is None:
            with pytest.raises(CellValueError):
                parse(raw)
        else:
            assert parse(raw) == expected


def test_freshdesk_export_opens_with_numeric_codes_by_default() -> None:
    queue = load_queue_file(FIXTURES / FRESHDESK)
    tickets = by_id(queue)
    assert [(t.id, t.status, t.priority) for t in queue.tickets] == [
        ("4101", "open", "high"),
        ("4102", "pending", "normal"),
        ("4103", "open", "urgent"),  # "Escalated to L2": not known, so open for now
        ("4104", "solved", "low"),
        ("4105", "closed", "low"),
        ("4106", "open", "urgent"),
        ("4107", "pending", "low"),
    ]
    assert tickets["4101"].requester == "ana@example.com"
    assert tickets["4101"].tags == ["login", "password"]
    assert tickets["4101"].created == "2026-11-02T09:14:05Z"
    # Freshdesk's plain-text description and its agent's name are guessed for what they are.
    assert queue.source.mapping["description_text"] == "body"
    assert queue.source.mapping["responder_name"] == "assignee"
    assert tickets["4101"].body.startswith("Hi, the reset link says it has expired.")
    assert tickets["4101"].assignee == "chen-wei"
    assert any("Freshdesk codes (2 = open, 3 = pending, 4 = solved, 5 = closed)" in note
               for note in queue.notes)  # fmt: skip
    assert any("(1 = low, 2 = normal, 3 = high, 4 = urgent)" in note for note in queue.notes)


def test_an_unknown_status_does_not_block_the_file_and_is_reported() -> None:
    queue = load_queue_file(FIXTURES / FRESHDESK)
    assert len(queue.tickets) == 7
    assert queue.values.unknown == {"status": ("Escalated to L2",), "priority": ()}
    assert queue.values.meanings["status"]["Escalated to L2"] == "open"
    note = next(note for note in queue.notes if "Escalated to L2" in note)
    assert note == (
        "Understudy does not know the status “Escalated to L2”, so the ticket with it is set to "
        "open for now. You can choose what it means when you open the file."
    )


def test_several_unknown_values_are_counted_in_one_plain_note(tmp_path: Path) -> None:
    rows = ["id,status,priority"] + [
        f"{i},{status},{priority}"
        for i, (status, priority) in enumerate(
            [("Triage", "sky-high"), ("Triage", "2"), ("With vendor", "meh"), ("Parked", ""),
             ("Q", "1"), ("R", "1"), ("open", "3")]
        )
    ]  # fmt: skip
    queue = load_queue_file(write(tmp_path, "odd.csv", "\n".join(rows) + "\n"))
    by = by_id(queue)
    assert by["0"].status == "open" and by["0"].priority == "normal"
    assert by["2"].priority == "normal" and by["3"].priority == "normal"
    assert queue.values.unknown == {
        "status": ("Triage", "With vendor", "Parked", "Q", "R"),
        "priority": ("sky-high", "meh"),
    }
    notes = [note for note in queue.notes if note.startswith("Understudy does not know")]
    assert notes == [
        "Understudy does not know the statuses “Triage”, “With vendor”, “Parked”, “Q” and 1 "
        "more, so the 6 tickets with them are set to open for now. You can choose what they "
        "mean when you open the file.",
        "Understudy does not know the priorities “sky-high” and “meh”, so the 2 tickets with "
        "them are set to normal for now. You can choose what they mean when you open the file.",
    ]


def test_unknown_values_in_notes_are_cut_short(tmp_path: Path) -> None:
    queue = load_queue_file(write(tmp_path, "long.csv", "id,status\n1," + "x" * 5000 + "\n"))
    assert queue.tickets[0].status == "open"
    assert all(len(note) < 300 for note in queue.notes)
    assert any("x" * 29 + "…" in note for note in queue.notes)


def test_loading_with_choices_maps_the_chosen_columns_and_values() -> None:
    queue = load_queue_file(FIXTURES / FRESHDESK, FRESHDESK_CHOICES)
    tickets = by_id(queue)
    assert queue.source.mapping["description_text"] == "body"
    assert queue.source.mapping["responder_name"] == "assignee"
    assert tickets["4101"].body == (
        "Hi, the reset link says it has expired.\r\nI tried three times this morning."
    )
    assert tickets["4104"].body == ""
    assert tickets["4101"].assignee == "chen-wei"
    assert tickets["4105"].assignee is None
    assert [(a.id, a.name) for a in queue.assignees] == [
        ("chen-wei", "Chen Wei"),
        ("ana-garcía", "Ana García"),
        ("priya-nair", "Priya Nair"),
    ]
    assert tickets["4103"].status == "pending"
    assert queue.values.unknown["status"] == ()
    assert not any("Escalated" in note for note in queue.notes)
    assert queue.notes[0] == (
        "1 column is not used: “group_name”. It is kept and saved back unchanged."
    )
    # The same file without choices still guesses.
    assert load_queue_file(FIXTURES / FRESHDESK).source.mapping["description_text"] == "body"


def test_a_chosen_column_takes_its_field_from_the_guessed_one() -> None:
    choices = ImportChoices(columns={"description_text": "subject", "subject": None})
    queue = load_queue_file(FIXTURES / FRESHDESK, choices)
    assert queue.source.mapping["subject"] is None
    assert queue.tickets[1].subject == "Please refund the second charge on my card."
    # Choosing a field for one column is enough: the guessed column gives it up.
    queue = load_queue_file(FIXTURES / FRESHDESK, ImportChoices(columns={"group_name": "tags"}))
    assert queue.source.mapping["tags"] is None
    assert queue.tickets[0].tags == ["tier", "1"]
    assert queue.source.extras("4101")["tags"] == "login,password"


def test_choices_can_give_numbers_another_meaning() -> None:
    reverse = {"1": "urgent", "2": "high", "3": "normal", "4": "low"}
    queue = load_queue_file(FIXTURES / FRESHDESK, ImportChoices(values={"priority": reverse}))
    assert [t.priority for t in queue.tickets] == [
        "normal", "high", "low", "urgent", "urgent", "low", "urgent"
    ]  # fmt: skip
    assert not any("priority column were read as Freshdesk" in note for note in queue.notes)


def test_chosen_spellings_match_regardless_of_case_and_spaces(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "id,status\n1,ESCALATED TO L2\n2, escalated_to_l2 \n")
    queue = load_queue_file(path, FRESHDESK_CHOICES)
    assert [t.status for t in queue.tickets] == ["pending", "pending"]


def test_choosing_no_id_column_says_so_plainly() -> None:
    with pytest.raises(QueueFileError) as caught:
        load_queue_file(FIXTURES / FRESHDESK, ImportChoices(columns={"id": None}))
    assert str(caught.value) == (
        "Could not open freshdesk_export.csv. No column is used as the ticket id. Choose the "
        'column that holds each ticket\'s id (under "Use as…", pick "Ticket id").'
    )


def test_preview_offers_every_distinct_value_and_what_it_became() -> None:
    preview = preview_queue_file(FIXTURES / FRESHDESK, rows=2)
    with (FIXTURES / FRESHDESK).open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    for name in ("status", "priority"):
        distinct = list(dict.fromkeys(row[name] for row in rows))
        assert list(preview.value_choices[name]) == distinct
        assert sum(preview.value_counts[name].values()) == len(rows)
    assert preview.value_choices["status"] == {
        "2": "open", "3": "pending", "Escalated to L2": "open", "4": "solved", "5": "closed"
    }  # fmt: skip
    assert preview.value_choices["priority"] == {
        "3": "high", "2": "normal", "4": "urgent", "1": "low"
    }  # fmt: skip
    assert preview.unknown_values == {"status": ("Escalated to L2",), "priority": ()}
    assert preview.value_counts["status"]["Escalated to L2"] == 1
    assert preview.choices is None
    mapping = {c.key: (c.field, c.example) for c in preview.columns}
    assert mapping["description_text"] == ("body", "Hi, the reset link says it has expired.…")

    chosen = preview_queue_file(FIXTURES / FRESHDESK, rows=2, choices=FRESHDESK_CHOICES)
    assert chosen.choices == FRESHDESK_CHOICES
    assert chosen.value_choices["status"]["Escalated to L2"] == "pending"
    assert chosen.unknown_values["status"] == ()
    assert [c.field for c in chosen.columns if c.key == "responder_name"] == ["assignee"]
    assert chosen.assignee_name(chosen.tickets[0].assignee) == "Chen Wei"


def test_value_choices_are_empty_for_fields_the_file_does_not_have() -> None:
    preview = preview_queue_file(FIXTURES / "understudy_queue.json")
    assert preview.value_choices == {"status": {}, "priority": {}}
    assert preview.unknown_values == {"status": (), "priority": ()}


def test_unchanged_freshdesk_export_saves_byte_for_byte(tmp_path: Path) -> None:
    for choices in (None, FRESHDESK_CHOICES):
        queue = load_queue_file(FIXTURES / FRESHDESK, choices)
        target = tmp_path / f"{choices is None}.csv"
        save_queue_file(target, queue.tickets, queue.assignees, [], queue.source)
        assert target.read_bytes() == (FIXTURES / FRESHDESK).read_bytes()


@pytest.mark.parametrize("restart", [False, True], ids=["live", "after-restart"])
@pytest.mark.parametrize("chosen", [False, True], ids=["guessed", "chosen"])
def test_saving_back_keeps_the_files_own_spellings(
    tmp_path: Path, chosen: bool, restart: bool
) -> None:
    path = copy_fixture(FRESHDESK, tmp_path)
    queue = load_queue_file(path, FRESHDESK_CHOICES if chosen else None)
    source = queue.source
    if restart:
        source = source_from_state(json.loads(json.dumps(source_to_state(source))))
    tickets = by_id(queue)
    tickets["4101"].status = "closed"  # was "2"
    tickets["4102"].priority = "urgent"  # was "2"
    tickets["4104"].status = "pending"  # was "4"
    save_queue_file(path, queue.tickets, queue.assignees, [], source)

    before = csv_lines(FIXTURES / FRESHDESK)
    after = csv_lines(path)
    changed = [(old, new) for old, new in zip(before, after, strict=True) if old != new]
    assert changed == [
        # A quoted multi-line cell ends on the second physical line of ticket 4101.
        (
            'I tried three times this morning.",2,3,ana@example.com,Chen Wei,"login,password",'
            "2026-11-02 09:14:05,Tier 1",
            'I tried three times this morning.",5,3,ana@example.com,Chen Wei,"login,password",'
            "2026-11-02 09:14:05,Tier 1",
        ),
        (
            "4102,Charged twice for October,Please refund the second charge on my card.,3,2,"
            "bob@example.com,Ana García,billing,2026-11-02 10:30:00,Billing",
            "4102,Charged twice for October,Please refund the second charge on my card.,3,4,"
            "bob@example.com,Ana García,billing,2026-11-02 10:30:00,Billing",
        ),
        (
            "4104,How do I add a teammate?,,4,1,dan@example.com,Chen Wei,,2026-11-03 08:00:00,"
            "Tier 1",
            # Pending is written as the file's "3", never as the chosen "Escalated to L2".
            "4104,How do I add a teammate?,,3,1,dan@example.com,Chen Wei,,2026-11-03 08:00:00,"
            "Tier 1",
        ),
    ]
    # "Escalated to L2" (row 4103) was left alone, so it is written back as it was.
    assert any(line.startswith("4103,") and ",Escalated to L2," in line for line in after)
    again = load_queue_file(path, FRESHDESK_CHOICES if chosen else None)
    assert again.tickets == queue.tickets


def test_a_value_the_file_never_used_is_written_as_its_freshdesk_number(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "id,status,priority\n1,2,1\n2,3,1\n")
    queue = load_queue_file(path)
    queue.tickets[0].status = "closed"
    queue.tickets[1].priority = "urgent"
    save_queue_file(path, queue.tickets, [], [], queue.source)
    assert path.read_text(encoding="utf-8") == "id,status,priority\n1,5,1\n2,3,4\n"


def test_a_spelling_that_only_got_a_default_is_never_reused(tmp_path: Path) -> None:
    path = write(tmp_path, "q.csv", "id,status\n1,Escalated to L2\n2,Pending\n")
    queue = load_queue_file(path)
    assert queue.source.vocabulary["status"] == {"pending": "Pending"}
    queue.tickets[1].status = "open"
    save_queue_file(path, queue.tickets, [], [], queue.source)
    assert path.read_text(encoding="utf-8") == "id,status\n1,Escalated to L2\n2,Open\n"


def test_json_numeric_codes_are_read_and_written_as_numbers(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "fd.json",
        '[{"id": 1, "status": 2, "priority": 1}, {"id": 2, "status": 6, "priority": 3}]',
    )
    queue = load_queue_file(path)
    assert [(t.status, t.priority) for t in queue.tickets] == [("open", "low"), ("open", "high")]
    assert queue.values.unknown["status"] == ("6",)
    queue.tickets[0].status = "closed"
    queue.tickets.append(queue.tickets[1].model_copy(update={"id": "3", "priority": "urgent"}))
    save_queue_file(path, queue.tickets, [], [], queue.source)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert [(item["id"], item["status"], item["priority"]) for item in saved] == [
        (1, 5, 1),
        (2, 6, 3),
        (3, 2, 4),
    ]


def test_choices_json_round_trip() -> None:
    data = FRESHDESK_CHOICES.to_json()
    assert data == {
        "version": 1,
        "columns": {"description_text": "body", "responder_name": "assignee"},
        "values": {"status": {"Escalated to L2": "pending"}},
    }
    again = ImportChoices.from_json(json.loads(json.dumps(data)))
    assert again == FRESHDESK_CHOICES
    assert hash(again) == hash(FRESHDESK_CHOICES)
    assert ImportChoices.from_json(ImportChoices().to_json()) == ImportChoices()
    unused = ImportChoices(columns={"group_name": None})
    assert ImportChoices.from_json(unused.to_json()).columns == {"group_name": None}


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([], "not a set of named values"),
        ({"columns": {}}, "no version number"),
        ({"version": True}, "no version number"),
        ({"version": 2}, "newer version"),
        ({"version": 0}, "format this version"),
        ({"version": 1, "columns": ["id"]}, "not listed by name"),
        ({"version": 1, "columns": {"Foo": "mood"}}, "the column “Foo” is used as a ticket field"),
        ({"version": 1, "columns": {"A": "id", "B": "id"}}, "columns “A” and “B” are both used"),
        ({"version": 1, "values": {"tags": {"x": "y"}}}, "only be chosen for status and priority"),
        ({"version": 1, "values": {"status": ["open"]}}, "not listed as pairs"),
        ({"version": 1, "values": {"status": {"x": 3}}}, "should be text"),
        ({"version": 1, "values": {"status": {"Parked": "later"}}}, "“Parked” is set to “later”"),
        ({"version": 1, "values": {"priority": {"P9": "open"}}}, "low, normal, high, urgent"),
    ],
)
def test_bad_choices_json_is_refused_in_plain_words(data: Any, words: str) -> None:
    with pytest.raises(QueueFileError) as caught:
        ImportChoices.from_json(data)
    message = str(caught.value)
    assert message.startswith("The choices remembered for this kind of file cannot be used: ")
    assert words in message
    assert message.endswith("Choose the columns and values again when you open the file.")


def test_choices_are_copied_and_changed_by_making_new_ones() -> None:
    columns: dict[str, Any] = {"subject": "subject"}
    choices = ImportChoices(columns=columns)
    columns["subject"] = None
    assert choices.columns == {"subject": "subject"}
    moved = choices.with_column("description_text", "subject")
    assert moved.columns == {"subject": None, "description_text": "subject"}
    assert choices.columns == {"subject": "subject"}
    valued = moved.with_value("status", " Escalated to L2 ", "pending")
    assert valued.value_for("status", "Escalated to L2") == "pending"
    assert moved.value_for("status", "Escalated to L2") is None


def test_source_signature_names_the_kind_of_file(tmp_path: Path) -> None:
    preview = preview_queue_file(FIXTURES / FRESHDESK)
    signature = source_signature(preview)
    assert len(signature) == 16 and int(signature, 16) >= 0
    assert source_signature(preview.queue) == signature
    assert source_signature(preview.queue.source) == signature
    # Another export of the same helpdesk: other tickets, other encoding and delimiter.
    text = (FIXTURES / FRESHDESK).read_text(encoding="utf-8")
    header = text.split("\n", 1)[0]
    other = write(tmp_path, "other.csv", (header + "\n9,Hi,,2,1,x@example.com,,,,\n").replace(
        ",", ";").encode("cp1252"))  # fmt: skip
    assert source_signature(load_queue_file(other)) == signature
    # Choices do not change what kind of file it is.
    assert source_signature(load_queue_file(FIXTURES / FRESHDESK, FRESHDESK_CHOICES)) == signature
    assert source_signature(preview_queue_file(FIXTURES / "helpdesk_comma.csv")) != signature
    # JSON key order carries no meaning, so it does not change the signature.
    first = write(tmp_path, "a.json", '[{"id": 1, "status": "open"}]')
    second = write(tmp_path, "b.json", '{"tickets": [{"status": "new", "id": 2}]}')
    assert source_signature(load_queue_file(first)) == source_signature(load_queue_file(second))
    assert source_signature(load_queue_file(first)) != source_signature(
        load_queue_file(write(tmp_path, "c.csv", "id,status\n1,open\n"))
    )
