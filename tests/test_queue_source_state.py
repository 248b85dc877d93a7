"""A queue's source kept as JSON (for the app database) must save exactly like the live one."""

from __future__ import annotations

import contextlib
import csv
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from understudy_desktop.queue_io import (
    LoadedQueue,
    QueueFileError,
    QueueSource,
    Ticket,
    load_queue_file,
    save_queue_file,
    source_from_state,
    source_to_state,
)
from understudy_desktop.queue_io.models import Priority, Status

FIXTURES = Path(__file__).parent / "fixtures" / "queues"
# Every queue fixture, CSV (.csv, and Excel's tab-separated .txt) and JSON alike.
FIXTURE_NAMES = sorted(
    p.name for p in FIXTURES.iterdir() if p.suffix.casefold() in (".csv", ".txt", ".json")
)
HUGE_BODY = "long line\n" * 20_000  # 200 KB: over the csv module's default cell limit
# CSV shapes the fixtures lack, written on the fly: leading blank lines, blank rows, repeated
# headers, no final newline, old Mac line endings, a cell over the csv module's 128 KB limit.
EDGE_CSVS = {
    "blank_lines.csv": '\r\n\r\nId,Labels,Labels,Note\r\n1,a,b,"two\r\nlines"\r\n\r\n2,c,d,e',
    "mac.csv": 'Id,Subject,Status,Extra\r1,Hi,Open,x\r2,"multi\rline",Pending,\r',
    "huge_cell.csv": f'Id,Description,Extra\n1,"{HUGE_BODY}",kept\n2,short,kept\n',
}
# The writer spells a new ticket's tags like the first record's (list or text): order matters.
EDGE_JSONS = {
    "mixed_tags.json": '[{"id": 1, "tags": ["a"], "x": 1}, {"id": 2, "tags": "b c", "x": 2}]',
}
EDGE_FILES = {**EDGE_CSVS, **EDGE_JSONS}
ALL_NAMES = FIXTURE_NAMES + sorted(EDGE_FILES)
# Triage moves: always a different value, so the change shows in the saved file.
NEXT_STATUS: dict[str, Status] = {
    "new": "open", "open": "pending", "pending": "solved", "solved": "closed", "closed": "open"
}  # fmt: skip
NEXT_PRIORITY: dict[str, Priority] = {
    "low": "normal", "normal": "high", "high": "urgent", "urgent": "low"
}  # fmt: skip


def copy_fixture(name: str, tmp_path: Path) -> Path:
    target = tmp_path / name
    shutil.copyfile(FIXTURES / name, target)
    return target


def queue_file(name: str, tmp_path: Path) -> Path:
    if name in EDGE_FILES:
        path = tmp_path / name
        path.write_text(EDGE_FILES[name], encoding="utf-8", newline="")
        return path
    return copy_fixture(name, tmp_path)


def through_json(source: QueueSource) -> QueueSource:
    """What the app does: state -> JSON text in the database -> state -> source."""
    text = json.dumps(source_to_state(source), ensure_ascii=False)
    return source_from_state(json.loads(text))


def save_bytes(path: Path, queue: LoadedQueue, source: QueueSource) -> bytes:
    save_queue_file(path, queue.tickets, queue.assignees, queue.templates, source)
    return path.read_bytes()


def change_some_tickets(queue: LoadedQueue) -> None:
    """Triage a few tickets the way a person would, staying within what the models accept."""
    first, second = queue.tickets[0], queue.tickets[-1]
    first.status = NEXT_STATUS[first.status]
    first.tags = ["triaged", *(tag for tag in first.tags if tag != "triaged")]
    second.priority = NEXT_PRIORITY[second.priority]
    # Only assignees the queue knows: the app's own queue document refuses any other.
    known = [a.id for a in queue.assignees if a.id != second.assignee]
    second.assignee = known[0] if known else None
    queue.tickets.append(
        Ticket(
            id="NEW-1",
            subject="Added in the console",
            body="Line one\nline two",
            requester="new@example.com",
            created="2026-11-05T08:00:00Z",
            status="open",
            priority="high",
            assignee=queue.assignees[0].id if queue.assignees else None,
            tags=["new", "added"],
        )
    )


def assert_same_saves(path: Path, tmp_path: Path, *, changed: bool) -> None:
    queue = load_queue_file(path)
    restored = through_json(queue.source)
    unchanged = save_bytes(tmp_path / "unchanged" / path.name, queue, queue.source)
    if changed:
        change_some_tickets(queue)
    saved = save_bytes(tmp_path / "live" / path.name, queue, queue.source)
    saved_after_restart = save_bytes(tmp_path / "restored" / path.name, queue, restored)
    assert saved_after_restart == saved
    # Guards the test itself: the changes must have reached the file.
    assert (saved != unchanged) is changed


@pytest.fixture
def tmp_dirs(tmp_path: Path) -> Path:
    for name in ("unchanged", "live", "restored", "queue"):
        (tmp_path / name).mkdir()
    return tmp_path


# ---- lossless round trip -----------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_NAMES)
def test_state_is_json_and_rebuilds_an_equal_source(name: str, tmp_dirs: Path) -> None:
    source = load_queue_file(queue_file(name, tmp_dirs / "queue")).source
    state = source_to_state(source)
    assert state["version"] == 1
    text = json.dumps(state, ensure_ascii=False)
    restored = source_from_state(json.loads(text))
    assert restored == source
    # Dataclass equality ignores the order of dict entries, which the writer depends on.
    assert list(restored.csv_records.items()) == list(source.csv_records.items())
    assert json.dumps(list(restored.json_records.items())) == json.dumps(
        list(source.json_records.items())
    )
    assert json.dumps(restored.json_envelope) == json.dumps(source.json_envelope)
    assert json.dumps(restored.vocabulary) == json.dumps(source.vocabulary)


@pytest.mark.parametrize("changed", [False, True], ids=["unchanged", "changed"])
@pytest.mark.parametrize("name", ALL_NAMES)
def test_restored_source_saves_byte_identical_files(
    name: str, changed: bool, tmp_dirs: Path
) -> None:
    assert_same_saves(queue_file(name, tmp_dirs / "queue"), tmp_dirs, changed=changed)


def test_fixtures_include_bom_extra_columns_and_a_multiline_body() -> None:
    """Why no zendesk_export.csv was added: helpdesk_semicolon.csv already has all three."""
    names = []
    for name in FIXTURE_NAMES:
        source = load_queue_file(FIXTURES / name).source
        multiline_body = any(
            "\n" in record.cells[index] or "\r" in record.cells[index]
            for record in source.csv_records.values()
            for index, column in enumerate(source.columns)
            if column.field == "body"
        )
        has_extras = any(column.field is None for column in source.columns)
        if source.kind == "csv" and source.bom and has_extras and multiline_body:
            names.append(name)
    assert "helpdesk_semicolon.csv" in names


def test_cells_over_the_csv_default_limit_restore_in_a_fresh_process(tmp_dirs: Path) -> None:
    """After a restart nothing has raised the csv module's 128 KB cell limit yet."""
    path = queue_file("huge_cell.csv", tmp_dirs / "queue")
    queue = load_queue_file(path)
    text = json.dumps(source_to_state(queue.source))
    # The cells are re-derived from the text on restore, not stored a second time.
    assert len(text) < 1.2 * len(queue.source.text)
    state = json.loads(text)
    limit = csv.field_size_limit()
    csv.field_size_limit(128 * 1024)
    try:
        restored = source_from_state(state)
    finally:
        csv.field_size_limit(limit)
    assert restored == queue.source


# ---- damaged states ----------------------------------------------------------------------------


def csv_state(tmp_dirs: Path) -> dict[str, Any]:
    source = load_queue_file(queue_file("helpdesk_comma.csv", tmp_dirs / "queue")).source
    state: dict[str, Any] = json.loads(json.dumps(source_to_state(source)))
    return state


def json_state(tmp_dirs: Path) -> dict[str, Any]:
    source = load_queue_file(queue_file("tickets_object.json", tmp_dirs / "queue")).source
    state: dict[str, Any] = json.loads(json.dumps(source_to_state(source)))
    return state


def refused(state: Any) -> QueueFileError:
    with pytest.raises(QueueFileError) as caught:
        source_from_state(state)
    assert str(caught.value).startswith("The remembered details of the queue file cannot be used")
    return caught.value


@pytest.mark.parametrize("state", [None, [], "{}", 42, b"{}"])
def test_a_state_that_is_not_a_dict_is_refused(state: Any) -> None:
    refused(state)


@pytest.mark.parametrize("version", [0, 2, "1", 1.0, True, None])
def test_an_unknown_version_is_refused(version: Any, tmp_dirs: Path) -> None:
    error = refused({**csv_state(tmp_dirs), "version": version})
    if version == 2:
        assert "newer version" in str(error)


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_every_missing_key_is_refused(kind: str, tmp_dirs: Path) -> None:
    state = csv_state(tmp_dirs) if kind == "csv" else json_state(tmp_dirs)
    for key in state:
        error = refused({k: v for k, v in state.items() if k != key})
        assert f"“{key}” entry is missing" in str(error)


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("kind", "xml"),
        ("path", ""),
        ("path", None),
        ("encoding", "klingon"),
        ("bom", "yes"),
        ("newline", "\n\n"),
        ("final_newline", 1),
        ("delimiter", ";;"),
        ("quoting", 7),
        ("quoting", True),
        ("text", None),
        ("columns", {}),
        ("columns", [["Id", "Id", "id"]]),
        ("columns", [{"name": "Id", "key": "Id", "field": "colour"}]),
        ("csv_header", [0]),
        ("csv_header", [1, 50]),
        ("csv_header", [0, 10_000_000]),
        ("csv_records", {"1001": [0, 1]}),
        ("csv_records", [["1001", "0", "10"]]),
        ("csv_records", [["1001", 3, 1]]),
        ("json_records", {}),
        ("json_records", [["1", "not an object"]]),
        ("json_envelope", {"export": "helpdesk"}),
        ("json_indent", [2]),
        ("json_compact", None),
        ("vocabulary", {"status": {"open": 1}}),
        ("tag_separator", 0),
        ("default_created", None),
    ],
)
def test_wrong_types_and_values_are_refused(key: str, value: Any, tmp_dirs: Path) -> None:
    refused({**csv_state(tmp_dirs), key: value})


def test_rows_that_no_longer_fit_the_text_are_refused(tmp_dirs: Path) -> None:
    state = csv_state(tmp_dirs)
    rows = state["csv_records"]
    refused({**state, "text": state["text"].replace("Cannot log in", "Cannot log in!")})
    refused({**state, "csv_records": [[ticket_id, s + 1, e] for ticket_id, s, e in rows]})
    refused({**state, "csv_records": [*rows, rows[0]]})  # id twice, and overlapping
    refused({**state, "csv_records": [[rows[0][0], rows[0][1], rows[1][2]], *rows[2:]]})
    refused({**state, "columns": state["columns"][:-1]})


def test_the_same_id_twice_in_json_records_is_refused(tmp_dirs: Path) -> None:
    state = json_state(tmp_dirs)
    refused({**state, "json_records": state["json_records"] + state["json_records"][:1]})


@pytest.mark.parametrize("kind", ["csv", "json"])
def test_any_junk_value_gives_a_queue_file_error_or_a_source(kind: str, tmp_dirs: Path) -> None:
    """Never a KeyError, TypeError or csv.Error from inside: the caller catches one type."""
    state = csv_state(tmp_dirs) if kind == "csv" else json_state(tmp_dirs)
    junk: list[Any] = [None, True, 0, -1, 1.5, "", "x", [], [None], [[]], {}, {"tickets": []}]
    for key in state:
        for value in junk:
            with contextlib.suppress(QueueFileError):
                source_from_state({**state, key: value})
