"""Put a package-lock.json's packages into node_modules without npm or Node.

Why not `npm ci`: the distributions' npm differ (Debian 12's npm 9.2 removes the node binary
it has just linked when an optional package for another CPU fails; npm 11 keeps it), a fresh
machine has no Node at all, and the console's two page libraries are all the app itself
needs. This does the part of `npm ci` we rely on, the same way on every release: each
package in the lock that is meant for this OS and CPU is fetched from the registry, checked
against the lock's integrity hash (a download that does not match is refused, nothing is
written), unpacked into its place, and top-level programs get their `.bin` link. No package
script ever runs (none of our locks has one; a lock that asks for one is refused, so that a
new dependency cannot quietly need it).

Only the standard library: it runs before the project's virtualenv exists, and inside the
wheel build (tools/build_backend.py).

    python3 tools/locked_npm.py [--check] DIR [DIR...]   # each DIR has a package-lock.json
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import platform
import shutil
import sys
import tarfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

REGISTRY = os.environ.get("NPM_CONFIG_REGISTRY", "https://registry.npmjs.org").rstrip("/")
STAMP = ".understudy-stamp"
NODE_CPU = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


class LockError(Exception):
    """The lock cannot be honoured: a download failed or did not match, or it asks for more
    than this installer does."""


@dataclass(frozen=True)
class Locked:
    where: str  # "node_modules/a/node_modules/b"
    name: str
    version: str
    integrity: str
    url: str
    bins: dict[str, str]


def this_cpu() -> str:
    machine = platform.machine().lower()
    return NODE_CPU.get(machine, machine)


def this_os() -> str:
    return {"linux": "linux", "darwin": "darwin", "win32": "win32"}.get(sys.platform, sys.platform)


def fits(entry: dict[str, object], field: str, value: str) -> bool:
    """npm's os/cpu rule: a list of allowed names, or of "!name" exclusions."""
    allowed = entry.get(field)
    if isinstance(allowed, str):
        allowed = [allowed]
    if not isinstance(allowed, list) or not allowed:
        return True
    if any(a == f"!{value}" for a in allowed):
        return False
    positive = [a for a in allowed if not str(a).startswith("!")]
    return not positive or value in positive


def tarball_url(name: str, version: str) -> str:
    # The registry's own layout: @scope/pkg -> /@scope/pkg/-/pkg-1.2.3.tgz
    return f"{REGISTRY}/{name}/-/{name.rsplit('/', 1)[-1]}-{version}.tgz"


def read_lock(folder: Path) -> list[Locked]:
    lock = json.loads((folder / "package-lock.json").read_text(encoding="utf-8"))
    if lock.get("lockfileVersion") not in (2, 3):
        raise LockError(f"{folder}/package-lock.json: lockfile version 2 or 3 is needed")
    wanted: list[Locked] = []
    for where, entry in lock["packages"].items():
        if not where or entry.get("link") or entry.get("inBundle"):
            continue  # the project itself; links; what a bundling package carries itself
        if not (fits(entry, "os", this_os()) and fits(entry, "cpu", this_cpu())):
            if entry.get("optional"):
                continue
            raise LockError(f"{where} does not run on {this_os()}/{this_cpu()}")
        if entry.get("hasInstallScript"):
            raise LockError(f"{where} has an install script, which this installer never runs")
        name = entry.get("name") or where.rsplit("node_modules/", 1)[-1]
        integrity = entry.get("integrity")
        if not integrity:
            raise LockError(f"{where} has no integrity hash in the lock")
        bins = entry.get("bin") or {}
        if isinstance(bins, str):
            bins = {name.rsplit("/", 1)[-1]: bins}
        wanted.append(
            Locked(
                where=where,
                name=name,
                version=entry["version"],
                integrity=integrity,
                url=entry.get("resolved") or tarball_url(name, entry["version"]),
                bins=dict(bins),
            )
        )
    return wanted


def check_integrity(data: bytes, integrity: str, what: str) -> None:
    """Subresource Integrity: any one of the listed hashes that we know must match."""
    for item in integrity.split():
        algorithm, _, expected = item.partition("-")
        if algorithm in ("sha512", "sha384", "sha256", "sha1"):
            digest = base64.b64encode(hashlib.new(algorithm, data).digest()).decode()
            if digest == expected:
                return
            raise LockError(f"{what}: the download does not match the lock ({algorithm})")
    raise LockError(f"{what}: no hash in the lock that can be checked ({integrity[:20]}…)")


def fetch(url: str, what: str) -> bytes:
    last: Exception | None = None
    for _attempt in range(3):
        try:
            with urllib.request.urlopen(url, timeout=120) as answer:
                data: bytes = answer.read()
                return data
        except OSError as exc:  # URLError, timeouts, resets: the registry may be busy
            last = exc
    raise LockError(f"{what}: could not download {url}: {last}")


def unpack(data: bytes, target: Path, what: str) -> None:
    """The tarball's first folder (npm's `package/`, or any name) becomes `target`. Paths
    that climb out, links that point out, and devices are refused."""
    with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
        for member in tar.getmembers():
            parts = PurePosixPath(member.name).parts[1:]
            if not parts:
                continue
            if any(p in ("..", "") for p in parts) or PurePosixPath(member.name).is_absolute():
                raise LockError(f"{what}: unsafe path in the package: {member.name}")
            dest = target.joinpath(*parts)
            if member.isdir():
                dest.mkdir(parents=True, exist_ok=True)
            elif member.isfile():
                dest.parent.mkdir(parents=True, exist_ok=True)
                source = tar.extractfile(member)
                if source is None:
                    raise LockError(f"{what}: unreadable entry {member.name}")
                dest.write_bytes(source.read())
                dest.chmod(0o755 if member.mode & 0o111 else 0o644)
            elif member.issym():
                link = PurePosixPath(*parts[:-1], member.linkname)
                if (
                    member.linkname.startswith("/")
                    or ".." in PurePosixPath(os.path.normpath(str(link))).parts
                ):
                    raise LockError(f"{what}: a link points outside the package: {member.name}")
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.symlink_to(member.linkname)
            # hard links, devices and fifos have no place in a JavaScript package: skipped


def link_bins(modules: Path, package: Locked) -> None:
    """npm's `.bin` links for the top-level packages (node_modules/.bin/eslint -> ...)."""
    if package.where.count("node_modules/") != 1 or not package.bins:
        return
    bin_dir = modules / ".bin"
    bin_dir.mkdir(exist_ok=True)
    for command, relative in package.bins.items():
        script = modules / package.where.removeprefix("node_modules/") / relative
        if not script.is_file():
            raise LockError(f"{package.where}: its program {relative} is missing")
        script.chmod(0o755)
        link = bin_dir / command
        if link.is_symlink() or link.exists():
            link.unlink()
        try:
            link.symlink_to(os.path.relpath(script, bin_dir))
        except OSError:
            # Windows without the right to make links: programs are only the tests' tools,
            # which run on Linux; the packages themselves are in place.
            if sys.platform != "win32":
                raise


def lock_digest(folder: Path) -> str:
    text = (folder / "package-lock.json").read_bytes()
    return hashlib.sha256(text + this_cpu().encode()).hexdigest()


def installed(folder: Path) -> bool:
    stamp = folder / "node_modules" / STAMP
    return stamp.is_file() and stamp.read_text().strip() == lock_digest(folder)


def install(folder: Path, say: bool = True) -> bool:
    """Make `folder/node_modules` exactly the lock's packages; False if it already was. The
    new tree is built beside the old one and swapped in only when complete."""
    if installed(folder):
        return False
    packages = read_lock(folder)
    modules = folder / "node_modules"
    partial = folder / "node_modules.partial"
    shutil.rmtree(partial, ignore_errors=True)
    partial.mkdir()
    try:
        for n, package in enumerate(packages, 1):
            if say and (n == 1 or n % 25 == 0):
                print(f"  {n}/{len(packages)} {package.name}", file=sys.stderr, flush=True)
            data = fetch(package.url, package.where)
            check_integrity(data, package.integrity, package.where)
            unpack(data, partial / package.where.removeprefix("node_modules/"), package.where)
        for package in packages:
            link_bins(partial, package)
        (partial / STAMP).write_text(lock_digest(folder) + "\n")
    except BaseException:
        shutil.rmtree(partial, ignore_errors=True)
        raise
    shutil.rmtree(modules, ignore_errors=True)
    partial.rename(modules)
    return True


def main(argv: list[str]) -> int:
    if argv[:1] == ["--check"]:  # exit 0 when every folder already holds its lock's packages
        return 0 if argv[1:] and all(installed(Path(a).resolve()) for a in argv[1:]) else 1
    if not argv:
        print(__doc__.strip().splitlines()[-1].strip(), file=sys.stderr)
        return 2
    for arg in argv:
        try:
            install(Path(arg).resolve())
        except (LockError, OSError, ValueError, KeyError) as exc:
            print(f"understudy setup: {exc}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
