"""The shell-page protocol is written once, in pydantic models: the page's types
(web_assets/types/protocol.d.ts) are generated from them, and docs/protocol.md is held to them.
"""

from __future__ import annotations

import re
import typing
from pathlib import Path

import pytest

from understudy_desktop.bridge import page_types, protocol, to_page
from understudy_desktop.bridge.protocol import Op

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")


def _members(union: object) -> tuple[type, ...]:
    # AskBody and Push are Annotated unions (with their discriminator); the others are plain.
    if typing.get_origin(union) is typing.Annotated:
        union = typing.get_args(union)[0]
    return typing.get_args(union)


def _literals(model: type, field: str) -> set[str]:
    return {str(v) for v in typing.get_args(model.model_fields[field].annotation)}


def _table(heading: str) -> dict[str, str]:
    """The rows of the table under `heading`, by the names in their first column."""
    section = DOC[DOC.index(heading) :]
    section = section[: section.find("\n#", len(heading))]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        first = line.split("|")[1]
        for name in re.findall(r"`([^`]+)`", first):
            rows[name] = rows.get(name, "") + line
    return rows


def test_the_page_types_are_the_ones_the_models_generate():
    assert page_types.main(["--check"]) == 0


def test_every_op_has_one_request_model():
    ops = [to_page.op_of(m) for m in to_page.REQUESTS]
    assert sorted(ops) == sorted(Op)
    assert set(to_page.REQUESTS) == set(_members(to_page.ShellRequest))
    assert set(to_page.ANSWERS) <= set(Op)


def test_every_ask_says_what_it_may_be_answered_with():
    kinds = set().union(*(_literals(m, "kind") for m in _members(protocol.AskBody)))
    assert set(to_page.REPLIES) == kinds
    replies = set(_members(to_page.ReplyValue))
    for models in to_page.REPLIES.values():
        assert set(models) <= replies
        assert to_page.Refusal in models  # the page's own link refuses any ask without a shell
    assert set().union(*map(set, to_page.REPLIES.values())) == replies


def test_a_reply_carries_only_what_its_maker_said():
    sent = to_page.wire(to_page.ReplyRequest(to="a1", value=to_page.TeachStopped(ok=True)))
    assert sent == {"op": "reply", "to": "a1", "value": {"ok": True}}
    done = to_page.reply_of({"ok": True, "rev": None}, to_page.CommandDone)
    assert to_page.wire(to_page.ReplyRequest(to="a2", value=done))["value"] == {
        "ok": True,
        "rev": None,
    }
    refusal = to_page.reply_of(
        {"isError": True, "code": "storage", "message": "m", "failedStep": 2}, to_page.CommandDone
    )
    assert isinstance(refusal, to_page.Refusal)
    assert to_page.wire(to_page.ReplyRequest(to="a3", value=refusal))["value"] == {
        "isError": True,
        "code": "storage",
        "message": "m",
        "failedStep": 2,
    }


def test_an_answer_that_does_not_fit_still_answers_the_page(caplog):
    odd = to_page.reply_of({"ok": True, "rev": 3, "said": "more"}, to_page.CommandDone)
    assert isinstance(odd, to_page.Refusal) and odd.code == "internal"
    assert "does not fit" in caplog.text


def test_a_request_carries_every_field():
    sent = to_page.wire(to_page.SavedRequest(revision=None, error="", generation=None))
    assert sent == {"op": "saved", "revision": None, "error": "", "generation": None}


def test_protocol_md_lists_every_request_and_its_fields():
    rows = _table("## Shell → page requests")
    assert set(rows) == {str(op) for op in Op}
    for model in to_page.REQUESTS:
        row = rows[str(to_page.op_of(model))]
        for field in model.model_fields:
            if field != "op":
                assert f"`{field}`" in row, f"protocol.md: {model.__name__}.{field}"
        answer = to_page.ANSWERS.get(to_page.op_of(model))
        if isinstance(answer, type):
            assert f"`{answer.__name__}`" in row


def test_protocol_md_lists_every_push_and_ask_and_what_answers_it():
    pushes = _table("## Page → shell pushes")
    events = set().union(*(_literals(m, "event") for m in _members(protocol.Push)))
    assert set(pushes) == events
    for model in _members(protocol.Push):
        (event,) = _literals(model, "event")
        for field in model.model_fields:
            if field != "event":
                assert f"`{field}`" in pushes[event], f"protocol.md: {model.__name__}.{field}"
    asks = _table("### Asks")
    assert set(asks) == set(to_page.REPLIES)
    for model in _members(protocol.AskBody):
        for kind in _literals(model, "kind"):
            for field in model.model_fields:
                if field != "kind":
                    assert f"`{field}`" in asks[kind], f"protocol.md: {model.__name__}.{field}"
    for kind, models in to_page.REPLIES.items():
        for model in models:
            assert f"`{model.__name__}`" in asks[kind], f"protocol.md: the reply to {kind}"


@pytest.mark.parametrize("path", sorted(set(re.findall(r"`((?:[\w.-]+/)+[\w.-]+\.\w+)`", DOC))))
def test_every_file_protocol_md_names_exists(path):
    where = [ROOT / path, ROOT / "understudy_desktop" / path, ROOT / "web_assets" / path]
    assert any(p.is_file() for p in where), path


def test_protocol_md_names_the_files_that_handle_each_side():
    for name in (
        "bridge/protocol.py",
        "bridge/to_page.py",
        "bridge/console_port.py",
        "web_assets/js/shell_api.js",
        "js/app/shell_handlers.js",
        "web_assets/types/protocol.d.ts",
    ):
        assert f"`{name}`" in DOC
    handlers = (ROOT / "web_assets" / "js" / "app" / "shell_handlers.js").read_text("utf-8")
    table = handlers[handlers.index("shell.serve({") : handlers.index("\n  }, {")]
    served = set(re.findall(r"^    (\w+)[:,]", table, re.MULTILINE))
    # The console's handlers answer every request but two: its link (js/shell_api.js) takes
    # the replies to its asks, and the relay (js/webmcp/relay.js) the cancels.
    assert served == {str(op) for op in Op} - {"reply", "cancel"}


@pytest.mark.parametrize(
    "message",
    [
        to_page.ReplyRequest(to="a1", value=to_page.TeachStopped(ok=True)),
        to_page.SavedRequest(revision=None, error="", generation=None),
        to_page.FeedRequest(
            entries=[
                to_page.FeedEntry(
                    rev=7,
                    generation="g",
                    by="agent",
                    tool="tag_phrase",
                    toolShown="Tag “bank” \u2028 日本",
                    writes=[("set", "priority", "high", ["S-1", "S-2"])],
                    step=to_page.FeedStep(index=1, title="Set", control=None),
                )
            ]
        ),
        # A lone surrogate (a JSON export may hold one): UTF-8 cannot, the slow way escapes it.
        to_page.FeedRequest(
            entries=[
                to_page.FeedEntry(
                    rev=8,
                    generation="g",
                    by="person",
                    tool="",
                    toolShown="",
                    writes=[("add_tag", "tags", "a\ud800b", ["S-1"])],
                    step=None,
                )
            ]
        ),
    ],
)
@pytest.mark.parametrize("call_id", [None, "py1", 'py"2'])
def test_the_text_sent_is_the_message_with_its_call_id_first(message, call_id):
    import json

    text = to_page.wire_text(message, call_id)
    expected = (
        to_page.wire(message) if call_id is None else {"id": call_id, **to_page.wire(message)}
    )
    assert json.loads(text) == expected
    assert call_id is None or text.startswith('{"id":')
