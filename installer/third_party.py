"""Writes the .deb's copyright file (Debian's machine-readable format) and the licence texts
of everything the frozen app carries, into a doc folder.

Usage: python installer/third_party.py DOC_DIR

What is listed is what is installed in the build's Python (the frozen app is made from it):
each distribution's own licence files where it ships them, and where it ships none (Qt's
PySide6 wheels), its licence by name with the text from /usr/share/common-licenses.
"""

from __future__ import annotations

import re
import shutil
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

COMMON = Path("/usr/share/common-licenses")
# Licences the Debian system carries the text of: named in the copyright file, not copied.
COMMON_TEXTS = {"LGPL-3.0-only": "LGPL-3", "GPL-3.0-only": "GPL-3", "GPL-2.0-only": "GPL-2",
                "Apache-2.0": "Apache-2.0", "MPL-2.0": "MPL-2.0"}  # fmt: skip

HEADER = """\
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: Understudy Desktop
Source: the project's own repository

Files: *
Copyright: 2026 Understudy Desktop developers
License: MIT

Files: opt/understudy/_internal/PySide6/* opt/understudy/_internal/shiboken6/*
Copyright: The Qt Company Ltd. and other contributors
License: LGPL-3.0-only
 Qt 6 and its Python bindings, used under the LGPL 3.0; the text is in
 /usr/share/common-licenses/LGPL-3. Qt WebEngine contains Chromium, whose own code is
 under the BSD 3-Clause licence and whose third-party parts are under their own licences,
 listed in Qt's documentation ("Qt WebEngine Licensing").

Files: opt/understudy/_internal/libpython*
Copyright: Python Software Foundation
License: PSF-2.0
 The text is in third-party/python/LICENSE.txt.
"""

MIT = """\
License: MIT
 Permission is hereby granted, free of charge, to any person obtaining a copy of this
 software and associated documentation files (the "Software"), to deal in the Software
 without restriction, including without limitation the rights to use, copy, modify, merge,
 publish, distribute, sublicense, and/or sell copies of the Software, and to permit persons
 to whom the Software is furnished to do so, subject to the following conditions:
 .
 The above copyright notice and this permission notice shall be included in all copies or
 substantial portions of the Software.
 .
 THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED,
 INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, FITNESS FOR A PARTICULAR
 PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE
 FOR ANY CLAIM, DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
 OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER
 DEALINGS IN THE SOFTWARE.
"""


def runtime_distributions() -> list[metadata.Distribution]:
    """Understudy's own dependencies, and theirs, as installed (not the tests' tools)."""
    seen: dict[str, metadata.Distribution] = {}
    todo = ["understudy-desktop"]
    while todo:
        name = _key(todo.pop())
        if name in seen:
            continue
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue  # a dependency for another system (uvloop on Windows)
        seen[name] = dist
        for requirement in dist.requires or []:
            if "extra ==" in requirement:
                continue
            todo.append(re.split(r"[\s;<>=!~\[(]", requirement.strip(), maxsplit=1)[0])
    seen.pop("understudy-desktop", None)
    return sorted(seen.values(), key=lambda d: str(d.metadata["Name"]).lower())


def _key(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def licence_files(dist: metadata.Distribution) -> list[Path]:
    found = []
    for entry in dist.files or []:
        name = entry.name.lower()
        if any(k in name for k in ("license", "licence", "copying", "notice")):
            path = Path(str(dist.locate_file(entry)))
            if path.is_file():
                found.append(path)
    return found


def licence_name(dist: metadata.Distribution) -> str:
    meta = dist.metadata
    return str(meta.get("License-Expression") or meta.get("License") or "see its files").split(
        "\n"
    )[0][:120]


def write(doc: Path) -> list[str]:
    """Write doc/copyright and doc/third-party/; return the distributions listed."""
    third = doc / "third-party"
    third.mkdir(parents=True, exist_ok=True)
    listed = []
    sections = []
    for dist in runtime_distributions():
        name = str(dist.metadata["Name"])
        files = licence_files(dist)
        folder = third / name.lower()
        folder.mkdir(exist_ok=True)
        for path in files:
            shutil.copyfile(path, folder / path.name)
        licence = licence_name(dist)
        if not files:
            text = COMMON_TEXTS.get(licence.split(" OR ")[0].strip())
            where = f"/usr/share/common-licenses/{text}" if text else "its project's pages"
            (folder / "LICENSE-NAME").write_text(f"{name}: {licence}\nThe text: {where}\n")
        listed.append(name)
        sections.append(f"{name} {dist.version}: {licence}")
    python_licence = Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt"
    if python_licence.is_file():
        (third / "python").mkdir(exist_ok=True)
        shutil.copyfile(python_licence, third / "python" / "LICENSE.txt")
    body = HEADER + "\nComment: Python packages in the frozen app (their licence texts are in\n"
    body += " third-party/<name>/):\n" + "".join(f" {line}\n" for line in sections)
    (doc / "copyright").write_text(body + "\n" + MIT)
    return listed


if __name__ == "__main__":
    out = write(Path(sys.argv[1]))
    print(f"licences of {len(out)} packages written")
