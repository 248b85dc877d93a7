"""A helpdesk sign-in never leaves the app's memory through a log, an error's words, or an
exception's text, whatever was pasted: a key with a zero-width space or an accent copied
from chat, a very long one, an empty one. One redaction point (redact.py) covers every log
record; the sign-in itself is cleaned or refused in words before it reaches a request header
(where Python would fail with the whole header in its error). Run against a real Request
Tracker, with the app's own logging in place, then every file the app wrote is read."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from helpdesk_helpers import make_desk, needs_rt

from understudy_desktop.helpdesk.connect import Settings, SettingsError, clean_secret
from understudy_desktop.logs import configure_logging
from understudy_desktop.paths import DataPaths
from understudy_desktop.redact import MASK, Secret, redact, remember_secret

# Each pasted key carries a marker that must never be found in anything the app writes.
ODD_KEYS = {
    "zero-width space from chat": "1-99-zwsp\u200bMARKzwsp",
    "a letter with an accent": "1-99-tok\u00e9nMARKaccent",
    "a no-break space inside": "1-99-nb\u00a0spMARKnbsp",
    "very long": "1-99-" + "L" * 6000 + "MARKlong",
    "a byte-order mark in front": "\ufeff1-99-bomMARKbom",
}


def forms(value: str) -> set[str]:
    """Pieces by which a key would be recognised in a file: the marker with what is around
    it, as typed and as Python escapes it."""
    marker_at = value.index("MARK")
    piece = value[max(0, marker_at - 6) : marker_at + 10]
    return {piece, piece.encode("unicode_escape").decode(), value[marker_at : marker_at + 10]}


@pytest.mark.parametrize(
    "text",
    [
        "UnicodeEncodeError('ascii', 'token 1-99-ab\\u200bcSECRETVALUE', 9, 10, 'x')",
        "{'Authorization': 'token 1-99-SECRETVALUE'}",
        "Authorization: Bearer SECRETVALUE.more",
        "GET https://rt.example/REST/2.0/queue?token=SECRETVALUE&x=1",
        "api_key=SECRETVALUE password: SECRETVALUE",
        "headers: Basic U0VDUkVUVkFMVUU6eA==",
    ],
)
def test_credential_shaped_text_is_masked_whatever_its_value(text):
    assert "SECRETVALUE" not in redact(text) and "U0VDUkVU" not in redact(text)
    assert MASK in redact(text)


def test_a_remembered_secret_is_masked_in_every_form_it_can_take():
    key = "7-77-ab\u200bcKNOWNSECRET"
    remember_secret(key)
    for written in (key, repr(key), key.encode("unicode_escape").decode(), "x=7-77-ab%E2%80%8Bc"):
        assert "KNOWNSECRET" not in redact(f"before {written} after") or "%E2" in written
    assert "KNOWNSECRET" not in redact(f"said: {Secret('zz-KNOWNSECRET2')!s} and more")
    assert "ordinary words stay" in redact("ordinary words stay")


@pytest.mark.parametrize(
    ("pasted", "used"),
    [
        ("\u200b1-99-abc\u200b", "1-99-abc"),
        ("  1-99-abc\n", "1-99-abc"),
        ("\ufeff1-99-abc\u00a0", "1-99-abc"),
    ],
)
def test_invisible_characters_copied_with_a_key_are_dropped(pasted, used):
    assert clean_secret(Settings("rt", "https://rt.example", "Support"), pasted) == used


@pytest.mark.parametrize("pasted", ["1-99-tok\u00e9n", "1-99 abc", "\u200b", ""])
def test_a_key_with_a_character_no_key_has_is_refused_in_words(pasted):
    with pytest.raises(SettingsError) as refused:
        clean_secret(Settings("rt", "https://rt.example", "Support"), pasted)
    words = str(refused.value)
    assert "auth token" in words.lower()
    assert pasted.strip() == "" or pasted not in words


@pytest.fixture
def app_logging(data_dir: Path):
    """The app's own logging (as its command line sets it up), for one test."""
    root = logging.getLogger()
    before = (list(root.handlers), root.level)
    configure_logging(DataPaths(data_dir))
    yield data_dir / "logs"
    for handler in root.handlers:
        handler.close()
    root.handlers, root.level = before


def written_files(data_dir: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in data_dir.rglob("*") if p.is_file() and not p.is_symlink()}


@pytest.mark.slow
@needs_rt
def test_no_pasted_key_reaches_a_file_or_the_dialog(
    console, qtbot, rt_server, app_logging, data_dir
):
    from test_helpdesk_in_app import connect

    desk = make_desk(rt_server, tickets=1)
    shown: list[str] = []
    for key in ODD_KEYS.values():
        dialog = connect(console, qtbot, desk, token=key)
        dialog.said.setText("")
        dialog.test_button.click()
        qtbot.waitUntil(lambda d=dialog: d.said.text() not in ("", "Asking Request Tracker…"))
        shown.append(dialog.said.text())
        dialog.reject()
    logging.getLogger("understudy").info("flush")
    # Each was either refused in words before any request, or refused by RT.
    assert all("sign-in" in s or "cannot have" in s for s in shown), shown
    leaks = [
        (path.name, name)
        for path, data in written_files(data_dir).items()
        for name, key in ODD_KEYS.items()
        for piece in forms(key)
        if piece.encode() in data
    ]
    assert leaks == []
    assert not [s for s in shown for key in ODD_KEYS.values() if key[-8:] in s]
    assert (app_logging / "understudy.log").is_file()


@pytest.mark.slow
@needs_rt
def test_an_unexpected_failure_carrying_the_key_is_logged_without_it(
    console, qtbot, rt_server, app_logging, monkeypatch, data_dir
):
    """Whatever raises while talking to the helpdesk, with the key inside its text or its
    arguments, the log has the failure and not the key; the person reads plain words."""
    from test_helpdesk_in_app import connect

    from understudy_desktop.shell import helpdesk_link

    desk = make_desk(rt_server, tickets=1)
    key = "1-99-unexpectedMARKboom"

    def broken(settings, secret, transport=None):
        raise RuntimeError(f"failed with headers {{'Authorization': 'token {secret}'}} {secret!s}")

    monkeypatch.setattr(helpdesk_link, "make", broken)
    dialog = connect(console, qtbot, desk, token=key)
    dialog.test_button.click()
    qtbot.waitUntil(lambda: "details in the log" in dialog.said.text())
    dialog.reject()
    log = (app_logging / "understudy.log").read_text(encoding="utf-8")
    assert "the helpdesk connection failed" in log
    assert "MARKboom" not in log
    assert not [p for p, data in written_files(data_dir).items() if b"MARKboom" in data]
