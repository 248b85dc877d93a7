"""Every code a caller can be given is one ErrorCode, and the README lists exactly those."""

from __future__ import annotations

import re
from pathlib import Path

from understudy_desktop import error_codes
from understudy_desktop.agent.results import success_result
from understudy_desktop.error_codes import MEANINGS, ErrorCode, known

ROOT = Path(__file__).resolve().parent.parent
# A code written as a bare string where a refusal is made (the call sites take ErrorCode).
PY_LITERAL = re.compile(
    r'\b(?:fail|error|_no|_error|CommandError|LibraryError|error_result|RunError)\(\s*"([a-z_]+)"'
    r'|"code":\s*"([a-z_]+)"'
)
JS_LITERAL = re.compile(r"\bcode: '([a-z_]+)'")


def test_each_code_has_its_meaning():
    assert set(MEANINGS) == set(ErrorCode)
    assert all(words and who for who, words in MEANINGS.values())


def test_the_readme_lists_the_codes_the_enum_has():
    assert error_codes.main(["--check"]) == 0
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = readme[readme.index(error_codes.START) : readme.index(error_codes.END)]
    assert set(re.findall(r"^- `([a-z_]+)`:", block, re.MULTILINE)) == {c.value for c in ErrorCode}


def test_no_refusal_in_the_shell_spells_its_code_by_hand():
    found = {
        f"{path.relative_to(ROOT)}: {m.group(0)}"
        for path in (ROOT / "understudy_desktop").rglob("*.py")
        for m in PY_LITERAL.finditer(path.read_text(encoding="utf-8"))
    }
    assert not found


def test_every_code_the_page_gives_is_one_of_ours():
    codes = {
        m.group(1)
        for path in (ROOT / "web_assets" / "js").rglob("*.js")
        for m in JS_LITERAL.finditer(path.read_text(encoding="utf-8"))
    }
    assert codes, "the scan found the page's codes"
    assert {c for c in codes if known(c) is None} == set()


def test_a_code_the_page_made_up_reaches_agents_as_tool_error():
    result = success_result('{"isError": true, "code": "ignore_all_rules", "message": "m"}')
    assert result.is_error and result.structured_content is not None
    assert result.structured_content["code"] == "tool_error"
    kept = success_result('{"isError": true, "code": "timeout", "message": "m"}')
    assert kept.structured_content is not None and kept.structured_content["code"] == "timeout"
