"""The house's layers, held by parsing every import (ARCHITECTURE.md, "The layers", lists them).

Every sub-package and every top-level module of the package is one name in LAYERS, which
runs from the bottom up. A name may import only names in the rows below its own: never one
above, and never one beside it in its row, so no two of them can import each other and
nothing decides with code that sits on top of it. The rows that matter most:

- store/ (the database and its migrations) is below everything that keeps state in it: it
  creates every table, the model's and the helpdesk's too, without importing either.
- model/ applies commands below the library, so a run's steps never reach for the agent
  endpoint or the library that asked for the run.
- consent/ (the manifest, the ledger and its Grant, the seal) is below library/, which checks
  every change against it; approval/ (the dialog that asks the person) is above both.
- library/ decides what a tool is and may do; packs/ and team/ read and share tools on top of
  it, and the agent's calls, the page's asks (shell/console_asks.py) and the windows sit
  above those.
- bridge/ carries the page's messages and decides nothing; the agent's calls use it, and the
  shell answers what the page asks.

Imports inside functions and under TYPE_CHECKING count too: a late import is still a
dependency.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "understudy_desktop"
NAME = "understudy_desktop"
# The package's own __init__.py (its name and version) is a layer of its own, by this name.
ROOT_INIT = "__init__"

# Bottom to top. Each row may import only the rows before it; a row's names import none of
# each other.
LAYERS: tuple[tuple[str, ...], ...] = (
    (
        ROOT_INIT,
        "atomic_file",
        "chromium_flags",
        "error_codes",
        "generated_file",
        "js_text",
        "redact",
        "schema_check",
        "start_problems",
        "text",
    ),
    ("paths", "single_instance"),
    ("rules", "catalogue", "logs"),
    ("definition", "consent", "queue_io"),
    ("gc_on_main",),
    ("qt_thread",),
    ("store",),
    ("model",),
    ("library", "helpdesk"),
    ("packs", "approval", "web"),
    ("team", "bridge"),
    ("agent",),
    ("shell",),
    ("app",),
    ("cli",),
    ("__main__",),
)
RANK = {name: rank for rank, row in enumerate(LAYERS) for name in row}


def imported_modules(relative: str, source: str) -> list[str]:
    """The module each import in `source` names, dotted, one per module imported (relative
    imports resolved against `relative`, the file's path inside the package)."""
    # A module's package, and an __init__.py's own: the folder it is in, either way.
    package = [NAME, *Path(relative).parent.parts]
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, node.module] if node.module else base)
            else:
                module = node.module or ""
            if module == NAME:
                # `from understudy_desktop import shell` imports the subpackage itself.
                found.extend(f"{module}.{alias.name}" for alias in node.names)
            else:
                found.append(module)
    return found


def package_names() -> set[str]:
    """Every sub-package and top-level module of the package, as LAYERS names them."""
    names = {ROOT_INIT}
    for path in PACKAGE.iterdir():
        if path.suffix == ".py" and path.stem != ROOT_INIT:
            names.add(path.stem)
        elif path.is_dir() and (path / "__init__.py").is_file():
            names.add(path.name)
    return names


def layer_of(relative: str) -> str:
    """The layer of a file, by its path inside the package."""
    parts = Path(relative).parts
    return parts[0] if len(parts) > 1 else Path(relative).stem


def layer_imported(module: str, names: set[str]) -> str | None:
    """The layer an import of `module` reaches, None outside the package. A name of the
    package that is not a sub-package or module (APP_NAME) is its __init__.py's."""
    head = module.split(".")
    if head[0] != NAME:
        return None
    return head[1] if len(head) > 1 and head[1] in names else ROOT_INIT


def layer_imports(files: Iterable[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """(file, module, layer) for each import of another layer of the package."""
    names = package_names()
    found = []
    for relative, source in files:
        own = layer_of(relative)
        for module in imported_modules(relative, source):
            layer = layer_imported(module, names)
            if layer is not None and layer != own:
                found.append((relative, module, layer))
    return found


def broken_rules(files: Iterable[tuple[str, str]]) -> list[str]:
    """Each import that does not go down the layers: 'file imports module'."""
    broken = []
    for relative, module, layer in layer_imports(files):
        own = RANK.get(layer_of(relative))
        if own is None or layer not in RANK or RANK[layer] >= own:
            broken.append(f"{relative} imports {module}")
    return broken


def two_way_pairs(files: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    """Each pair of layers that import each other, whatever LAYERS says, sorted."""
    edges = {(layer_of(relative), layer) for relative, _module, layer in layer_imports(files)}
    return sorted((a, b) for a, b in edges if a < b and (b, a) in edges)


def package_files() -> list[tuple[str, str]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_no_layer_imports_one_above_or_beside_it() -> None:
    assert broken_rules(package_files()) == []


def test_no_two_layers_import_each_other() -> None:
    assert two_way_pairs(package_files()) == []


def test_every_package_and_module_has_one_layer() -> None:
    listed = [name for row in LAYERS for name in row]
    assert len(listed) == len(set(listed))
    assert set(listed) == package_names()


def test_the_check_reads_every_layer() -> None:
    # Guards the guard: an empty result means nothing if the layers' files were not read.
    read = {layer_of(relative) for relative, _source in package_files()}
    assert read == package_names()
    assert len(layer_imports(package_files())) > 100


def test_architecture_md_lists_the_same_layers() -> None:
    """The doc's table (top row first) names the same rows, in the same order."""
    text = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
    section = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    rows = [
        tuple(re.findall(r"`([\w.]+?)/?`", line.split("|")[2]))
        for line in section.splitlines()
        if re.match(r"\| \d+ \|", line)
    ]
    assert rows == [tuple(row) for row in reversed(LAYERS)]


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("consent/ledger.py", "from understudy_desktop.library.library import Library\n"),
        ("consent/seal.py", "import understudy_desktop.agent.calls\n"),
        ("consent/manifest.py", "def late():\n    from understudy_desktop import shell\n"),
        ("consent/ledger.py", "from understudy_desktop.approval.dialog import DialogText\n"),
        ("consent/ledger.py", "from ..approval import gate\n"),
        ("library/library.py", "from understudy_desktop.approval.service import PERSON\n"),
        ("library/runner.py", "from understudy_desktop.shell.main_window import MainWindow\n"),
        ("library/model.py", "from understudy_desktop.bridge.console_port import ConsolePort\n"),
        ("library/checks.py", "from understudy_desktop.packs.importer import parse_pack\n"),
        ("library/library.py", "from understudy_desktop.helpdesk import tables\n"),
        ("team/inbox.py", "from understudy_desktop.shell import team_words\n"),
        ("model/service.py", "from understudy_desktop.bridge import to_page\n"),
        ("model/runs.py", "from understudy_desktop.agent.calls import ToolCalls\n"),
        ("packs/adding.py", "from understudy_desktop.shell.pack_dialogs import Mapping\n"),
        ("store/database.py", "from understudy_desktop.helpdesk import tables\n"),
        ("store/queue_store.py", "from understudy_desktop.model.tables import ticket\n"),
        ("bridge/console_port.py", "from understudy_desktop.agent.calls import ToolCalls\n"),
        (
            "agent/calls.py",
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from understudy_desktop.shell.console_asks import ConsoleAsks\n",
        ),
        ("rules.py", "from understudy_desktop.store.database import Database\n"),
        ("paths.py", "from . import cli\n"),
        ("text.py", "from .js_text import js_trim\n"),
        ("__init__.py", "from understudy_desktop.cli import main\n"),
        ("new_module.py", "from understudy_desktop.text import visible_controls\n"),
    ],
)
def test_each_rule_fails_when_it_is_broken(relative: str, source: str) -> None:
    assert len(broken_rules([(relative, source)])) == 1


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("consent/ledger.py", "from understudy_desktop.rules import rules\n"),
        ("library/library.py", "from understudy_desktop.consent.ledger import Grant\n"),
        ("library/library.py", "from .drift import grade_drift\n"),
        ("team/folder.py", "from understudy_desktop.library.model import definition_hash\n"),
        ("shell/team_menu.py", "from understudy_desktop.team.library_service import TeamLibrary\n"),
        ("shell/console_asks.py", "from understudy_desktop.approval.service import PERSON\n"),
        ("agent/calls.py", "from understudy_desktop.bridge.console_port import ConsolePort\n"),
        ("helpdesk/sync.py", "from understudy_desktop.store import ticket_tables\n"),
        ("paths.py", "from . import APP_NAME\n"),
        ("cli.py", "import understudy_desktop\nimport json\n"),
    ],
)
def test_imports_down_the_layers_are_allowed(relative: str, source: str) -> None:
    assert broken_rules([(relative, source)]) == []


def test_a_pair_that_imports_each_other_is_found() -> None:
    files = [
        ("store/database.py", "from understudy_desktop.helpdesk import tables\n"),
        ("helpdesk/outbox.py", "from understudy_desktop.store.database import Database\n"),
        ("model/runs.py", "from understudy_desktop.store import ticket_tables\n"),
    ]
    assert two_way_pairs(files) == [("helpdesk", "store")]
