"""Save queue as… and Export pack… start in the person's documents folder (or the folder of
the file they chose before), never in the folder the app was started from."""

from __future__ import annotations

from pathlib import Path

from understudy_desktop.shell.save_places import documents_folder, save_start


def test_a_save_starts_in_the_documents_folder_or_beside_the_known_file(
    qtbot, tmp_path, monkeypatch
):
    elsewhere = tmp_path / "started-here"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    start = Path(save_start("queue.json"))
    assert start.name == "queue.json" and start.parent == documents_folder()
    assert start.parent != elsewhere and start.parent.is_dir()
    known = tmp_path / "exports" / "mine.csv"
    known.parent.mkdir()
    assert save_start("queue.json", known) == str(known)
    gone = tmp_path / "no-longer-there" / "old.csv"
    assert Path(save_start("queue.json", gone)).parent == documents_folder()
