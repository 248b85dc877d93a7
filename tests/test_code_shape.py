"""No function in the app, its tools or its benchmarks is over 80 lines (the page's code is held
to the same by ESLint's max-lines-per-function, eslint.config.mjs), and no module of queue_io
imports one that imports it back."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 80


def long_functions() -> list[str]:
    found = []
    for folder in ("understudy_desktop", "tools", "bench", "installer"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts:  # npm's own files (the pinned Node ships some)
                continue
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


# ---- no import cycles inside a package ----------------------------------------------------------


def _imported(tree: ast.Module, module: str, is_package: bool, known: set[str]) -> set[str]:
    """Every module of ``known`` that ``module`` names in an import, wherever the import is.

    ``ast.walk`` reaches imports under ``if TYPE_CHECKING:`` and inside functions too: a cycle
    hidden there still ties the two modules together, and is one refactor from a real one.
    ``from package import name`` counts the package (its ``__init__`` runs) and, when ``name``
    is a submodule, that submodule.
    """
    found: set[str] = set()
    here = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")
                anchor = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found & known


def import_graph(folder: Path, package: str) -> dict[str, set[str]]:
    """Module -> the modules of the same package it imports (the package itself as ``package``)."""
    paths = {
        (package if path.name == "__init__.py" else f"{package}.{path.stem}"): path
        for path in sorted(folder.glob("*.py"))
    }
    known = set(paths)
    return {
        module: _imported(
            ast.parse(path.read_text(encoding="utf-8")), module, module == package, known
        )
        - {module}
        for module, path in paths.items()
    }


def import_cycles(graph: dict[str, set[str]]) -> list[str]:
    """Each cycle found, as "a -> b -> a" (one per back edge of a depth-first walk)."""
    cycles: list[str] = []
    done: set[str] = set()
    path: list[str] = []

    def visit(module: str) -> None:
        path.append(module)
        for target in sorted(graph[module]):
            if target in path:
                cycles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in done:
                visit(target)
        path.pop()
        done.add(module)

    for module in sorted(graph):
        if module not in done:
            visit(module)
    return cycles


QUEUE_IO = ROOT / "understudy_desktop" / "queue_io"


def test_no_module_of_queue_io_imports_one_that_imports_it_back():
    # Importing a submodule runs the package's __init__ first; that implied import is not an
    # edge, or every submodule the package re-exports would make a cycle with it.
    assert import_cycles(import_graph(QUEUE_IO, "understudy_desktop.queue_io")) == []


def test_the_cycle_check_sees_imports_wherever_they_are(tmp_path: Path):
    # Guards the guard: a cycle closed only under TYPE_CHECKING, in a function, or through a
    # relative import is still found.
    (tmp_path / "__init__.py").write_text("from pkg.a import A\n", encoding="utf-8")
    (tmp_path / "a.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.b import B\nA = 1\n",
        encoding="utf-8",
    )
    (tmp_path / "b.py").write_text("def f():\n    from . import c\n", encoding="utf-8")
    (tmp_path / "c.py").write_text("from .a import A\n", encoding="utf-8")
    graph = import_graph(tmp_path, "pkg")
    assert graph["pkg.b"] == {"pkg", "pkg.c"}
    # b reaches the package too, whose __init__ imports a: going through it is a cycle as well.
    assert import_cycles(graph) == [
        "pkg -> pkg.a -> pkg.b -> pkg",
        "pkg.a -> pkg.b -> pkg.c -> pkg.a",
    ]
    assert "understudy_desktop.queue_io.reader" in import_graph(
        QUEUE_IO, "understudy_desktop.queue_io"
    )
