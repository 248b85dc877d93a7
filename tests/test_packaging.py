"""The wheel works: built from a fresh clone (no page libraries fetched yet) it names every
package, carries the console's page with its libraries, and the app started from it (not
from the checkout) loads the console and quits; an sdist carries them too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import pytest
from waiting import HANG_S

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.slow


def test_every_package_is_named_for_the_wheel():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    named = set(config["tool"]["setuptools"]["packages"])
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "understudy_desktop").rglob("__init__.py")
    }
    assert found <= named, f"add to pyproject.toml's packages: {sorted(found - named)}"


def fresh_clone(where: Path) -> Path:
    """The project's files as a clone has them: tracked (or new, not ignored) files only, so
    no web_assets/node_modules."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (where / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, where / name)
    assert not (where / "web_assets" / "node_modules").exists()
    return where


@pytest.fixture(scope="module")
def clone(tmp_path_factory) -> Path:
    return fresh_clone(tmp_path_factory.mktemp("clone"))


@pytest.fixture(scope="module")
def wheel(tmp_path_factory, clone) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(clone)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [built] = out.glob("understudy_desktop-*.whl")
    return built


def test_the_wheel_carries_the_page_and_nothing_of_the_tests(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    page = "understudy_desktop/web_assets/"
    for needed in (
        "index.html",
        "data/rules.json",
        "data/catalogue.json",
        "js/main.js",
        "css/console.css",
        "node_modules/canonicalize/lib/canonicalize.js",
        "node_modules/@cfworker/json-schema/dist/esm/index.js",
    ):
        assert page + needed in names, needed
    assert "understudy_desktop/packs/pack.schema.json" in names
    assert not [n for n in names if n.startswith(page + "tests/")]
    assert page + "package.json" not in names


def test_the_app_starts_from_the_wheel(wheel, tmp_path):
    unpacked = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(unpacked)
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(unpacked))
    env.pop("UNDERSTUDY_WEB_ASSETS", None)
    probe = subprocess.run(
        [sys.executable, "-c", "import understudy_desktop.paths as p; print(p.web_assets_dir())"],
        env=env, capture_output=True, text=True, timeout=HANG_S, cwd=tmp_path,
    )  # fmt: skip
    assert probe.stdout.strip() == str(unpacked / "understudy_desktop" / "web_assets")
    done = subprocess.run(
        [sys.executable, "-m", "understudy_desktop", "--data-dir", str(tmp_path / "data"),
         "--quit-after-load", "--no-agent"],
        env=env, capture_output=True, text=True, timeout=HANG_S, cwd=tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]


def test_a_wheel_built_from_the_sdist_carries_the_page_too(tmp_path, clone):
    out = tmp_path / "sdist"
    made = subprocess.run(
        [sys.executable, "-c",
         f"import build_backend; print(build_backend.build_sdist({str(out)!r}))"],
        capture_output=True, text=True, cwd=clone, env=dict(os.environ, PYTHONPATH="tools"),
    )  # fmt: skip
    assert made.returncode == 0, made.stderr[-3000:]
    [sdist] = out.glob("*.tar.gz")
    with tarfile.open(sdist) as packed:
        inside = packed.getnames()
    assert any(n.endswith("node_modules/canonicalize/lib/canonicalize.js") for n in inside)
    wheels = tmp_path / "wheels"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(wheels), str(sdist)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert built.returncode == 0, built.stderr[-3000:]
    [wheel] = wheels.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "understudy_desktop/web_assets/data/rules.json" in names
    assert "understudy_desktop/web_assets/node_modules/canonicalize/lib/canonicalize.js" in names


def test_the_endpoint_runs_without_uvloop_or_httptools(monkeypatch):
    """Where uvloop (or httptools) is not installed (Windows), asyncio's loop and h11 serve."""
    import importlib.util

    from understudy_desktop.agent import http_host

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *a: None if name in ("uvloop", "httptools") else real(name, *a),
    )
    assert http_host.available_transport() == http_host.Transport(http="h11", loop="asyncio")
    monkeypatch.setattr(importlib.util, "find_spec", real)
    assert http_host.available_transport() == http_host.Transport(http="httptools", loop="uvloop")
    lock = (ROOT / "requirements.lock").read_text()
    assert 'uvloop==0.23.0 ; sys_platform != "win32"' in lock
