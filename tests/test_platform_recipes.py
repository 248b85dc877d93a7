"""The Windows and macOS build recipes in installer/: what they can be checked for on Linux
(they have not run on those systems; README, "Not yet")."""

from __future__ import annotations

import ast
import plistlib
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "installer"))

import platform_info  # noqa: E402

from understudy_desktop import __version__  # noqa: E402
from understudy_desktop.packs.export import PACK_SUFFIX  # noqa: E402


def test_the_mac_bundle_opens_tool_packs_under_the_apps_own_ids():
    info = platform_info.mac_info_plist()
    assert plistlib.loads(plistlib.dumps(info)) == info  # a valid property list
    metainfo = (ROOT / "installer" / "io.understudy.desktop.metainfo.xml").read_text()
    assert f"<id>{info['CFBundleIdentifier']}</id>" in metainfo
    assert info["CFBundleShortVersionString"] == __version__
    exported = info["UTExportedTypeDeclarations"][0]
    tags = exported["UTTypeTagSpecification"]
    assert tags["public.filename-extension"] == [PACK_SUFFIX.lstrip(".")]
    mime = (ROOT / "installer" / "understudy-pack.xml").read_text()
    assert f'type="{tags["public.mime-type"][0]}"' in mime
    # The document type the app claims is the one it declares.
    claimed = info["CFBundleDocumentTypes"][0]["LSItemContentTypes"]
    assert claimed == [exported["UTTypeIdentifier"]]


def test_the_build_values_are_what_the_scripts_read():
    done = subprocess.run(
        [sys.executable, str(ROOT / "installer" / "platform_info.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    values = dict(line.split("=", 1) for line in done.stdout.splitlines())
    assert values["APP_VERSION"] == __version__
    ps1 = (ROOT / "installer" / "windows" / "build.ps1").read_text()
    iss = (ROOT / "installer" / "windows" / "understudy.iss").read_text()
    # Every value the Inno Setup script uses is passed by the build script, from these.
    used = set(re.findall(r"\{#(\w+)\}", iss))
    passed = set(re.findall(r"/D(\w+)=", ps1))
    assert used == passed == {"AppVersion", "AppId", "SourceDir"}
    for name in ("APP_VERSION", "APP_ID"):
        assert f"$Values.{name}" in ps1 and name in values


def test_the_recipes_parse():
    spec = (ROOT / "installer" / "understudy.spec").read_text()
    tree = ast.parse(spec)
    calls = {n.func.id for n in ast.walk(tree) if isinstance(n, ast.Call) and hasattr(n.func, "id")}
    assert {"Analysis", "EXE", "COLLECT", "BUNDLE"} <= calls
    assert 'name="understudy-mcp"' in spec and "console=True" in spec
    checked = subprocess.run(
        ["bash", "-n", str(ROOT / "installer" / "macos" / "build.sh")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 0, checked.stderr


def test_the_frozen_launcher_runs_the_relay_under_its_windows_name(tmp_path):
    """understudy-mcp.exe is the same launcher under another name: it must act as
    `understudy mcp` (a console relay), not open a window."""
    launcher = (ROOT / "installer" / "launcher.py").read_text()
    probe = tmp_path / "understudy-mcp.py"
    probe.write_text(
        "import sys, types\n"
        "sys.frozen = True\n"
        f"sys.executable = {str(tmp_path / 'understudy-mcp.exe')!r}\n"
        "seen = []\n"
        "proxy = types.ModuleType('understudy_desktop.agent.stdio_proxy')\n"
        "proxy.main = lambda argv: seen.append(argv) or 0\n"
        "sys.modules['understudy_desktop.agent.stdio_proxy'] = proxy\n"
        "sys.argv = ['understudy-mcp', '--data-dir', 'x']\n"
        "try:\n"
        f"    exec(compile({launcher!r}, 'launcher.py', 'exec'))\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(seen)\n"
    )
    done = subprocess.run(
        [sys.executable, str(probe)], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert done.stdout.strip() == "[['--data-dir', 'x']]", done.stdout + done.stderr
