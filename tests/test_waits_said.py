"""Tests wait for the state they need, with the one hang deadline (tests/waiting.py): no test
compares a clock in an assert, no Qt wait names a deadline of its own, and a fixed pause left
outside a polling loop says why on its line or the line above (it must be the point of its
test: time passing, a moment chosen at random)."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent
PAUSES = {("qtbot", "wait"), ("time", "sleep"), ("anyio", "sleep"), ("asyncio", "sleep")}
QT_WAITS = {"waitUntil", "waitSignal", "waitSignals", "waitCallback", "waitExposed", "waitActive"}
CLOCKS = {"monotonic", "perf_counter"}


def owner(call: ast.Call) -> str:
    assert isinstance(call.func, ast.Attribute)
    of = call.func.value
    return of.attr if isinstance(of, ast.Attribute) else getattr(of, "id", "")


def in_a_loop(node: ast.AST, parents: dict[ast.AST, ast.AST]) -> bool:
    while node in parents:
        node = parents[node]
        if isinstance(node, ast.While):
            return True
    return False


def findings(path: Path) -> list[str]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found: list[str] = []
    for node in ast.walk(tree):
        where = f"{path.name}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Assert):
            names = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            if names & CLOCKS:
                found.append(f"{where} asserts on a clock")
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        literal = [
            k for k in node.keywords if k.arg == "timeout" and isinstance(k.value, ast.Constant)
        ]
        if node.func.attr in QT_WAITS and literal:
            found.append(f"{where} gives a Qt wait a deadline of its own")
        pause = (owner(node), node.func.attr) in PAUSES
        if pause and node.args and isinstance(node.args[0], ast.Constant | ast.Call):
            line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
            if not in_a_loop(node, parents) and "#" not in line and not above.startswith("#"):
                found.append(f"{where} pauses for a fixed time without saying why")
    return found


def test_no_test_times_a_wait_or_waits_a_guessed_time():
    found = [f for path in sorted(TESTS.glob("*.py")) for f in findings(path)]
    assert found == []
