"""The id of a request too large to pass on, read from the head of its line."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from understudy_desktop.agent.relay import id_in

ids = st.one_of(st.text(max_size=40), st.integers(min_value=-(2**53), max_value=2**53))


@given(ids, st.text(max_size=200))
def test_the_id_is_found_whatever_its_value_and_whatever_follows(request_id, note):
    line = json.dumps({"jsonrpc": "2.0", "id": request_id, "params": {"note": note}}).encode()
    assert id_in(line) == request_id
    # Only the head of a line that was skipped: found when the id comes before the cut.
    cut = line[: line.index(b'"params"')]
    assert id_in(cut) == request_id


def test_an_id_inside_the_params_is_not_the_requests():
    line = b'{"jsonrpc":"2.0","params":{"id":5,"x":"' + b"x" * 100 + b'"},"id":"real"}'
    assert id_in(line) == "real"
    assert id_in(line[:60]) is None  # cut before the real id: no guess


@pytest.mark.parametrize(
    "line",
    [
        b'{"id": null, "method": "ping"}',
        b'{"id": 1.5, "method": "ping"}',
        b'{"id": true, "method": "ping"}',
        b'{"id": {}, "method": "ping"}',
        b"[1, 2]",
        b"not json",
        b"",
    ],
)
def test_no_id_an_answer_could_carry_is_none(line):
    assert id_in(line) is None
