"""The .deb's Depends, read from what the frozen app really needs of the system: every shared
library some bundled binary asks for (ELF NEEDED) that the bundle does not carry itself,
found where the dynamic linker finds it (ldconfig's cache) and named by the package that
owns it (dpkg). A library the system cannot name a package for stops the build: shipping it
would start on this machine and fail on the next.

    python installer/depends.py BUNDLE_DIR   # prints the Depends field's value
"""

from __future__ import annotations

import platform
import re
import subprocess
import sys
from pathlib import Path

# Part of every system and pinned by version below (libc6's own symbol versions).
C_LIBRARY = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0", "librt.so.1", "libutil.so.1",
    "ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "libresolv.so.2",
}  # fmt: skip


def elf_files(bundle: Path) -> list[Path]:
    found = []
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as f:
                if f.read(4) == b"\x7fELF":
                    found.append(path)
    return found


def needed(path: Path) -> list[str]:
    out = subprocess.run(
        ["readelf", "-d", str(path)], capture_output=True, text=True, check=False
    ).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)


def glibc_version(files: list[Path]) -> str:
    versions: set[tuple[int, ...]] = set()
    for path in files:
        out = subprocess.run(
            ["objdump", "-T", str(path)], capture_output=True, text=True, check=False
        ).stdout
        for v in re.findall(r"GLIBC_([0-9.]+)", out):
            versions.add(tuple(int(x) for x in v.split(".")))
    return ".".join(map(str, max(versions))) if versions else "2.28"


def linker_cache() -> dict[str, str]:
    """Library name -> path, for this machine's own architecture (the cache lists others too)."""
    out = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=True).stdout
    tag = {"x86_64": "x86-64", "aarch64": "AArch64"}.get(platform.machine(), "")
    cache: dict[str, str] = {}
    for name, flags, path in re.findall(r"^\s*(\S+) \(([^)]*)\) => (\S+)$", out, re.M):
        if tag in flags:
            cache.setdefault(name, path)
    return cache


def owner(path: str) -> str | None:
    """The package owning `path`, trying the merged-/usr twin where dpkg lists the other."""
    real = str(Path(path).resolve())
    candidates = {path, real}
    for p in list(candidates):
        if p.startswith("/usr/lib/"):
            candidates.add(p.removeprefix("/usr"))
        elif p.startswith("/lib/"):
            candidates.add("/usr" + p)
    for p in sorted(candidates):
        done = subprocess.run(["dpkg", "-S", p], capture_output=True, text=True, check=False)
        for line in done.stdout.splitlines():
            # "libfoo1:amd64: /path"; a diverted file adds "diversion by bar from: /path".
            if line.startswith(("diversion by", "local diversion")):
                continue
            return line.split(": ", 1)[0].split(",")[0].split(":")[0].strip()
    return None


def depends(bundle: Path) -> str:
    files = elf_files(bundle)
    carried = {p.name for p in bundle.rglob("*")}
    wanted = {n for p in files for n in needed(p)} - carried - C_LIBRARY
    cache = linker_cache()
    packages: set[str] = set()
    unknown = []
    for name in sorted(wanted):
        path = cache.get(name)
        package = owner(path) if path else None
        if package is None:
            unknown.append(name)
        else:
            packages.add(package)
    if unknown:
        raise SystemExit(
            "the frozen app needs system libraries that no installed package provides: "
            + ", ".join(unknown)
        )
    return ", ".join([f"libc6 (>= {glibc_version(files)})", *sorted(packages)])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.strip().splitlines()[-1].strip())
    print(depends(Path(sys.argv[1])))
