"""tools/locked_npm.py, which puts the locked npm packages in place on every release without
npm: what the lock names is unpacked and linked; a download that does not match its hash,
a path that climbs out, or a package that wants a script is refused, and nothing is left
half-written; packages for another CPU are skipped, as npm does. The tarballs here are
local files (file:// addresses in the lock); the registry itself is used by the set-up and
by tests/test_packaging.py."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
import locked_npm  # noqa: E402


def tarball(tmp: Path, name: str, files: dict[str, str], links: dict[str, str] | None = None):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for path, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(f"package/{path}")
            info.size = len(data)
            info.mode = 0o755 if path.startswith("bin/") else 0o644
            tar.addfile(info, io.BytesIO(data))
        for path, target in (links or {}).items():
            info = tarfile.TarInfo(f"package/{path}")
            info.type = tarfile.SYMTYPE
            info.linkname = target
            tar.addfile(info)
    path = tmp / f"{name.replace('/', '-')}.tgz"
    path.write_bytes(buffer.getvalue())
    digest = base64.b64encode(hashlib.sha512(buffer.getvalue()).digest()).decode()
    return path.as_uri(), f"sha512-{digest}"


def write_lock(folder: Path, packages: dict[str, dict]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    lock = {"lockfileVersion": 3, "packages": {"": {"name": "x"}, **packages}}
    (folder / "package-lock.json").write_text(json.dumps(lock))


def entry(url: str, integrity: str, **more) -> dict:
    return {"version": "1.0.0", "resolved": url, "integrity": integrity, **more}


def test_the_lock_s_packages_are_unpacked_and_their_programs_linked(tmp_path):
    url, sri = tarball(tmp_path, "tool", {"bin/tool.js": "#!/usr/bin/env node\n", "lib/a.js": "1"})
    url2, sri2 = tarball(tmp_path, "inner", {"index.js": "2"})
    project = tmp_path / "project"
    write_lock(
        project,
        {
            "node_modules/tool": entry(url, sri, bin={"tool": "bin/tool.js"}),
            "node_modules/tool/node_modules/inner": entry(url2, sri2),
        },
    )
    assert locked_npm.install(project, say=False) is True
    modules = project / "node_modules"
    assert (modules / "tool/lib/a.js").read_text() == "1"
    assert (modules / "tool/node_modules/inner/index.js").read_text() == "2"
    link = modules / ".bin/tool"
    assert link.is_symlink() and link.resolve() == (modules / "tool/bin/tool.js").resolve()
    assert (modules / "tool/bin/tool.js").stat().st_mode & 0o111
    assert locked_npm.installed(project)
    # A second run finds it done and fetches nothing.
    assert locked_npm.install(project, say=False) is False


def test_a_download_that_does_not_match_the_lock_is_refused_and_nothing_changes(tmp_path):
    good, sri = tarball(tmp_path, "good", {"index.js": "good"})
    project = tmp_path / "project"
    write_lock(project, {"node_modules/good": entry(good, sri)})
    locked_npm.install(project, say=False)
    before = (project / "node_modules/good/index.js").read_text()
    # The lock changes (a new version), but the registry hands out other bytes.
    evil, _ = tarball(tmp_path, "evil", {"index.js": "evil"})
    write_lock(project, {"node_modules/good": entry(evil, sri, version="2.0.0")})
    with pytest.raises(locked_npm.LockError, match="does not match the lock"):
        locked_npm.install(project, say=False)
    assert (project / "node_modules/good/index.js").read_text() == before == "good"
    assert not (project / "node_modules.partial").exists()
    assert not locked_npm.installed(project)


@pytest.mark.parametrize(
    ("files", "links"),
    [({"../../escape.js": "x"}, None), ({"ok.js": "x"}, {"sneaky": "../../../etc/passwd"})],
)
def test_a_package_that_reaches_outside_its_folder_is_refused(tmp_path, files, links):
    url, sri = tarball(tmp_path, "bad", files, links)
    project = tmp_path / "project"
    write_lock(project, {"node_modules/bad": entry(url, sri)})
    with pytest.raises(locked_npm.LockError, match=r"outside the package|unsafe path"):
        locked_npm.install(project, say=False)
    assert not (tmp_path / "escape.js").exists()
    assert not (project / "node_modules").exists()


def test_a_package_with_an_install_script_is_refused(tmp_path):
    url, sri = tarball(tmp_path, "scripted", {"index.js": ""})
    project = tmp_path / "project"
    write_lock(project, {"node_modules/scripted": entry(url, sri, hasInstallScript=True)})
    with pytest.raises(locked_npm.LockError, match="install script"):
        locked_npm.install(project, say=False)


def test_optional_packages_for_another_cpu_are_skipped(tmp_path, monkeypatch):
    x64, sri_x64 = tarball(tmp_path, "x64", {"bin/node": "x64"})
    arm, sri_arm = tarball(tmp_path, "arm", {"bin/node": "arm"})
    project = tmp_path / "project"
    write_lock(
        project,
        {
            "node_modules/node-x64": entry(x64, sri_x64, cpu="x64", optional=True),
            "node_modules/node-arm": entry(arm, sri_arm, cpu=["arm64"], optional=True),
        },
    )
    monkeypatch.setattr(locked_npm, "this_cpu", lambda: "arm64")
    locked_npm.install(project, say=False)
    assert sorted(p.name for p in (project / "node_modules").iterdir() if p.is_dir()) == [
        "node-arm"
    ]


def test_the_registry_address_follows_npm_s_layout():
    assert locked_npm.tarball_url("@cfworker/json-schema", "4.1.6").endswith(
        "/@cfworker/json-schema/-/json-schema-4.1.6.tgz"
    )
    assert locked_npm.tarball_url("canonicalize", "5.1.0").endswith(
        "/canonicalize/-/canonicalize-5.1.0.tgz"
    )


def test_the_project_s_locks_need_nothing_this_installer_refuses():
    for folder in (ROOT / "web_assets", ROOT, ROOT / "tools" / "node"):
        packages = locked_npm.read_lock(folder)
        assert packages, folder
        assert all(p.integrity.startswith("sha512-") for p in packages)
    nodes = [
        p for p in locked_npm.read_lock(ROOT / "tools" / "node") if "bin/node" in p.bins.values()
    ]
    assert len(nodes) == 1, "exactly one Node for this CPU"
