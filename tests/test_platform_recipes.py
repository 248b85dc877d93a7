"""The Windows and macOS build recipes in installer/: what they can be checked for on Linux
(they have not run on those systems; README, "Not yet")."""

from __future__ import annotations

import ast
import plistlib
import re
import subprocess
import sys
from pathlib import Path

import pytest
from waiting import HANG_S

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


def mac_minimum_of(name: str, version: str) -> dict[str, tuple[int, ...]]:
    """Per architecture, the oldest macOS a locked package has a wheel for on Python 3.11
    (from the registry's index); empty when a pure-Python wheel or only an sdist serves."""
    import json
    import urllib.request

    request = urllib.request.Request(
        f"https://pypi.org/simple/{name}/",
        headers={"Accept": "application/vnd.pypi.simple.v1+json"},
    )
    with urllib.request.urlopen(request, timeout=HANG_S) as answer:
        files = [f["filename"] for f in json.load(answer)["files"]]
    stem = re.sub(r"[-_.]+", "_", name).lower()
    wheels = [
        f for f in files
        if f.lower().startswith(f"{stem}-{version}-") and f.endswith(".whl")
    ]  # fmt: skip
    if not wheels or any(w.endswith("-none-any.whl") for w in wheels):
        return {}
    oldest: dict[str, tuple[int, ...]] = {}
    for wheel in wheels:
        python_tag, abi, platform_tags = wheel[:-4].split("-")[-3:]
        if not (python_tag in ("cp311", "py3") or abi == "abi3"):
            continue
        for tag in platform_tags.split("."):
            found = re.fullmatch(r"macosx_(\d+)_(\d+)_(\w+)", tag)
            if not found:
                continue
            major, minor, arch = int(found[1]), int(found[2]), found[3]
            for each in ("arm64", "x86_64") if arch in ("universal2", "universal") else (arch,):
                oldest[each] = min(oldest.get(each, (99,)), (major, minor))
    assert oldest, f"{name} {version} has no wheel for macOS on Python 3.11"
    return oldest


@pytest.mark.slow
def test_the_macos_recipe_states_the_oldest_macos_its_locked_packages_install_on():
    """Every locked package has a wheel for the stated minimum, on both kinds of Mac; and the
    minimum is no later than the packages require (it says the truth)."""
    stated = tuple(int(x) for x in platform_info.MAC_MINIMUM.split("."))
    needed: dict[str, tuple[tuple[int, ...], str]] = {}
    for line in (ROOT / "requirements.lock").read_text().splitlines():
        pin = re.match(r"^([A-Za-z0-9_.-]+)==([^ ;]+)", line)
        if pin is None:
            continue
        for arch, oldest in mac_minimum_of(pin[1], pin[2]).items():
            if oldest > needed.get(arch, ((0,), ""))[0]:
                needed[arch] = (oldest, pin[1])
    too_new = {arch: pkg for arch, (v, pkg) in needed.items() if v > stated}
    assert too_new == {}, f"these need a newer macOS than {platform_info.MAC_MINIMUM}: {too_new}"
    assert max(v for v, _ in needed.values()) == stated, needed
    recipe = (ROOT / "installer" / "macos" / "build.sh").read_text()
    assert f"macOS {stated[0]} or later" in recipe
    assert platform_info.mac_info_plist()["LSMinimumSystemVersion"] == platform_info.MAC_MINIMUM
