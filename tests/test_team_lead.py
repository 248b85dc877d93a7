"""A team of three app instances on one folder, with a team lead: who may share, a second
review before the rest of the team is offered a tool, a tool turned off for everyone (and on
again), an agent told why a tool taken away by the team does not run, a key hand-over that
spares colleagues a warning, and a link planted in the folder."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtWidgets import QListWidget
from test_plain_words import internals, widget_text
from test_team_library import (
    GOOD,
    dana_shares_and_sam_accepts,
    import_and_wait,
    member,
    review_and_accept,
    shared_files,
)

from understudy_desktop.consent.ledger import command_line_grant
from understudy_desktop.consent.manifest import REVOKE_TOOL
from understudy_desktop.library.library import tool_args
from understudy_desktop.shell.settings_dialog import RulesDialog
from understudy_desktop.team.status_words import LINK_WORDS

pytestmark = pytest.mark.slow


def states(console) -> dict[str, str]:
    return {t.tool: t.state for t in console.session.team.view.tools}


def wait_state(console, tool: str, state: str) -> None:
    console.qtbot.waitUntil(lambda: states(console).get(tool) == state)


def item(console, tool: str):
    return next(t for t in console.session.team.view.tools if t.tool == tool)


def agent_call(console, tool, arguments: dict) -> dict:
    return console.wait_for(
        lambda done: console.session.calls.run(tool, arguments, "agent", "a test", done)
    )


def team_of_three(console_factory, tmp_path: Path):
    folder = tmp_path / "team"
    folder.mkdir()
    lee = member(console_factory, tmp_path / "lee", folder, "Lee Lead")
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    return folder, lee, dana, sam


def test_the_leads_rules_who_shares_a_second_review_and_a_switch_for_everyone(
    console_factory, tmp_path, monkeypatch
):
    from PySide6.QtWidgets import QMessageBox

    folder, lee, dana, sam = team_of_three(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    # Lee trusts Dana (they met), and sets the rules: Lee and Dana may share; a second
    # person reviews each tool first.
    dana_key = dana.session.team.identity.public_key or _key_of(dana)
    lee.session.team.trust(dana_key, "Dana Ortiz")
    lee.qtbot.waitUntil(lambda: dana_key in lee.session.team.decisions.trusted())
    lee_key = _key_of(lee)
    assert lee.session.team.write_policy([lee_key, dana_key], True, [])
    assert lee.session.team.is_lead() and len(shared_files(folder, "policy")) == 1
    for m in (dana, sam):
        m.qtbot.waitUntil(lambda m=m: len(m.session.team.view.policies) == 1)
        m.session.team.follow_lead(lee_key)
        assert m.session.team.view.policy is not None

    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    # Sam may not review: he waits. Lee may: he is offered it, and accepts.
    wait_state(sam, "assign_refund", "awaiting_review")
    assert sam.session.team.view.offered == []
    wait_state(lee, "assign_refund", "new")
    review_and_accept(lee, item(lee, "assign_refund"))
    lee.qtbot.waitUntil(lambda: len(shared_files(folder, "reviews")) == 1)
    # Reviewed by someone other than its author: now Sam is offered it.
    wait_state(sam, "assign_refund", "untrusted")
    review_and_accept(sam, item(sam, "assign_refund"))
    tool = sam.library.callable("assign_refund")
    assert tool is not None
    assert sam.run_tool("assign_refund", {"ticket_id": "T-1011"})["ok"] is True

    # Someone the lead does not let share: their app says so, and nobody is offered it.
    mallory = member(console_factory, tmp_path / "mallory", folder, "Mallory")
    import_and_wait(mallory, GOOD)
    mallory.qtbot.waitUntil(lambda: len(mallory.session.team.view.policies) == 1)
    mallory.session.team.follow_lead(lee_key)
    shown: list[str] = []
    mallory.session.team._show_problem = lambda _t, message: shown.append(message)
    assert mallory.session.team.share(["assign_refund"], "Mallory") == 0
    assert shown and "lets only some people share" in shown[0]

    # The lead turns the tool off for the whole team: asked first, in words (Cancel changes
    # nothing); then Sam's copy stops at once, and an agent is told why in words.
    lee.qtbot.waitUntil(lambda: "assign_refund" in states(lee))
    window = lee.window.team_menu.show_team()
    window.items.choose_text("Assign refund")
    asked: list[str] = []

    def answer(_parent, _title, words, *_rest):
        asked.append(words)
        return QMessageBox.StandardButton.Cancel

    monkeypatch.setattr(QMessageBox, "question", answer)
    window.team_off_button.click()
    window.close()
    assert asked and "off for the whole team?" in asked[0]
    assert len(shared_files(folder, "policy")) == 1
    told: list[str] = []
    lee.session.team._notify = told.append
    sam_told: list[str] = []
    monkeypatch.setattr(sam.session.team, "_notify", sam_told.append)
    assert lee.session.team.turn_off_for_team(item(lee, "assign_refund"))
    lee.qtbot.waitUntil(lambda: bool(told))
    assert any("You turned “Assign refund” off for the whole team" in t for t in told), told
    assert not any("Your team lead" in t for t in told)
    # Sam's app tells him once it has turned his copy off (what it wrote is done by then).
    sam.qtbot.waitUntil(lambda: any("off for the whole team" in t for t in sam_told))
    sam.written()
    assert sam.library.callable("assign_refund") is None
    held = sam.library.get("assign_refund")
    assert held.held == "team_off" and "team lead turned it off" in held.review_reason
    answer = agent_call(sam, tool, {"ticket_id": "T-1012"})
    assert answer.get("isError") and "turned off for the whole team" in answer["message"]
    assert "assign_refund" not in sam.listed()
    # Sam cannot approve it again while it is off for the team.
    refused = sam.wait_for(lambda done: sam.library.review("assign_refund", _any_grant(held), done))
    assert refused is not None and "turned this tool off for the whole team" in refused.message
    # A member who deletes the lead's rules from the folder brings nothing back: each app
    # keeps the rules it saw (issue 34), the lead's own too.
    kept_rules = len(sam.session.team.view.policies)
    for path in shared_files(folder, "policy"):
        path.unlink()
    for m in (sam, lee):
        m.scan_team_folder()
        assert m.session.team.view.policy is not None
        assert len(m.session.team.view.policies) == kept_rules
    assert sam.library.get("assign_refund").held == "team_off"
    assert "assign_refund" not in sam.listed()

    # On again: it comes back for Sam to review (not silently on).
    off_item = next(t for t in lee.session.team.view.tools if t.state == "turned_off")
    assert lee.session.team.turn_off_for_team(off_item, off=False)
    sam.qtbot.waitUntil(lambda: any("back on for the team" in t for t in sam_told))
    sam.written()
    back = sam.library.get("assign_refund")
    assert back.held == ""
    assert back.status == "needs_review" and "turned it back on" in back.review_reason
    # The lead's own screens, in plain words, at the smallest screen size.
    rules = RulesDialog(lee.session.team, lee.window)
    lee.qtbot.addWidget(rules)
    rules.show()
    assert rules.width() <= 1024 and rules.height() <= 640
    words = widget_text(rules) + "\n".join(
        rules.people.item(i).text() for i in range(rules.people.count())
    )
    assert "Dana Ortiz (key " in words and internals(words) == []
    window = lee.window.team_menu.show_team()
    history = window.show_history()
    history_words = "\n".join(
        history.findChildren(QListWidget)[0].item(i).text()
        for i in range(history.findChildren(QListWidget)[0].count())
    )
    assert "shared “Assign refund”" in history_words and internals(history_words) == []
    assert history.width() <= 1024 and history.height() <= 640
    history.close()
    window.close()
    # The history says who did what, from the signed files.
    said = [f"{a.who} {a.what}" for a in sam.session.team.view.audit]
    assert any("shared “Assign refund”" in s for s in said)
    assert any("accepted “Assign refund”" in s for s in said)
    assert any("set the team's rules (number 2)" in s for s in said)


def test_an_agent_is_told_a_withdrawn_tool_was_withdrawn_by_its_author(console_factory, tmp_path):
    _folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)
    tool = sam.library.callable("assign_refund")
    gone = dana.library.get("assign_refund")
    grant = command_line_grant(REVOKE_TOOL.name, tool_args(gone))
    dana.wait_for(lambda done: dana.library.revoke("assign_refund", grant, done))
    sam.qtbot.waitUntil(lambda: sam.library.callable("assign_refund") is None)
    answer = agent_call(sam, tool, {"ticket_id": "T-1011"})
    assert answer.get("isError")
    assert "withdrawn from the team library by its author" in answer["message"]
    assert "changed since a person approved it" not in answer["message"]


def test_a_new_key_vouched_for_by_the_old_one_spares_colleagues_a_warning(
    console_factory, tmp_path
):
    folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)
    old_key = dana.session.team.identity.public_key
    sam.qtbot.waitUntil(lambda: old_key in sam.session.team.decisions.trusted())

    dana.qtbot.waitUntil(lambda: dana.session.team.view.reachable)
    copied = dana.session.team.identity._private()  # a thief copied her key before the move
    assert dana.session.team.move_to_new_key()
    new_key = dana.session.team.identity.public_key
    assert new_key != old_key and len(shared_files(folder, "keys")) == 1
    # Sam's app learns of it from the folder, and trusts the new key under her name.
    sam.qtbot.waitUntil(lambda: sam.session.team.decisions.trusted().get(new_key) == "Dana Ortiz")
    # Her own earlier share is still hers.
    dana.qtbot.waitUntil(lambda: states(dana).get("assign_refund") == "mine")
    # Her next tool, signed with the new key, is offered as hers, with no warning.
    import_and_wait(dana, _variant(tmp_path), False)
    dana.session.team.share(["assign_refund_2"], "Dana Ortiz")
    wait_state(sam, "assign_refund_2", "new")
    fresh = item(sam, "assign_refund_2")
    assert fresh.trusted and fresh.impostor_of == "" and fresh.author == "Dana Ortiz"
    # The thief shares a tool with the copied old key: revoked by her move, it is not offered
    # as hers, nor as anyone's (issue 34).
    import json

    from understudy_desktop.team import folder as team_folder
    from understudy_desktop.team import signing

    forged = json.loads(GOOD.read_bytes())
    forged.update(author="Dana Ortiz", teamVersion=1)
    forged["tools"][0]["name"] = "wire_money"
    team_folder.write_shared(folder, "tools", signing.sign(forged, copied))
    wait_state(sam, "wire_money", "revoked")
    assert all(t.tool != "wire_money" for t in sam.session.team.view.offered)
    # Stop trusting Dana (by her old key): her new key goes too, and what came from her stops.
    sam.session.team.distrust(old_key)
    trusted = sam.session.team.decisions.trusted
    # The key asked about goes last (the writer keeps order): her other keys went before it.
    sam.qtbot.waitUntil(lambda: old_key not in trusted())
    assert new_key not in trusted()
    assert sam.library.callable("assign_refund") is None


def test_a_link_planted_in_the_folder_is_not_written_through(console_factory, tmp_path):
    folder = tmp_path / "team"
    outside = tmp_path / "outside"
    folder.mkdir()
    outside.mkdir()
    (folder / "tools").symlink_to(outside, target_is_directory=True)
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    import_and_wait(dana, GOOD)
    shown: list[str] = []
    dana.session.team._show_problem = lambda _t, message: shown.append(message)
    assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 0
    assert shown and shown[0].startswith(LINK_WORDS)
    assert list(outside.iterdir()) == []
    dana.qtbot.waitUntil(lambda: dana.session.team.view.links == ["tools"])


def _key_of(console) -> str:
    """The member's public key (made on first use, as sharing would)."""
    identity = console.session.team.identity
    identity.sign({"nothing": True})
    return identity.public_key


def _any_grant(tool):
    from understudy_desktop.consent.manifest import REVIEW_TOOL
    from understudy_desktop.library.model import definition_hash

    args = {"name": tool.name, "definition": definition_hash(tool.definition)}
    return command_line_grant(REVIEW_TOOL.name, args)


def _variant(tmp_path: Path) -> Path:
    import json

    pack = json.loads(GOOD.read_text())
    pack["tools"][0]["name"] = "assign_refund_2"
    pack["tools"][0]["description"] = "Another routine."
    path = tmp_path / "second.understudy-pack.json"
    path.write_text(json.dumps(pack))
    return path


def test_the_lead_revokes_a_members_key_for_the_whole_team(console_factory, tmp_path, monkeypatch):
    """Settings › Team lead: the lead picks Dana's key and revokes it. Every member who follows
    the lead stops being offered what that key signs, whoever signs with it."""
    from PySide6.QtWidgets import QInputDialog, QMessageBox

    folder, lee, dana, sam = team_of_three(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    dana_key = _key_of(dana)
    lee.session.team.trust(dana_key, "Dana Ortiz")
    lee.qtbot.waitUntil(lambda: dana_key in lee.session.team.decisions.trusted())
    lee_key = _key_of(lee)
    assert lee.session.team.write_policy(None, True, [])
    # The lead's own rules are in force for the lead at once: the dialog reopens as saved.
    assert RulesDialog(lee.session.team, lee.window).second.isChecked()
    assert lee.session.team.write_policy(None, False, [])
    assert not RulesDialog(lee.session.team, lee.window).second.isChecked()
    sam.qtbot.waitUntil(lambda: len(sam.session.team.view.policies) == 2)
    sam.session.team.follow_lead(lee_key)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    wait_state(sam, "assign_refund", "untrusted")

    rules = RulesDialog(lee.session.team, lee.window)
    lee.qtbot.addWidget(rules)
    asked: list[list[str]] = []

    def pick(_parent, _title, _label, labels, *_rest):
        asked.append(list(labels))
        return next(x for x in labels if "Dana Ortiz" in x), True

    monkeypatch.setattr(QInputDialog, "getItem", pick)
    monkeypatch.setattr(QMessageBox, "question", lambda *_a, **_k: QMessageBox.StandardButton.Yes)
    rules.revoke_button.click()
    assert len(asked) == 1 and not any("(you)" in x for x in asked[0])  # never one's own
    assert dana_key in lee.session.team.view.policy.revokedKeys  # at once, here
    lee.qtbot.waitUntil(lambda: len(shared_files(folder, "policy")) == 3)
    wait_state(sam, "assign_refund", "lead_revoked")
    assert sam.session.team.view.offered == []
    assert dana_key in (sam.session.team.view.policy.revokedKeys or [])
    # Saving the rules again keeps the key revoked.
    assert lee.session.team.view.policy.sequence == 3
    again = RulesDialog(lee.session.team, lee.window)
    lee.qtbot.addWidget(again)
    again._save()
    assert lee.session.team.view.policy.sequence == 4
    assert dana_key in lee.session.team.view.policy.revokedKeys
    lee.qtbot.waitUntil(lambda: len(shared_files(folder, "policy")) == 4)
