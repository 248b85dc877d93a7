"""A damaged database, a data folder the app may not write, and a full disk: each stops the
start with plain words (and a dialog where there is a display), exit status 1, no Python
traceback, and nothing changed by the attempt."""

from __future__ import annotations

import errno
import hashlib
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from small_disk import fill, mounted
from waiting import HANG_S

from understudy_desktop.start_problems import StartProblemError, problem_of


def start(data: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data), "--quit-after-load"],
        env=env, capture_output=True, text=True, timeout=HANG_S,
    )  # fmt: skip


def said(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    return done.stderr


@pytest.mark.slow
def test_a_damaged_database_is_said_so_and_left_as_it_was(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    damaged = data / "understudy.sqlite3"
    damaged.write_bytes(b"SQLite format 3\0" + os.urandom(8000))
    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    words = said(start(data))
    assert "saved data is damaged" in words and "move that file somewhere else" in words
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before


@pytest.mark.slow
def test_a_folder_it_may_not_write_is_said_so(tmp_path):
    data = tmp_path / "locked"
    data.mkdir()
    if os.geteuid() != 0:
        data.chmod(0o500)
    elif subprocess.run(["chattr", "+i", str(data)], capture_output=True).returncode != 0:
        pytest.skip("cannot make a folder unwritable for root here (no chattr +i)")
    try:
        words = said(start(data))
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(data)], check=False)
        data.chmod(0o700)
    assert "may not read or write its data folder" in words
    assert list(data.iterdir()) == [], "nothing was written"


@pytest.mark.slow
def test_a_full_disk_is_said_so_not_taken_for_another_understudy(tmp_path):
    with mounted(tmp_path / "disk", "256k") as disk:
        fill(disk)
        words = said(start(disk / "data"))
    assert "The disk is full" in words and "Free some space" in words
    assert "Another Understudy" not in words


@pytest.mark.parametrize(
    ("exc", "title"),
    [
        (sqlite3.DatabaseError("file is not a database"), "saved data is damaged"),
        (sqlite3.DatabaseError("database disk image is malformed"), "saved data is damaged"),
        (sqlite3.OperationalError("attempt to write a readonly database"), "cannot use"),
        (PermissionError(errno.EACCES, "Permission denied"), "cannot use"),
        (OSError(errno.EROFS, "Read-only file system"), "cannot use"),
        (sqlite3.OperationalError("database or disk is full"), "disk is full"),
        (OSError(errno.ENOSPC, "No space left on device"), "disk is full"),
    ],
)
def test_each_problem_is_told_apart(exc, title, tmp_path):
    wrapped = StartProblemError("could not start")
    wrapped.__cause__ = exc
    for shown in (exc, wrapped):
        problem = problem_of(shown, tmp_path)
        assert problem is not None and title in problem.title
        assert str(tmp_path) in problem.words


def test_a_bug_is_not_dressed_up_as_a_problem_with_the_disk(tmp_path):
    assert problem_of(KeyError("oops"), tmp_path) is None


def test_an_incomplete_page_is_said_so_instead_of_an_empty_window(tmp_path):
    """A page whose libraries are missing (a wheel built without them) never becomes ready;
    the app says so at once and stops, and lists the files in its log."""
    import shutil

    from understudy_desktop.paths import web_assets_dir
    from understudy_desktop.web.page_files import missing_page_files

    page = tmp_path / "page"
    shutil.copytree(web_assets_dir(), page, ignore=shutil.ignore_patterns("node_modules"))
    assert missing_page_files(web_assets_dir()) == []
    assert missing_page_files(page) == [
        "node_modules/@cfworker/json-schema/dist/esm/index.js",
        "node_modules/canonicalize/lib/canonicalize.js",
    ]
    (page / "js" / "bus.js").unlink()  # one of the page's own modules, imported by others
    assert "js/bus.js" in missing_page_files(page)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", UNDERSTUDY_WEB_ASSETS=str(page))
    done = subprocess.run(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(tmp_path / "data"),
         "--quit-after-load"],
        env=env, capture_output=True, text=True, timeout=HANG_S,
    )  # fmt: skip
    words = said(done)
    assert "some of its own files are missing" in words and "Install Understudy again" in words
    log = (tmp_path / "data" / "logs" / "understudy.log").read_text()
    assert "canonicalize/lib/canonicalize.js" in log


@pytest.mark.slow
def test_a_database_from_a_newer_understudy_is_said_so_and_left_as_it_was(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    newer = data / "understudy.sqlite3"
    conn = sqlite3.connect(newer)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    before = hashlib.sha256(newer.read_bytes()).hexdigest()
    words = said(start(data))
    assert "last used by a newer Understudy" in words
    assert hashlib.sha256(newer.read_bytes()).hexdigest() == before


@pytest.mark.slow
def test_a_data_folder_that_is_a_file_is_said_so_and_left_as_it_was(tmp_path):
    data = tmp_path / "data"
    data.write_text("not a folder")
    words = said(start(data))
    assert "there is a file" in words
    assert data.read_text() == "not a folder"


@pytest.mark.slow
def test_a_data_folder_it_may_not_read_is_said_so_and_left_as_it_was(tmp_path):
    """Started as another user (nobody) on a folder only its owner may open: plain words, and
    the folder and what is in it are as they were."""
    import shutil
    import tempfile

    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("needs root and setpriv to start the app as another user")
    home = Path(tempfile.mkdtemp(prefix="understudy-nobody-"))
    home.chmod(0o777)
    data = home / "data"
    data.mkdir(mode=0o700)
    (data / "understudy.sqlite3").write_bytes(b"kept as it was")
    as_nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home), XDG_CONFIG_HOME=str(home))
    try:
        probe = subprocess.run(
            [*as_nobody, sys.executable, "-c", "import understudy_desktop"],
            env=env, capture_output=True, timeout=HANG_S,
        )  # fmt: skip
        if probe.returncode != 0:
            pytest.skip("this checkout cannot be read by another user")
        done = subprocess.run(
            [*as_nobody, sys.executable, "-m", "understudy_desktop", "--data-dir", str(data),
             "--quit-after-load"],
            env=env, capture_output=True, text=True, timeout=HANG_S,
        )  # fmt: skip
        words = said(done)
        assert "may not read or write its data folder" in words
        assert sorted(p.name for p in data.iterdir()) == ["understudy.sqlite3"]
        assert (data / "understudy.sqlite3").read_bytes() == b"kept as it was"
    finally:
        shutil.rmtree(home, ignore_errors=True)
