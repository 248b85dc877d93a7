"""Opening a big queue file (issue 35): a window says how far the read has got, Stop ends it
with the queue as it was, the preview reads a changed choice again off the window's thread,
and none of the reading's steps holds the interpreter in one long call (which would stop the
window answering)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QPushButton

from understudy_desktop.queue_io import file_text, load_queue_file, queue_document_json, writer
from understudy_desktop.queue_io.gc_pause import collection_held, paused_gc
from understudy_desktop.shell.open_progress import OpenProgress
from understudy_desktop.store import queue_store


def big_csv(path: Path, n: int) -> Path:
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "subject", "body", "status", "priority", "created"])
        for i in range(n):
            body = "Hello, my card was charged twice. " * 20  # an export's e-mail bodies
            w.writerow([f"B-{i}", f"Question {i}", body, "Open", "Normal", "2026-11-20T10:00:00Z"])
    return path


def progress_window() -> OpenProgress | None:
    found = [w for w in QApplication.topLevelWidgets() if isinstance(w, OpenProgress)]
    return found[0] if found and found[0].isVisible() else None


def test_a_quick_open_shows_no_progress_window(console, tmp_path):
    path = big_csv(tmp_path / "small.csv", 50)
    shown: list[bool] = []
    timer = QTimer()
    timer.timeout.connect(lambda: shown.append(progress_window() is not None))
    timer.start(20)
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(path, confirm=False)
    timer.stop()
    assert not any(shown)


@given(
    st.lists(st.sampled_from(["a", "é", "\n", "\r", "\r\n", "\u2028", "😀", ",", " ", "\t"])).map(
        "".join
    )
)
def test_lines_and_decoding_a_slice_at_a_time_match_doing_it_whole(text):
    old = file_text.SLICE
    file_text.SLICE = 5  # many slices even for a short text
    try:
        assert file_text.physical_lines(text) == io.StringIO(text, newline="").readlines()
        assert file_text.decoded(text.encode("utf-8"), "utf-8") == text
        assert file_text.decoded(text.encode("utf-16-le"), "utf-16-le") == text
        assert file_text.first_character(text) == text.lstrip()[:1]
    finally:
        file_text.SLICE = old


def test_a_decoding_error_says_where_in_the_whole_file(monkeypatch):
    monkeypatch.setattr(file_text, "SLICE", 4)
    data = b"abcdefghij\xffk"
    try:
        file_text.decoded(data, "utf-8")
    except UnicodeDecodeError as exc:
        assert exc.start == 10 and exc.object == data
    else:
        raise AssertionError("a byte that is not UTF-8 was decoded")


def test_the_document_and_the_saved_source_are_the_same_made_in_slices(monkeypatch, tmp_path):
    queue = load_queue_file(big_csv(tmp_path / "q.csv", 23))
    whole = json.loads(queue_document_json(queue, "Q"))
    monkeypatch.setattr(writer, "_TICKETS_PER_CALL", 4)
    assert json.loads(queue_document_json(queue, "Q")) == whole
    assert whole["name"] == "Q" and len(whole["tickets"]) == 23
    assert "name" not in json.loads(queue_document_json(queue))
    assert queue_store._source_json(None) == "null"


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(st.text(), inner, max_size=6),
    max_leaves=30,
)


@given(st.dictionaries(st.text(), JSON_VALUES, max_size=6))
def test_the_saved_source_made_a_piece_at_a_time_reads_back_the_same(source):
    old = queue_store._TEXT_SLICE, queue_store._ITEMS_SLICE
    queue_store._TEXT_SLICE, queue_store._ITEMS_SLICE = 3, 2  # many pieces even when small
    try:
        made = queue_store._source_json(source)
    finally:
        queue_store._TEXT_SLICE, queue_store._ITEMS_SLICE = old
    assert made.isascii() and json.loads(made) == source
    assert made == queue_store._dumps(source)  # byte for byte what one call writes


def test_the_window_threads_collector_waits_while_a_queue_is_read():
    from understudy_desktop import gc_on_main

    ran: list[int] = []
    original = gc_on_main.gc.collect
    gc_on_main.gc.collect = lambda generation=2: ran.append(generation) or 0
    try:
        with paused_gc():
            assert collection_held()
            kept = [[object()] for _ in range(5_000)]  # young objects: a collection is due
            gc_on_main._Collector.collect_if_due()
            assert kept
            assert ran == []
        assert not collection_held()
    finally:
        gc_on_main.gc.collect = original


def test_stop_ends_a_long_open_with_the_queue_as_it_was(console, tmp_path):
    # Enough tickets that the read is still going when Stop is pressed on a busy machine too:
    # the window shows after SHOW_AFTER_MS and Stop is pressed once it says tickets were read.
    path = big_csv(tmp_path / "big.csv", 150_000)
    before = console.api_json("summary")["tickets"]
    ended: list[str] = []
    console.window.queue_files.failed.connect(ended.append)
    console.window.open_queue(path, confirm=False)
    console.qtbot.waitUntil(lambda: progress_window() is not None)
    window = progress_window()
    assert window is not None and window.windowTitle() == "Opening a queue"
    console.qtbot.waitUntil(lambda: "tickets so far" in window.labelText())
    stop = [b for b in window.findChildren(QPushButton) if b.text() == "Stop"]
    assert len(stop) == 1
    console.qtbot.mouseClick(stop[0], Qt.MouseButton.LeftButton)
    console.qtbot.waitUntil(lambda: ended == ["cancelled"])
    assert progress_window() is None
    assert console.window.statusBar().currentMessage() == (
        "Opening the file was stopped. The queue you had is unchanged."
    )
    assert console.api_json("summary")["tickets"] == before
    # Open queue works again at once, and the next file opens in full.
    small = big_csv(tmp_path / "small.csv", 7)
    with console.qtbot.waitSignal(console.window.queue_loaded):
        console.window.open_queue(small, confirm=False)
    assert console.api_json("summary")["tickets"] == 7


def test_a_big_files_preview_reads_a_changed_choice_again_while_the_window_answers(qtbot, tmp_path):
    from understudy_desktop.queue_io import preview_queue_file
    from understudy_desktop.shell.queue_preview import READ_AT_ONCE, QueuePreviewDialog

    path = big_csv(tmp_path / "big.csv", READ_AT_ONCE * 6)
    dialog = QueuePreviewDialog(preview_queue_file(path))
    qtbot.addWidget(dialog)
    dialog.show()
    assert dialog.queue.tickets[0].body.startswith("Hello, my card")
    ticks: list[int] = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    dialog.column_combo("body").setCurrentIndex(0)  # "Not used"
    # Held still and said while the file is read again, and the window keeps answering.
    assert not dialog.open_button.isEnabled() and not dialog.mapping_table.isEnabled()
    assert dialog.message_label.text() == "Reading the file again with your choice…"
    qtbot.waitUntil(lambda: dialog.open_button.isEnabled())
    timer.stop()
    assert len(ticks) > 1  # the timer fired while the file was read
    assert dialog.mapping_table.isEnabled() and not dialog.message_label.isVisible()
    assert dialog.choices.columns["body"] is None
    assert dialog.queue.tickets[0].body == "" and len(dialog.queue.tickets) == READ_AT_ONCE * 6


def test_closing_the_preview_while_it_reads_again_stops_that_read(qtbot, tmp_path):
    from understudy_desktop.queue_io import preview_queue_file
    from understudy_desktop.shell.queue_preview import READ_AT_ONCE, QueuePreviewDialog

    dialog = QueuePreviewDialog(preview_queue_file(big_csv(tmp_path / "big.csv", READ_AT_ONCE * 6)))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.column_combo("body").setCurrentIndex(0)
    watch = dialog._reading
    assert watch is not None
    dialog.reject()
    assert watch.stop.is_set() and dialog._reading is None
