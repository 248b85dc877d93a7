"""Every refusal the app can give a caller is asserted, in its words, by some test.

A refusal is a call that carries an `ErrorCode` and a message; its fixed words (the parts of
the message that are not filled in) must appear in a test's strings. A refusal no test says
is a rule no test protects: the review found nine such rules broken without a failing test.
This file holds no refusal words itself, so it cannot satisfy its own check.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "understudy_desktop"
SHORTEST = 10  # shorter fixed parts ("Fix: ", ").") say nothing on their own


def _fixed_parts(node: ast.expr) -> list[str] | None:
    """The fixed words of a message expression, or None if it is not a message."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, ast.JoinedStr):
        return [v.value for v in node.values if isinstance(v, ast.Constant)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _fixed_parts(node.left), _fixed_parts(node.right)
        if left is None and right is None:
            return None
        return (left or []) + (right or [])
    return None


def _is_code(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "ErrorCode"
    )


def refusals() -> list[tuple[str, int, str]]:
    """(file, line, fixed words) of each refusal in the package."""
    found: list[tuple[str, int, str]] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            given = [*node.args, *(k.value for k in node.keywords)]
            if not any(_is_code(a) for a in given):
                continue
            for arg in given:
                for part in _fixed_parts(arg) or []:
                    words = part.strip()
                    if len(words) >= SHORTEST:
                        found.append((str(path.relative_to(ROOT)), node.lineno, words))
    return found


def said_in_tests() -> str:
    me = Path(__file__).resolve()
    said: list[str] = []
    for path in sorted((ROOT / "tests").glob("*.py")):
        if path.resolve() == me:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            parts = _fixed_parts(node) if isinstance(node, ast.Constant | ast.JoinedStr) else None
            said.extend(parts or [])
    return "\n".join(said)


def test_the_scan_finds_the_refusals_it_should():
    # A check that finds nothing passes on anything: it must see refusals we know are there.
    found = {words for _file, _line, words in refusals()}
    assert len(found) >= 40
    assert any(w.startswith("That tool is not active") for w in found)
    assert any("tools are active already" in w for w in found)  # an f-string's fixed part


def test_every_refusal_is_asserted_in_its_words_by_a_test():
    said = said_in_tests()
    unasserted = [f"{f}:{line}: {words}" for f, line, words in refusals() if words not in said]
    assert not unasserted, "refusals no test asserts:\n" + "\n".join(unasserted)
