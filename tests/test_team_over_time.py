"""The team folder over time, through real app instances (issue 48): what a member is told, and
what their agent can run, as the lead's word reaches them or is kept from them; a rule
deleted as it lands, written back; a newcomer choosing a lead among forgeries; a revoked key's
tools stopping. Each app has its own copy of the folder here, carried by `carry` (which can
leave kinds of files behind, as a peer in between with two ignore lines does); the same
attacks run over three real Syncthing peers in tests/test_team_syncthing.py. The member's
clock is the test's, so an expiry takes no waiting."""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_team_lead import item, states, wait_state
from test_team_library import GOOD, import_and_wait, member, offered, review_and_accept

from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.rules import rules
from understudy_desktop.shell.settings_dialog import InvitationDialog, SettingsDialog
from understudy_desktop.team import documents
from understudy_desktop.team.documents import when
from understudy_desktop.team.folder import KINDS, write_shared
from understudy_desktop.team.invitation import code_of
from understudy_desktop.team.view_work import work_out

pytestmark = pytest.mark.slow
GRACE = rules().teamFreshness.arrivalGraceSeconds


def carry(source: Path, target: Path, leave: tuple[str, ...] = ()) -> None:
    """What a sync service does, but for the kinds of file in `leave`: new files are copied,
    files gone from `source` are removed from `target`."""
    for kind in KINDS:
        if kind in leave or not (source / kind).is_dir():
            continue
        (target / kind).mkdir(exist_ok=True)
        here = {p.name for p in (source / kind).iterdir() if not p.name.startswith(".")}
        for name in here - {p.name for p in (target / kind).iterdir()}:
            with contextlib.suppress(FileNotFoundError):  # removed again meanwhile
                shutil.copyfile(source / kind / name, target / kind / name)
        for gone in {p.name for p in (target / kind).iterdir()} - here:
            (target / kind / gone).unlink()


def confirmed_rules(copy: Path) -> set[str]:
    """The rules files the confirmations in this copy of the folder name as in force."""
    return {
        json.loads(p.read_bytes())["rules"]
        for p in (copy / "confirmed").glob("*.json")
        if not p.name.startswith(".")
    }


def confirmed_since(copy: Path, key: str, since: float) -> bool:
    """A confirmation signed by `key`, dated `since` or later, is in this copy."""
    for path in (copy / "confirmed").glob("*.json"):
        if path.name.startswith("."):
            continue
        document = json.loads(path.read_bytes())
        if document["authorKey"] == key and when(document["created"]).timestamp() >= since - 1:
            return True
    return False


class Clock:
    """A member's clock that the test moves on."""

    def __init__(self) -> None:
        import time

        self.ahead = 0.0
        self._time = time.time

    def __call__(self) -> float:
        return self._time() + self.ahead


def apart(console_factory, tmp_path: Path):
    """Lee Park and Sam Lee, each an app on a copy of the folder of their own (`carry` takes
    files from Lee's copy to Sam's)."""
    lee_dir, sam_dir = tmp_path / "lee-copy", tmp_path / "sam-copy"
    lee_dir.mkdir()
    sam_dir.mkdir()
    lee = member(console_factory, tmp_path / "lee", lee_dir, "Lee Park")
    sam = member(console_factory, tmp_path / "sam", sam_dir, "Sam Lee")
    return lee_dir, sam_dir, lee, sam


def settle(console) -> None:
    console.scan_team_folder()
    console.qtbot.waitUntil(console.session.team.settled)


def agent_call(console, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return console.wait_for(
        lambda done: console.session.calls.call(name, arguments, "an agent", done)
    )


def test_a_frozen_copy_is_noticed_and_team_tools_pause_as_the_lead_chose(console_factory, tmp_path):
    """The lead's new rules never reach Sam's copy (a peer in between ignores policy/):
    Sam is told in words, his agent is refused in words, and when the rules arrive
    everything is confirmed again."""
    lee_dir, sam_dir, lee, sam = apart(console_factory, tmp_path)
    clock = Clock()
    team = sam.session.team
    team._clock = clock
    told: list[str] = []
    team._notify = told.append

    # Lee shares a tool and sets the rules: confirmations last an hour; pause without one.
    import_and_wait(lee, GOOD)
    assert lee.session.team.share(["assign_refund"], "Lee Park") == 1
    assert lee.session.team.write_policy(
        None, False, [], confirm_for=3600, when_unconfirmed="pause"
    )
    lee.qtbot.waitUntil(lambda: bool(confirmed_rules(lee_dir)))
    lee_key = lee.session.team.identity.public_key
    carry(lee_dir, sam_dir)
    settle(sam)
    team.follow_lead(lee_key)
    review_and_accept(sam, offered(sam, 1)[0])
    settle(sam)
    assert team.view.freshness.state == "fresh"
    answer = agent_call(sam, "assign_refund", {"ticket_id": "T-1001"})
    assert not answer.get("isError"), answer

    # Lee turns the tool off for the team. The confirmation naming the new rules reaches
    # Sam; the rules themselves do not.
    assert lee.session.team.turn_off_for_team(item(lee, "assign_refund"))
    newest_rules = lee.session.team.view.policies[0].digest
    lee.qtbot.waitUntil(lambda: newest_rules in confirmed_rules(lee_dir))
    carry(lee_dir, sam_dir, leave=("policy",))
    settle(sam)
    assert team.view.freshness.state == "fresh"  # the rules may still be on their way
    clock.ahead = GRACE + 1
    settle(sam)
    fresh = team.view.freshness
    assert fresh.state == "missing" and fresh.missing_rules and fresh.paused
    said = [m for m in told if "not reached this computer" in m]
    assert said and said[0].startswith(
        "Your team lead Lee Park confirmed newer rules that have not reached this computer."
    )
    assert "team tools are paused" in said[0]
    assert "paused" in team.status and "Lee Park" in team.status
    refused = agent_call(sam, "assign_refund", {"ticket_id": "T-1001"})
    assert refused["code"] == ErrorCode.TEAM_UNCONFIRMED
    assert (
        "comes from the team library, and your team lead Lee Park confirmed" in (refused["message"])
    )
    assert "assign_refund" not in sam.listed()

    # Nothing reaches Sam any more, confirmations included: after an hour, the words say
    # when the rules were last confirmed.
    clock.ahead = 3600 * 3
    settle(sam)
    assert team.view.freshness.state == "expired"
    assert any("were last confirmed by Lee Park 3 hours ago" in m for m in told), told

    # The rules arrive: the tool is off for the team (as the lead said), and the word is
    # confirmed again once Lee's app signs anew.
    clock.ahead = 0
    carry(lee_dir, sam_dir)
    settle(sam)
    sam.qtbot.waitUntil(lambda: sam.library.get("assign_refund").held == "team_off")
    assert team.view.freshness.state == "fresh"
    assert any("confirmed again" in m for m in told)
    assert not sam.session.library.paused_for(sam.library.get("assign_refund"))


def test_with_the_lead_letting_tools_run_an_agent_is_told_the_rules_are_unconfirmed(
    console_factory, tmp_path
):
    lee_dir, sam_dir, lee, sam = apart(console_factory, tmp_path)
    clock = Clock()
    sam.session.team._clock = clock
    import_and_wait(lee, GOOD)
    lee.session.team.share(["assign_refund"], "Lee Park")
    assert lee.session.team.write_policy(None, False, [], confirm_for=3600)
    lee.qtbot.waitUntil(lambda: any((lee_dir / "confirmed").glob("*.json")))
    carry(lee_dir, sam_dir)
    settle(sam)
    sam.session.team.follow_lead(lee.session.team.identity.public_key)
    review_and_accept(sam, offered(sam, 1)[0])
    clock.ahead = 7200
    settle(sam)
    assert sam.session.team.view.freshness.state == "expired"
    answer = agent_call(sam, "assign_refund", {"ticket_id": "T-1001"})
    assert not answer.get("isError"), answer
    assert answer["teamRules"] == "your team's rules were last confirmed by Lee Park 2 hours ago"
    assert "team tools still run" in sam.session.team.status


def test_a_rule_deleted_as_it_lands_is_written_back_and_reaches_a_member_later(
    console_factory, tmp_path
):
    """The lead turns a tool off while Sam's app is closed; someone deletes the file as it
    lands. The lead's app puts it back and says so; Sam's app, opened later, follows it."""
    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Park")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    import_and_wait(lee, GOOD)
    lee.session.team.share(["assign_refund"], "Lee Park")
    assert lee.session.team.write_policy(None, False, [])
    lee_key = lee.session.team.identity.public_key
    settle(sam)
    sam.session.team.follow_lead(lee_key)
    review_and_accept(sam, offered(sam, 1)[0])
    sam.session.close()

    told: list[str] = []
    lee.session.team._notify = told.append
    assert lee.session.team.turn_off_for_team(item(lee, "assign_refund"))
    newest = max((folder / "policy").glob("*.json"), key=lambda p: p.stat().st_mtime_ns)
    newest.unlink()
    settle(lee)  # the scan that finds it gone, and the view worked out from it
    assert newest.exists()
    assert any(
        m.startswith("Someone removed the team's rules (number 2) from the team folder")
        for m in told
    ), told

    again = console_factory(tmp_path / "sam")
    again.qtbot.waitUntil(lambda: again.library.get("assign_refund").held == "team_off")
    assert "assign_refund" not in again.listed()


def test_a_newcomer_sees_every_key_that_claims_the_leads_name_and_follows_the_invitation(
    console_factory, tmp_path, qtbot
):
    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Park")
    assert lee.session.team.write_policy(None, False, [])
    lee_key = lee.session.team.identity.public_key
    # Two forgers sign rules under the lead's name, with higher numbers.
    for n, raw in enumerate((bytes([91]) * 32, bytes([92]) * 32), start=50):
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        from understudy_desktop.team.signing import sign

        forger = Ed25519PrivateKey.from_private_bytes(raw)
        doc = documents.policy_document("Lee Park", n, None, False, [])
        write_shared(folder, "policy", sign(doc, forger))
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    settle(sam)
    settings = SettingsDialog(sam.session.team, sam.window)
    qtbot.addWidget(settings)
    entries = [settings.lead.itemText(i) for i in range(settings.lead.count())]
    assert entries[0] == "Nobody (no rules)" and settings.lead.currentIndex() == 0
    leads = entries[1:]
    assert len(leads) == 3 and all(e.startswith("⚠ Lee Park · key ") for e in leads)
    # The order is by key, not by the rules number each signer claims.
    assert leads == sorted(leads)
    settings.lead.setCurrentIndex(1)
    assert settings.lead_warning.text().startswith("⚠ 3 different keys call themselves “Lee Park”")
    assert settings.lead_key.text().startswith("Fingerprint of this key: ")

    # A code with a typo's worth of look-alikes (O for 0, lower case, spaces) still works.
    code = code_of(lee_key).replace("0", "O").lower().replace("-", " ")
    said = sam.session.team.invitations.use_invitation_code(code)
    assert "You follow Lee Park's rules now" in said and sam.session.team.lead == lee_key
    settings = SettingsDialog(sam.session.team, sam.window)
    qtbot.addWidget(settings)
    assert settings.lead.currentData() == lee_key
    assert settings.lead_warning.text() == "✓ Your team lead's invitation names this key."

    # Bad input: said in words, nothing changed.
    dialog = InvitationDialog(sam.session.team, settings)
    qtbot.addWidget(dialog)
    dialog.code.setText("not a code")
    dialog.use_button.click()
    assert dialog.said.text().startswith("That is not an invitation code")
    assert sam.session.team.lead == lee_key

    # An invitation file, used by a newcomer before any of the lead's files arrived.
    invite = tmp_path / "lee.understudy-invitation"
    lee.session.team.invitations.save_invitation(invite)
    empty = tmp_path / "empty-team"
    empty.mkdir()
    ana = member(console_factory, tmp_path / "ana", empty, "Ana Díaz")
    said = ana.session.team.invitations.use_invitation_file(invite)
    assert ana.session.team.lead == lee_key and "Lee Park" in said
    changed = tmp_path / "changed.understudy-invitation"
    changed.write_bytes(invite.read_bytes().replace(b"Lee Park", b"Lee Parc"))
    from understudy_desktop.team.invitation import InvitationError

    with pytest.raises(InvitationError, match="changed after your team lead made it"):
        ana.session.team.invitations.use_invitation_file(changed)
    assert ana.session.team.lead == lee_key


def test_a_code_for_a_lead_whose_files_have_not_arrived_is_followed_when_they_do(
    console_factory, tmp_path
):
    lee_dir, sam_dir, lee, sam = apart(console_factory, tmp_path)
    assert lee.session.team.write_policy(None, False, [])
    said = sam.session.team.invitations.use_invitation_code(
        lee.session.team.invitations.invitation_code()
    )
    assert said.startswith("Nobody with this code has written to the team folder yet")
    assert sam.session.team.lead == ""
    told: list[str] = []
    sam.session.team._notify = told.append
    carry(lee_dir, sam_dir)
    settle(sam)
    sam.qtbot.waitUntil(lambda: sam.session.team.lead == lee.session.team.identity.public_key)
    assert any(m.startswith("Your team lead's rules arrived. You follow Lee Park") for m in told)


def test_a_revoked_key_stops_the_tools_it_signed_that_a_member_accepted_before(
    console_factory, tmp_path
):
    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Park")
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    assert lee.session.team.write_policy(None, False, [])
    lee_key = lee.session.team.identity.public_key
    settle(sam)
    sam.session.team.follow_lead(lee_key)
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    review_and_accept(sam, offered(sam, 1)[0])
    assert "assign_refund" in sam.listed()
    dana_key = dana.session.team.identity.public_key
    told: list[str] = []
    sam.session.team._notify = told.append
    assert lee.session.team.write_policy(None, False, [], [dana_key])
    sam.qtbot.waitUntil(lambda: sam.library.get("assign_refund").held == "key_revoked")
    assert "assign_refund" not in sam.listed()
    assert any("Your team lead revoked the key “Assign refund” was signed with" in m for m in told)
    refused = agent_call(sam, "assign_refund", {"ticket_id": "T-1001"})
    assert refused["code"] == ErrorCode.APPROVAL_CHANGED
    assert "signed with a key the team lead revoked" in refused["message"]
    wait_state(sam, "assign_refund", "lead_revoked")
    # The lead takes the revocation back: Sam's copy waits for him to review it again.
    assert lee.session.team.write_policy(None, False, [], [])
    sam.qtbot.waitUntil(lambda: sam.library.get("assign_refund").held == "")
    assert sam.library.get("assign_refund").status == "needs_review"
    assert states(sam)["assign_refund"] == "current"


def test_accepting_a_team_tool_without_the_preview_trusts_its_signer(console_factory, tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    (shared,) = offered(sam, 1)
    team = sam.session.team
    data = (folder / "tools" / shared.file.name).read_bytes()
    source = team._source(shared, data)
    with sam.qtbot.waitSignal(sam.window.packs.imported):
        sam.window.packs.import_data(data, "a shared tool", confirm=False, source=source)
    assert team.decisions.trusted().get(dana.session.team.identity.public_key) == "Dana Ortiz"


def test_two_leads_a_change_needs_both_and_either_keeps_the_word_confirmed(
    console_factory, tmp_path, qtbot, monkeypatch
):
    from PySide6.QtWidgets import QMessageBox

    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Park")
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    dana_key = dana.session.team.identity.public_key
    lee.session.team.trust(dana_key, "Dana Ortiz")
    lee.qtbot.waitUntil(lambda: dana_key in lee.session.team.decisions.trusted())
    assert lee.session.team.write_policy(
        None, False, [], confirm_for=3600, co_leads=[dana_key], threshold=2
    )
    lee_key = lee.session.team.identity.public_key
    for console in (dana, sam):
        settle(console)
        console.session.team.follow_lead(lee_key)
    review_and_accept(sam, offered(sam, 1)[0])
    dana.qtbot.waitUntil(dana.session.team.is_lead)

    # Lee turns Dana's tool off: not in force until a second lead signs.
    assert lee.session.team.turn_off_for_team(item(lee, "assign_refund"))
    settle(sam)
    assert sam.library.get("assign_refund").held == ""
    settle(dana)
    settings = SettingsDialog(dana.session.team, dana.window)
    qtbot.addWidget(settings)
    assert not settings.co_sign_button.isHidden()
    shown: list[str] = []

    def answer(_parent, _title, words, *_rest):
        shown.append(words)
        return QMessageBox.StandardButton.Yes

    monkeypatch.setattr(QMessageBox, "question", answer)
    settings.co_sign_button.click()
    assert "Turned off for the team: Assign refund." in shown[0]
    assert "a change needs 2 of their signatures" in shown[0]
    sam.qtbot.waitUntil(lambda: sam.library.get("assign_refund").held == "team_off")

    # Lee's app is closed; Dana's goes on confirming, and Sam's word stays confirmed.
    lee.session.close()
    clock = Clock()
    clock.ahead = 2 * 3600
    sam.session.team._clock = clock
    dana.session.team._clock = clock
    since = clock()
    settle(dana)
    # Dana's app signs anew on its own schedule (its clock says a quarter of the hour passed).
    dana.qtbot.waitUntil(lambda: confirmed_since(folder, dana_key, since))
    settle(sam)
    sam.qtbot.waitUntil(lambda: sam.session.team.view.freshness.state == "fresh")
    assert sam.session.team.view.freshness.key == dana_key


def test_the_lead_confirms_on_schedule_though_the_folder_stays_still(console_factory, tmp_path):
    """Nothing in the folder changes, so only the clock says a confirmation is due: a poll of
    the unchanged folder looks again once it is, even when the view before was worked out a
    while before it was shown (its time to look again is by the clock it was worked out with)."""
    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Park")
    assert lee.session.team.write_policy(None, False, [], confirm_for=3600)
    settle(lee)
    team = lee.session.team
    clock = Clock()
    team._clock = clock
    late = work_out(team._job(), team.decisions)
    clock.ahead = 3600  # the view is shown an hour after it was asked for
    team._worked_out(late, background=False)
    assert team._clock_due()
    settle(lee)  # a poll of the unchanged folder
    lee.qtbot.waitUntil(lambda: confirmed_since(folder, team.identity.public_key, clock() - 60))
