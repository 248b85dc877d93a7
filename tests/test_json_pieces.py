"""A big JSON export is read a ticket at a time (queue_io/json_pieces.py), and reads exactly as
`json.loads` reads it: the same value, and for a text that is not JSON the same error."""

from __future__ import annotations

import json
import sys

from hypothesis import example, given
from hypothesis import strategies as st

from understudy_desktop.queue_io import json_pieces

VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(), inner, max_size=5),
    max_leaves=40,
)


@given(VALUES, st.sampled_from([None, 0, 2, "\t"]), st.booleans())
def test_any_json_reads_as_json_loads_reads_it(value, indent, ascii_only):
    text = json.dumps(value, indent=indent, ensure_ascii=ascii_only)
    assert json_pieces.loads(text) == json.loads(text)
    assert json_pieces.loads(f" \n{text}\r\n ") == value


# Texts made of JSON's own pieces, most of them broken.
BROKEN = st.lists(
    st.sampled_from(
        ["{", "}", "[", "]", ",", ":", '"a"', '"b', "1", " ", "\n", "null", "x", "\ufeff"]
    ),
    max_size=12,
).map("".join)


@given(BROKEN)
@example('[{"id": 1},]')
@example('{"tickets": [1, 2}')
@example('{"a": 1,}')
@example("")
@example("[1] [2]")
def test_a_text_that_is_not_json_fails_as_json_loads_fails(text):
    try:
        expected = json.loads(text)
    except json.JSONDecodeError as exc:
        want = exc
    else:
        assert json_pieces.loads(text) == expected
        return
    try:
        json_pieces.loads(text)
    except json.JSONDecodeError as exc:
        got = exc
    else:
        raise AssertionError(f"{text!r} was read, but it is not JSON")
    if sys.version_info < (3, 13) or "trailing comma" not in want.msg:
        # 3.13 names a trailing comma where the item after it is missing; 3.11 the item.
        assert (got.msg, got.pos) == (want.msg, want.pos)


def test_a_list_of_tickets_is_read_an_item_at_a_time(monkeypatch):
    calls: list[int] = []
    real = json_pieces._DECODER.raw_decode

    def counted(text, at):
        calls.append(at)
        return real(text, at)

    monkeypatch.setattr(json_pieces._DECODER, "raw_decode", counted)
    tickets = [{"id": i, "subject": "s"} for i in range(50)]
    assert json_pieces.loads(json.dumps({"tickets": tickets, "count": 50})) == {
        "tickets": tickets,
        "count": 50,
    }
    assert len(calls) == 50 + 1 + 2  # each ticket, the count, and the two keys
