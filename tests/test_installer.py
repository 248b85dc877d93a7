"""The installer: the frozen app runs with no Python of ours, and the .deb's desktop entry and
Tool Pack file type are valid. Slow (it builds), but it runs in CI."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import mcp_client
from waiting import HANG_S, until

from understudy_desktop import __version__
from understudy_desktop.agent.runtime_file import read_runtime

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "installer"))
from system_libs import is_system_library  # noqa: E402

PACK = ROOT / "packs" / "refund-desk.understudy-pack.json"
pytestmark = pytest.mark.slow


def early_build(where: Path, pid: int) -> tuple[int, str]:
    """The build ./run-tests started before the other stages: its exit status and output,
    once it has ended (no time limit: on a busy machine a build is slow, not wrong)."""
    status = where / "status"

    def ended() -> bool:
        if status.exists():
            return True
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True  # stopped without saying how: the status below says so
        return False

    until(ended, "the installer's early build ends", deadline_s=float("inf"))
    text = status.read_text(encoding="ascii").strip() if status.exists() else ""
    log = (where / "log").read_text(encoding="utf-8", errors="replace")
    return (int(text) if text.isdigit() else -1), log


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    early = os.environ.get("UNDERSTUDY_EARLY_BUILD")
    if early:
        code, output = early_build(Path(early), int(os.environ["UNDERSTUDY_EARLY_BUILD_PID"]))
        out = Path(early) / "dist"
    else:
        out = tmp_path_factory.mktemp("dist")
        # Started with the app's own private umask (as from a session of the app): the
        # package must still be readable by every user of the machine (./run-tests starts
        # its early build so too). No time limit: on a busy machine the build is slow.
        done = subprocess.run(
            [str(ROOT / "installer" / "build"), str(out)],
            capture_output=True,
            text=True,
            check=False,
            preexec_fn=lambda: os.umask(0o077),
            env=dict(os.environ, UNDERSTUDY_DEB_FAST="1"),  # gzip: the contents are tested
        )
        code, output = done.returncode, done.stdout + done.stderr
    assert code == 0, output[-4000:]
    assert "frozen app:" in output and ".deb:" in output
    # Debian's package checker ran, and found nothing that is not allowed with a reason.
    assert "== lintian" in output or not shutil.which("lintian")
    return out


async def use_the_app(url: str, token: str) -> tuple[list[str], dict]:
    async with mcp_client(url, token) as client:
        names = [t.name for t in (await client.list_tools()).tools]
        result = await client.call_tool("assign_refund", {"ticket_id": "T-1011"})
        return names, {"is_error": result.is_error, "text": result.content[0].text}


def test_the_frozen_app_starts_imports_a_pack_and_serves_agents(built, tmp_path):
    app = built / "app" / "understudy" / "understudy"
    assert os.access(app, os.X_OK)
    data = tmp_path / "data"
    # A bare environment: no virtualenv, no PYTHONPATH; only what the frozen app carries.
    env = {
        "HOME": str(tmp_path),
        "PATH": "/usr/bin:/bin",
        "QT_QPA_PLATFORM": "offscreen",
        "LANG": "C.UTF-8",
    }
    if os.geteuid() == 0:
        env["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    proc = subprocess.Popen(
        [str(app), "--data-dir", str(data), "--yes", str(PACK)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=tmp_path,
    )
    try:

        def started() -> object:
            assert proc.poll() is None, proc.stderr.read()[-2000:] if proc.stderr else ""
            return read_runtime(data)

        runtime = until(started, "the frozen app has started")

        def pack_listed() -> object:
            names, result = asyncio.run(use_the_app(runtime.url, runtime.token))
            return (names, result) if "assign_refund" in names else None

        names, result = until(pack_listed, "the pack's tool is listed")
        assert "understudy_draft_tool" in names and "assign_refund" in names
        assert result["is_error"] is False, result
    finally:
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 0, err[-2000:]
    offscreen_chatter = (
        "plugin does not support",
        "GPU",
        "Sandboxing",
        "locale",
        "UTF-8",
        "more information",
    )
    warnings = [line for line in err.splitlines() if "Warning" in line or "WARNING" in line]
    assert [w for w in warnings if not any(c in w for c in offscreen_chatter)] == []
    assert "Release of profile requested" not in err


def test_the_deb_has_a_valid_desktop_entry_and_pack_type(built, tmp_path):
    debs = list(built.glob("understudy_*.deb"))
    assert len(debs) == 1
    root = tmp_path / "root"
    subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    desktop = root / "usr/share/applications/understudy.desktop"
    mime = root / "usr/share/mime/packages/understudy-pack.xml"
    checked = subprocess.run(
        ["desktop-file-validate", str(desktop)], capture_output=True, text=True, check=False
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert subprocess.run(["xmllint", "--noout", str(mime)], check=False).returncode == 0
    assert "application/x-understudy-pack+json" in desktop.read_text()
    assert '<glob pattern="*.understudy-pack.json"' in mime.read_text()
    assert os.access(root / "opt/understudy/understudy", os.X_OK)
    assert (root / "usr/bin/understudy").read_text().endswith('/opt/understudy/understudy "$@"\n')
    assert (root / "usr/share/icons/hicolor/scalable/apps/understudy.svg").exists()
    scripts = subprocess.run(
        ["dpkg-deb", "-I", str(debs[0])], capture_output=True, text=True, check=True
    ).stdout
    assert "postrm" in scripts
    # Uninstalling touches no one's data: the scripts only refresh desktop databases.
    postrm = subprocess.run(
        ["dpkg-deb", "--ctrl-tarfile", str(debs[0])], capture_output=True, check=True
    ).stdout
    assert b".local/share" not in postrm and b"rm -rf" not in postrm
    listing = subprocess.run(
        ["dpkg-deb", "-c", str(debs[0])], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    private = [line for line in listing if line[7] != "r"]
    assert listing and private == [], private[:5]
    check_conventions(debs[0], root)
    check_apparmor(debs[0], root, tmp_path / "scripts")
    shutil.rmtree(root)


def check_apparmor(deb: Path, root: Path, scripts: Path) -> None:
    """Ubuntu 24.04's user-namespace restriction: the profile names the binaries the package
    really has, and the postinst installs it only where AppArmor can read it (ABI 4.0); the
    postrm takes it away again."""
    shipped = root / "usr/share/understudy/apparmor/understudy"
    text = shipped.read_text()
    attach = re.search(r"^profile understudy (\S+) flags=\(unconfined\) \{", text, re.M)
    assert attach is not None and "  userns," in text and "abi <abi/4.0>," in text
    assert attach.group(1) == "/opt/understudy/{understudy,_internal/**/QtWebEngineProcess}"
    helpers = list((root / "opt/understudy/_internal").rglob("QtWebEngineProcess"))
    assert len(helpers) == 1 and os.access(helpers[0], os.X_OK)
    assert os.access(root / "opt/understudy/understudy", os.X_OK)
    subprocess.run(["dpkg-deb", "-e", str(deb), str(scripts)], check=True)
    env = dict(os.environ, DPKG_ROOT=str(root))
    profile = root / "etc/apparmor.d/understudy"

    def script(name: str, *args: str) -> None:
        subprocess.run([str(scripts / name), *args], env=env, check=True, timeout=HANG_S)

    script("postinst", "configure")
    assert not profile.exists()  # an AppArmor without ABI 4.0 (Debian 12) has no restriction
    (root / "etc/apparmor.d/abi").mkdir(parents=True)
    (root / "etc/apparmor.d/abi/4.0").write_text("")
    script("postinst", "configure")
    assert profile.read_text() == text and (profile.stat().st_mode & 0o777) == 0o644
    script("postrm", "remove")
    assert not profile.exists()


def check_conventions(deb: Path, root: Path) -> None:
    """The licence, the copyright file with every carried package's licence, the changelog,
    valid AppStream metainfo, and the C library the binaries need."""
    doc = root / "usr/share/doc/understudy"
    copyright_text = (doc / "copyright").read_text()
    assert copyright_text.startswith("Format: https://www.debian.org/doc/packaging-manuals/")
    for carried in ("PySide6", "mcp", "cryptography", "keyring", "uvicorn", "httpx2"):
        assert f" {carried} " in copyright_text, carried
    assert "MIT" in (doc / "LICENSE").read_text()
    for page in ("understudy", "understudy-mcp"):
        assert (root / f"usr/share/man/man1/{page}.1.gz").is_file()
    overrides = (root / "usr/share/lintian/overrides/understudy").read_text()
    allowed = [line for line in overrides.splitlines() if line.startswith("understudy:")]
    reasons = [line for line in overrides.splitlines() if line.startswith("#")]
    assert allowed and len(reasons) >= len(allowed) // 2, "each allowance says why"
    assert "LGPL-3" in (doc / "third-party" / "pyside6" / "LICENSE-NAME").read_text()
    assert (doc / "third-party" / "python" / "LICENSE.txt").is_file()
    assert list((doc / "third-party" / "cryptography").iterdir())
    changelog = subprocess.run(
        ["gzip", "-dc", str(doc / "changelog.gz")], capture_output=True, text=True, check=True
    ).stdout
    assert changelog.startswith("understudy (")
    metainfo = root / "usr/share/metainfo/io.understudy.desktop.metainfo.xml"
    valid = subprocess.run(
        ["appstreamcli", "validate", "--no-net", str(metainfo)], capture_output=True, text=True
    )
    assert valid.returncode == 0, valid.stdout + valid.stderr
    control = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True, check=True
    ).stdout
    assert re.match(r"libc6 \(>= 2\.\d+\)", control), control
    check_system_libraries(root, control)
    check_man_pages(root)


def check_system_libraries(root: Path, depends: str) -> None:
    """The desktop's own libraries are the system's (a carried libstdc++ aborts on Debian 13's
    graphics stack), and the package asks for them."""
    bundle = root / "opt/understudy"
    carried = sorted(p.name for p in bundle.rglob("*.so*") if is_system_library(p.name))
    assert carried == [], carried
    packages = {d.split()[0] for d in depends.split(", ")}
    for needed in ("libstdc++6", "libgcc-s1", "libglib2.0-0", "libx11-6", "libfontconfig1"):
        assert needed in packages or needed + "t64" in packages, (needed, depends)
    # Qt, PySide6 and Python itself are the app's own.
    assert (bundle / "_internal/PySide6/Qt/lib/libQt6WebEngineCore.so.6").is_file()
    assert list((bundle / "_internal").glob("libpython3*.so*"))


def check_man_pages(root: Path) -> None:
    """Each command's man page lists every option its parser takes."""
    from understudy_desktop.agent.stdio_proxy import build_parser as relay_parser
    from understudy_desktop.cli import build_parser as app_parser

    for parser in (app_parser(), relay_parser()):
        page = subprocess.run(
            ["gzip", "-dc", str(root / f"usr/share/man/man1/{parser.prog}.1.gz")],
            capture_output=True, text=True, check=True,
        ).stdout.replace("\\-", "-")  # fmt: skip
        # Every option but --help, which the synopsis gives as [-h].
        options = [
            o for a in parser._actions for o in a.option_strings
            if o.startswith("--") and o != "--help"
        ]  # fmt: skip
        assert len(options) >= 4 and "--version" in options
        missing = [o for o in options if o not in page]
        assert missing == [], (parser.prog, missing)
        assert "[-h]" in page


def test_both_commands_answer_version_and_help(built):
    app = built / "app" / "understudy" / "understudy"
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}
    for command, prog in (([str(app)], "understudy"), ([str(app), "mcp"], "understudy-mcp")):
        version = subprocess.run(
            [*command, "--version"], capture_output=True, text=True, env=env, check=False
        )
        assert (version.returncode, version.stdout.strip()) == (0, f"{prog} {__version__}")
        shown = subprocess.run(
            [*command, "--help"], capture_output=True, text=True, env=env, check=False
        )
        assert shown.returncode == 0 and "--data-dir" in shown.stdout, shown.stderr


async def list_through_relay(command: list[str], env: dict[str, str]) -> list[str]:
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=command[0], args=command[1:], env=env)
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        return [t.name for t in (await session.list_tools()).tools]


def test_the_connect_dialog_s_command_works_with_the_frozen_app(built, tmp_path):
    """What Help › Connect an agent tells a person to paste, composed as the frozen app
    composes it, started the way a client starts it: it reaches (and starts) that app."""
    from understudy_desktop.agent.launch import relay_command

    app = built / "app" / "understudy" / "understudy"
    data = tmp_path / "data"
    command = relay_command(data, executable=app, frozen=True)
    assert command[:2] == [str(app), "mcp"]
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "QT_QPA_PLATFORM": "offscreen",
           "LANG": "C.UTF-8"}  # fmt: skip
    if os.geteuid() == 0:
        env["QTWEBENGINE_DISABLE_SANDBOX"] = "1"
    try:
        names = asyncio.run(list_through_relay(command, env))
        assert "understudy_draft_tool" in names
    finally:
        runtime = read_runtime(data)
        if runtime is not None:
            os.kill(runtime.pid, signal.SIGTERM)
            # Until the process is gone, not only its runtime file: it lets go of its lock
            # file after that, and a file vanishing mid-walk is no finding.
            until(lambda: not _alive(runtime.pid), "the app has stopped")
    loose = [
        p.name for p in [data, *data.rglob("*")] if not p.is_symlink() and p.stat().st_mode & 0o077
    ]
    assert loose == [], "every file either command writes is the person's alone"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A child of ours that has ended but was not waited for is a zombie: gone for this test.
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
