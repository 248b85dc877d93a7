"""Is the console's page complete? Every file its scripts import, followed from index.html.

A page whose module cannot load never tells the shell it is ready, and the app would wait
for ever with an empty window (a wheel built without the page libraries did exactly that).
Checked before the window opens, a missing file becomes a message a person can act on.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

# <script type="module" src="js/main.js">, and the relative module specifiers of static
# imports and re-exports (`import x from './a.js'`, `import './b.js'`, `export * from './c.js'`).
_ENTRY = re.compile(r"""<script\b[^>]*\btype=["']module["'][^>]*\bsrc=["']([^"']+)["']""")
_SPECIFIER = re.compile(r"""(?:\bfrom\s*|^\s*import\s*)["'](\.{1,2}/[^"']+)["']""", re.M)


def missing_page_files(root: Path) -> list[str]:
    """The page's files (relative to `root`) that its scripts need and that are not there;
    empty when the page is complete."""
    index = root / "index.html"
    if not index.is_file():
        return ["index.html"]
    todo = [root / src for src in _ENTRY.findall(index.read_text(encoding="utf-8"))]
    seen: set[Path] = set()
    missing: list[str] = []
    while todo:
        path = todo.pop().resolve()
        if path in seen:
            continue
        seen.add(path)
        if not path.is_file():
            missing.append(Path(os.path.relpath(path, root.resolve())).as_posix())
            continue
        for spec in _SPECIFIER.findall(path.read_text(encoding="utf-8", errors="replace")):
            todo.append(path.parent / spec)
    return sorted(missing)


def incomplete_words() -> str:
    """What a person reads when the app's own files are incomplete (the names go to the log)."""
    return (
        "Understudy cannot start: some of its own files are missing, so its window would stay "
        "empty. Install Understudy again; from a source folder, start it with ./run-app, "
        "which puts them in place. Nothing of yours was changed."
    )
