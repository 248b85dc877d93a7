"""The one atomic-write helper: all or nothing, private from the first byte, first wins."""

from __future__ import annotations

import os
import stat

import pytest

from understudy_desktop import atomic_file
from understudy_desktop.atomic_file import write_atomically


def test_a_failed_write_leaves_the_old_file_and_no_litter(tmp_path, monkeypatch):
    target = tmp_path / "queue.json"
    target.write_bytes(b"old")

    def disk_gone(_fd: int) -> None:
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(atomic_file.os, "fsync", disk_gone)
    with pytest.raises(OSError):
        write_atomically(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["queue.json"]


def test_a_replaced_file_keeps_its_rights_and_a_private_one_is_private(tmp_path):
    shared = tmp_path / "export.csv"
    shared.write_bytes(b"a")
    os.chmod(shared, 0o640)
    write_atomically(shared, b"b")
    assert shared.read_bytes() == b"b"
    assert stat.S_IMODE(shared.stat().st_mode) == 0o640
    secret = tmp_path / "agent.json"
    write_atomically(secret, b"{}", mode=0o600)
    assert stat.S_IMODE(secret.stat().st_mode) == 0o600


def test_first_writer_wins_when_asked(tmp_path):
    key = tmp_path / "seal.key"
    write_atomically(key, b"first", mode=0o600, replace=False)
    with pytest.raises(FileExistsError):
        write_atomically(key, b"second", mode=0o600, replace=False)
    assert key.read_bytes() == b"first"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["seal.key"]


def test_a_folder_is_never_replaced(tmp_path):
    (tmp_path / "dir").mkdir()
    with pytest.raises(IsADirectoryError):
        write_atomically(tmp_path / "dir", b"x")
    assert (tmp_path / "dir").is_dir()
