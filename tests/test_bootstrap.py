"""tools/bootstrap.sh against fake answers of Debian 12, Debian 13 and Ubuntu 24.04: the
libraries each release names (t64 included) are found installed, so nothing is installed
and no package list is fetched again; what is missing is named, in one line for an
administrator, when the user cannot become root (no sudo, or sudo that refuses); and no
distribution's Node or npm is asked for. The real proof is tools/fresh_roots.py, on fresh
Debian roots; these catch a broken rule in seconds."""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "installer"))
from depends import C_LIBRARY, linker_cache, needed, owner  # noqa: E402

BOOTSTRAP = ROOT / "tools" / "bootstrap.sh"

COMMON = [
    "ca-certificates",
    "python3",
    "python3-venv",
    "fonts-dejavu-core",
    "fonts-noto-cjk",
    "libnss3",
    "libnspr4",
    "libgbm1",
    "libgl1",
    "libegl1",
    "libx11-6",
    "libx11-xcb1",
    "libxcomposite1",
    "libxdamage1",
    "libxext6",
    "libxfixes3",
    "libxrandr2",
    "libxtst6",
    "libxshmfence1",
    "libxkbfile1",
    "libxkbcommon0",
    "libxkbcommon-x11-0",
    "libxcb1",
    "libxcb-dri3-0",
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxcb-image0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xkb1",
    "libxcb-randr0",
    "libxcb-glx0",
    "libxcb-render0",
    "libxcb-shm0",
    "libxcb-sync1",
    "libxcb-util1",
    "libxcb-xfixes0",
    "libdbus-1-3",
    "libfontconfig1",
    "libfreetype6",
    "libexpat1",
    "libbrotli1",
    "libgssapi-krb5-2",
    "libudev1",
    "libzstd1",
    "zlib1g",
    "libstdc++6",
    "libgcc-s1",
    "libdrm2",
    "libwayland-client0",
    "libwayland-cursor0",
]


@dataclass
class Release:
    name: str
    renamed: dict[str, str]  # old library name -> this release's
    nodejs: str  # apt's candidate version of nodejs
    chromium: str  # apt's candidate version of chromium ("" for none)
    known: set[str] = field(default_factory=set)

    def libraries(self) -> list[str]:
        names = [*COMMON, "libglib2.0-0", "libasound2"]
        return [self.renamed.get(n, n) for n in names]


T64 = {"libglib2.0-0": "libglib2.0-0t64", "libasound2": "libasound2t64"}
RELEASES = {
    "debian-12": Release("debian-12", {}, "18.19.0+dfsg-6~deb12u2", "156.0.7514.0-1~deb12u1"),
    "debian-13": Release("debian-13", T64, "20.19.2+dfsg-1", "156.0.7514.0-1"),
    "ubuntu-24.04": Release("ubuntu-24.04", T64, "18.19.1+dfsg-6ubuntu5", ""),
}


def fake_system(tmp: Path, release: Release, installed: list[str], uid: int, node: str) -> Path:
    """Commands answering as `release` would, each call written to calls.log."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (tmp / "installed").write_text("\n".join(installed) + "\n")
    known = set(release.libraries()) | release.known
    (tmp / "known").write_text("\n".join(sorted(known)) + "\n")
    log = tmp / "calls.log"
    scripts = {
        "dpkg-query": f"""
            pkg="${{@: -1}}"
            if grep -qx "$pkg" {tmp}/installed; then echo 'install ok installed'; else exit 1; fi
        """,
        "apt-cache": f"""
            if [ "$1" = show ]; then grep -qx "$2" {tmp}/known; exit $?; fi
            if [ "$1" = policy ]; then
              case "$2" in
                nodejs) echo "  Candidate: {release.nodejs}" ;;
                chromium) echo "  Candidate: {release.chromium or "(none)"}" ;;
                *) echo "  Candidate: 1.0" ;;
              esac
            fi
        """,
        "apt-get": f'echo "apt-get $*" >> {log}',
        "sudo": f"""
            if [ "$1" = -n ] && [ "$2" = true ]; then
              [ -e {tmp}/sudo-refuses ] && {{ echo "sudo: a password is required" >&2; exit 1; }}
              exit 0
            fi
            if [ "$1" = -v ]; then exit 1; fi
            echo "sudo $*" >> {log}; "$@"
        """,
        "id": f"echo {uid}",
        "node": f"echo {node}",
        "npm": f'echo "npm $*" >> {log}',
    }
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text("#!/bin/bash\n" + body.strip() + "\n")
        path.chmod(0o755)
    return bin_dir


def run(
    tmp: Path, bin_dir: Path, script: str, sudo: bool | str = True
) -> subprocess.CompletedProcess:
    """`sudo`: True (may use it), False (not installed), "refuses" (installed, not allowed)."""
    if sudo is False:
        (bin_dir / "sudo").unlink()
    elif sudo == "refuses":
        (tmp / "sudo-refuses").write_text("")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp)}
    return subprocess.run(
        ["bash", "-c", f"set -euo pipefail; . {BOOTSTRAP}; {script}"],
        env=env,
        capture_output=True,
        text=True,
        timeout=HANG_S,
    )


def calls(tmp: Path) -> list[str]:
    log = tmp / "calls.log"
    return log.read_text().splitlines() if log.exists() else []


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_an_installed_release_installs_nothing_and_fetches_no_list(tmp_path, name):
    release = RELEASES[name]
    bin_dir = fake_system(tmp_path, release, release.libraries(), uid=1000, node="v20.20.2")
    done = run(tmp_path, bin_dir, "ensure_apt $(runtime_packages); echo ok", sudo=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert calls(tmp_path) == [], "nothing is installed and no package list fetched"


@pytest.mark.parametrize("name", sorted(RELEASES))
def test_the_release_s_own_library_names_are_asked_for(tmp_path, name):
    release = RELEASES[name]
    bin_dir = fake_system(tmp_path, release, [], uid=0, node="v20.20.2")
    done = run(tmp_path, bin_dir, "runtime_packages")
    wanted = done.stdout.split()
    expected = "libglib2.0-0t64" if release.renamed else "libglib2.0-0"
    assert (expected in wanted and "libasound2t64" in wanted) or not release.renamed
    assert set(wanted) == set(release.libraries())


@pytest.mark.parametrize("sudo", [False, "refuses"])
def test_without_root_the_missing_packages_are_named_in_one_line(tmp_path, sudo):
    release = RELEASES["debian-13"]
    installed = [p for p in release.libraries() if p not in ("libgbm1", "libglib2.0-0t64")]
    bin_dir = fake_system(tmp_path, release, installed, uid=1000, node="v20.20.2")
    done = run(tmp_path, bin_dir, "ensure_apt $(runtime_packages) chromium", sudo=sudo)
    assert done.returncode == 1
    lines = [line.strip() for line in done.stderr.splitlines() if "apt-get" in line]
    assert lines == [
        "sudo apt-get update && sudo apt-get install -y --no-install-recommends "
        "libgbm1 libglib2.0-0t64 chromium"
    ]
    assert "needs an administrator" in done.stderr
    assert "sudo:" not in done.stderr, "sudo's own refusal is not what the person reads"
    assert "DEBIAN_FRONTEND" not in done.stderr
    assert calls(tmp_path) == []


@pytest.mark.parametrize(
    ("name", "missing", "uid", "as_root"),
    [("debian-12", "libgbm1", 1000, "sudo "), ("ubuntu-24.04", "libasound2t64", 0, "")],
)
def test_only_the_missing_packages_are_installed_as_root_or_with_sudo(
    tmp_path, name, missing, uid, as_root
):
    release = RELEASES[name]
    installed = [p for p in release.libraries() if p != missing]
    bin_dir = fake_system(tmp_path, release, installed, uid=uid, node="v20.20.2")
    done = run(tmp_path, bin_dir, "ensure_apt $(runtime_packages)")
    assert done.returncode == 0, done.stderr
    apt = [c for c in calls(tmp_path) if c.startswith("apt-get")]
    assert apt == [
        "apt-get update -qq",
        f"apt-get install -y -qq --no-install-recommends {missing}",
    ]
    through_sudo = [c for c in calls(tmp_path) if c.startswith("sudo ")]
    assert len(through_sudo) == (2 if as_root else 0)


def test_the_app_s_set_up_asks_for_no_node_or_npm():
    """The app needs no Node; the tests' Node comes from the registry by its lock."""
    text = BOOTSTRAP.read_text()
    assert not [line for line in text.splitlines() if line.strip().startswith(("npm ", "(cd"))]
    assert "nodejs" not in text


def test_a_release_without_a_chromium_package_says_the_comparisons_are_skipped(tmp_path):
    bin_dir = fake_system(tmp_path, RELEASES["ubuntu-24.04"], [], uid=0, node="v20.20.2")
    done = run(tmp_path, bin_dir, 'ensure_chromium; echo "[$UNDERSTUDY_CHROMIUM]"')
    assert done.stdout.strip() == "[]"
    assert "compare with native Chromium are skipped" in done.stderr
    debian = tmp_path / "debian"
    debian.mkdir()
    bin_dir = fake_system(debian, RELEASES["debian-12"], [], uid=0, node="v20.20.2")
    done = run(debian, bin_dir, 'ensure_chromium; echo "[$UNDERSTUDY_CHROMIUM]"')
    assert done.stdout.strip().endswith("[/usr/bin/chromium]")
    assert any(c.startswith("apt-get install") and "chromium" in c for c in calls(debian))


def test_the_project_node_is_pinned_for_both_architectures():
    import json

    manifest = json.loads((ROOT / "tools" / "node" / "package.json").read_text())
    versions = set(manifest["optionalDependencies"].values())
    assert len(versions) == 1
    (version,) = versions
    assert tuple(int(x) for x in version.split(".")) >= (20, 19, 0)
    lock = json.loads((ROOT / "tools" / "node" / "package-lock.json").read_text())
    for cpu in ("x64", "arm64"):
        assert lock["packages"][f"node_modules/node-linux-{cpu}"]["version"] == version


def qt_the_app_loads() -> list[Path]:
    """The binaries of the locked PySide6 the app loads: the Qt modules it imports, the
    libraries they need in turn, the platform plugins and the browser's helper process."""
    import PySide6

    qt = Path(PySide6.__file__).parent
    modules = {
        m: qt / f"{m}.abi3.so"
        for m in re.findall(
            r"(?:from|import) PySide6\.(Qt\w+)",
            "".join(p.read_text() for p in (ROOT / "understudy_desktop").rglob("*.py")),
        )
    }
    todo = [*modules.values(), *(qt / "Qt/plugins/platforms").glob("libq*.so")]
    todo += list((qt / "Qt/libexec").glob("QtWebEngineProcess"))
    inside = {p.name: p for p in (qt / "Qt/lib").glob("*.so*")}
    seen: dict[str, Path] = {}
    while todo:
        path = todo.pop()
        if path.name in seen or not path.is_file():
            continue
        seen[path.name] = path
        todo += [inside[n] for n in needed(path) if n in inside]
    assert len(modules) >= 5 and "libQt6WebEngineCore.so.6" in seen
    return list(seen.values())


def test_the_runtime_packages_cover_what_the_installed_qt_asks_for():
    """Every package owning a library that the Qt the app loads asks for is in the set-up's
    list (here, by this release's real package names): a fresh Debian 13 had no Kerberos
    library, and QtWebEngine would not import."""
    import PySide6

    carried = {p.name for p in Path(PySide6.__file__).parent.rglob("*")}
    wanted = {n for p in qt_the_app_loads() for n in needed(p)} - carried - C_LIBRARY
    cache = linker_cache()
    owners = {n: owner(cache[n]) for n in wanted if n in cache}
    listed = subprocess.run(
        ["bash", "-c", f". {BOOTSTRAP}; runtime_packages"], capture_output=True, text=True
    ).stdout.split()
    missing = sorted({f"{o} ({n})" for n, o in owners.items() if o and o not in listed})
    assert len(owners) > 20
    assert missing == [], f"add to runtime_packages in tools/bootstrap.sh: {missing}"
