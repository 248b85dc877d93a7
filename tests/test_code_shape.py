"""No function in the app, its tools or its benchmarks is over 80 lines (the page's code is held
to the same by ESLint's max-lines-per-function, eslint.config.mjs)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 80


def long_functions() -> list[str]:
    found = []
    for folder in ("understudy_desktop", "tools", "bench", "installer"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    lines = (node.end_lineno or node.lineno) - node.lineno + 1
                    if lines > LIMIT:
                        found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name} {lines}")
    return found


def test_no_function_is_over_80_lines():
    assert long_functions() == []


def test_the_check_reads_the_code_it_means_to():
    # Guards the guard: it must see the app's modules, or an empty result means nothing.
    assert len(list((ROOT / "understudy_desktop").rglob("*.py"))) > 50
