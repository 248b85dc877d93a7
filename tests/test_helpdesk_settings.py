"""A connection's settings and its sign-in: clear words for settings that cannot work, and
a secret kept where only this person can read it, never shown in a repr or an error."""

from __future__ import annotations

import stat

import pytest

from understudy_desktop.helpdesk.connect import Settings, SettingsError, checked, make
from understudy_desktop.helpdesk.credentials import FILE, Credentials, Secret


@pytest.mark.parametrize(
    ("settings", "words"),
    [
        (Settings("rt", "", "Support"), "Type the address of your Request Tracker."),
        (Settings("rt", "ftp://rt.example.com", "Support"), "should look like https://"),
        (Settings("zendesk", "http://team.zendesk.com", email="a@b.c"), "https://"),
        (Settings("rt", "https://rt.example.com", ""), "name of the Request Tracker queue"),
        (Settings("zendesk", "https://team.zendesk.com"), "email address you sign in"),
    ],
)
def test_settings_that_cannot_work_are_refused_in_words(settings, words):
    with pytest.raises(SettingsError) as caught:
        checked(settings)
    assert words in str(caught.value)


def test_an_address_is_tidied_and_plain_http_is_only_for_this_computer():
    tidy = checked(Settings("freshdesk", " team.freshdesk.com/ "))
    assert tidy.url == "https://team.freshdesk.com"
    assert checked(Settings("rt", "http://127.0.0.1:8080/rt/", "Support")).url == (
        "http://127.0.0.1:8080/rt"
    )
    with pytest.raises(SettingsError):
        make(tidy, "   ")


def test_an_unknown_helpdesk_in_stored_settings_is_refused():
    with pytest.raises(SettingsError):
        Settings.from_dict({"kind": "jira", "url": "https://x.example"})


def test_the_sign_in_is_kept_in_a_private_file_without_a_keyring(tmp_path):
    keep = Credentials(tmp_path, use_keyring=False)
    keep.save("https://rt.example.com", "1-23-abcdef")
    path = tmp_path / FILE
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert keep.where == "file"
    again = Credentials(tmp_path, use_keyring=False)
    secret = again.load("https://RT.example.com")  # an address is matched without case
    assert secret == "1-23-abcdef"
    assert isinstance(secret, Secret) and "abcdef" not in repr(secret)
    assert again.load("https://other.example.com") is None
    again.forget("https://rt.example.com")
    assert again.load("https://rt.example.com") is None
    assert not path.exists()


def test_a_looser_file_is_made_private_again(tmp_path):
    keep = Credentials(tmp_path, use_keyring=False)
    keep.save("https://a.example.com", "one")
    (tmp_path / FILE).chmod(0o644)
    keep.save("https://b.example.com", "two")
    assert stat.S_IMODE((tmp_path / FILE).stat().st_mode) == 0o600
    assert keep.load("https://a.example.com") == "one"
