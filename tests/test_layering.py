"""The house's layers, held by parsing every import (ARCHITECTURE.md draws them).

- consent/ (the manifest, the ledger and its Grant, the seal) is what the library needs to
  check a change; it imports nothing of the library, the agent endpoint, the shell, the page
  bridge or the approval flow, so no cycle can run between consent and the library.
- library/ decides what a tool is and may do; it never imports the approval flow that asks
  the person (approval/), the shell's windows (shell/) or the page (bridge/): those sit on
  top of it.
- team/ is the team library as a service; the team window, its menu and Settings (shell/)
  sit on top of it, never the other way round.
- packs/ reads, plans and writes Tool Packs without a window: the import preview and its flow
  (shell/) and the approval flow sit on top of it.

Imports inside functions and under TYPE_CHECKING count too: a late import is still a
dependency.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "understudy_desktop"
NAME = "understudy_desktop"

# (the layer, as a folder of the package; the layers it must not import)
RULES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("consent", ("library", "agent", "shell", "bridge", "approval")),
    ("library", ("approval", "shell", "bridge")),
    ("team", ("shell",)),
    ("packs", ("approval", "shell", "bridge")),
    ("model", ("library", "approval", "shell", "bridge", "team")),
)


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


def layer_of(relative: str) -> str:
    return Path(relative).parts[0]


def broken_rules(files: Iterable[tuple[str, str]]) -> list[str]:
    """Each import that crosses a layer it must not: 'file imports module'."""
    broken = []
    for relative, source in files:
        forbidden = dict(RULES).get(layer_of(relative), ())
        for module in imported_modules(relative, source):
            head = module.split(".")
            if len(head) > 1 and head[0] == NAME and head[1] in forbidden:
                broken.append(f"{relative} imports {module}")
    return broken


def package_files() -> list[tuple[str, str]]:
    return [
        (path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    ]


def test_no_layer_imports_one_above_it():
    assert broken_rules(package_files()) == []


def test_the_check_reads_every_layer_it_guards():
    # Guards the guard: an empty result means nothing if the layers' files were not read.
    layers = {layer_of(relative) for relative, _source in package_files()}
    assert {layer for layer, _ in RULES} <= layers
    assert {"approval", "bridge", "shell", "agent"} <= layers


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
        ("team/inbox.py", "from understudy_desktop.shell import team_words\n"),
        ("model/service.py", "from understudy_desktop.bridge import to_page\n"),
        ("packs/adding.py", "from understudy_desktop.shell.pack_dialogs import Mapping\n"),
    ],
)
def test_each_rule_fails_when_it_is_broken(relative, source):
    assert len(broken_rules([(relative, source)])) == 1


@pytest.mark.parametrize(
    ("relative", "source"),
    [
        ("consent/ledger.py", "from understudy_desktop.rules import rules\n"),
        ("library/library.py", "from understudy_desktop.consent.ledger import Grant\n"),
        ("team/folder.py", "from understudy_desktop.library.model import definition_hash\n"),
        ("shell/team_menu.py", "from understudy_desktop.team.library_service import TeamLibrary\n"),
        ("bridge/console_asks.py", "from understudy_desktop.approval.service import PERSON\n"),
    ],
)
def test_imports_down_the_layers_are_allowed(relative, source):
    assert broken_rules([(relative, source)]) == []
