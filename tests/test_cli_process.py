"""The `understudy` command as a person (or the installer's launcher) runs it: a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from waiting import HANG_S, until

FIXTURES = Path(__file__).parent / "fixtures" / "queues"


def run_app(*args: str, data_dir: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    return subprocess.run(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data_dir), *args],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env=env,
        check=False,
    )


def test_the_app_starts_loads_the_console_and_quits(tmp_path):
    done = run_app("--quit-after-load", data_dir=tmp_path / "data")
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "data" / "browser-profile").is_dir()
    assert "Release of profile requested" not in done.stderr  # view deleted before profile


def test_a_queue_file_on_the_command_line_is_opened(tmp_path):
    done = run_app(
        str(FIXTURES / "helpdesk_comma.csv"), "--quit-after-load", data_dir=tmp_path / "data"
    )
    assert done.returncode == 0, done.stderr[-2000:]


def test_a_bad_queue_file_exits_with_a_plain_message(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text("{ nope", encoding="utf-8")
    done = run_app(str(bad), "--quit-after-load", data_dir=tmp_path / "data")
    assert done.returncode == 2
    assert "This queue could not be opened" in done.stderr


def test_a_missing_file_is_an_argument_error(tmp_path):
    done = run_app(str(tmp_path / "nope.csv"), data_dir=tmp_path / "data")
    assert done.returncode == 2
    assert "there is no file at" in done.stderr


def test_a_second_start_on_the_same_data_dir_hands_over_and_exits(tmp_path):
    from understudy_desktop.agent.runtime_file import read_runtime

    data = tmp_path / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    first = subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        until(lambda: read_runtime(data) is not None, "the first app has started")
        second = run_app(str(FIXTURES / "helpdesk_comma.csv"), data_dir=data)
        assert second.returncode == 0, second.stderr[-1500:]
        assert "already running" in second.stdout
        assert first.poll() is None  # the first one keeps running, untouched
    finally:
        first.terminate()
        _out, err = first.communicate(timeout=HANG_S)
    assert first.returncode == 0, err[-1500:]
    assert not (data / "agent.json").exists()


def test_after_a_crash_the_next_start_cleans_up_and_its_socket_is_private(tmp_path):
    import signal
    import stat
    import tempfile

    from understudy_desktop.agent.runtime_file import read_runtime
    from understudy_desktop.single_instance import server_name

    data = tmp_path / "data"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    first = subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    until(lambda: read_runtime(data) is not None, "the app has started")
    socket_path = Path(tempfile.gettempdir()) / server_name(data.resolve())
    assert socket_path.exists()
    assert stat.S_IMODE(socket_path.stat().st_mode) & 0o077 == 0  # this user's alone
    first.send_signal(signal.SIGKILL)  # a crash: the lock file and the socket stay behind
    first.wait()
    assert socket_path.exists()
    again = run_app("--quit-after-load", data_dir=data)
    assert again.returncode == 0, again.stderr[-1500:]
    assert "already running" not in again.stdout


def test_everything_it_writes_is_private_and_inside_the_data_folder(tmp_path):
    """Started from a shell whose umask lets others read (022): the log folder, the log, the
    lock and the database are the person's alone from their first byte, and nothing lands
    outside --data-dir but the approval seal's key, which is kept apart on purpose."""
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", HOME=str(home))
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "UNDERSTUDY_DATA_DIR"):
        env.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data), "--quit-after-load"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
        preexec_fn=lambda: os.umask(0o022),
    )
    assert done.returncode == 0, done.stderr[-2000:]
    loose = [
        f"{p.relative_to(data)} {oct(p.stat().st_mode & 0o777)}"
        for p in [data, *data.rglob("*")]
        if not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    assert loose == [], loose
    assert (data / "logs").is_dir()
    outside = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    # (The tests keep the seal's key in a folder of their own, UNDERSTUDY_KEY_DIR.)
    assert set(outside) <= {".config/Understudy/approval-seal.key"}, outside


def test_agents_can_connect_while_a_pack_given_at_start_waits_for_the_person(tmp_path):
    """A cold double-click on a pack: its preview waits for the person, and the endpoint is
    up (agent.json written) all the same."""
    data = tmp_path / "data"
    pack = Path(__file__).resolve().parent.parent / "packs" / "refund-desk.understudy-pack.json"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    child = subprocess.Popen(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(data), str(pack)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:

        def endpoint_up() -> bool:
            assert child.poll() is None, "the app stopped"
            return (data / "agent.json").exists()

        until(endpoint_up, "the endpoint is up while the dialog waits")
        assert child.poll() is None, "the preview is still waiting for the person"
    finally:
        child.terminate()
        child.wait(HANG_S)


def test_the_relay_s_files_are_private_too(tmp_path):
    """understudy-mcp started by a client whose umask lets others read: its log and the app
    log it opens for an app it starts are the person's alone."""
    data = tmp_path / "data"
    done = subprocess.run(
        [sys.executable, "-m", "understudy_desktop.agent.stdio_proxy", "--data-dir", str(data),
         "--no-start"],
        capture_output=True, text=True, timeout=HANG_S, preexec_fn=lambda: os.umask(0o022),
        stdin=subprocess.DEVNULL, check=False,
    )  # fmt: skip
    assert done.returncode == 1 and "understudy-mcp:" in done.stderr
    written = [data, *data.rglob("*")]
    assert any(p.name == "mcp-proxy.log" for p in written)
    loose = [
        f"{p.name} {oct(p.stat().st_mode & 0o777)}" for p in written if p.stat().st_mode & 0o077
    ]
    assert loose == [], loose


def test_both_commands_say_their_version_and_options():
    from understudy_desktop import __version__

    for module, prog in (
        ("understudy_desktop", "understudy"),
        ("understudy_desktop.agent.stdio_proxy", "understudy-mcp"),
    ):
        version = subprocess.run(
            [sys.executable, "-m", module, "--version"],
            capture_output=True,
            text=True,
            timeout=HANG_S,
        )
        assert version.stdout.strip() == f"{prog} {__version__}", version.stderr
        shown = subprocess.run(
            [sys.executable, "-m", module, "--help"], capture_output=True, text=True, timeout=HANG_S
        )
        assert shown.returncode == 0 and "--data-dir" in shown.stdout
