"""The team library through real app instances (each its own data folder, window, page and
database) sharing one temporary folder: share, see, review, accept and run; a changed byte; an
unsigned pack; a known name with a new key; a withdrawal; two shares at once; a sync service's
conflict copy; the folder gone and back; stale tools; shared usage counts."""

from __future__ import annotations

import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from PySide6.QtWidgets import QGroupBox, QLabel
from test_plain_words import internals, widget_text

from understudy_desktop.bridge.library_view import library_view
from understudy_desktop.consent.ledger import command_line_grant
from understudy_desktop.consent.manifest import ENABLE_TOOL, REVOKE_TOOL
from understudy_desktop.library.library import tool_args
from understudy_desktop.shell import team_words
from understudy_desktop.shell.pack_dialogs import ImportPackDialog
from understudy_desktop.shell.settings_dialog import SettingsDialog
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.folder import content_name, write_shared
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.signing import key_id
from understudy_desktop.team.status_words import UNREACHABLE

PACKS = Path(__file__).parent / "fixtures" / "packs"
GOOD = PACKS / "good.understudy-pack.json"
pytestmark = pytest.mark.slow


def import_and_wait(console, path: Path, replace: bool = False) -> list[str]:
    with console.qtbot.waitSignal(console.window.packs.imported) as blocker:
        console.window.packs.import_pack(path, confirm=False, replace=replace)
    return blocker.args[0]


def member(console_factory, root: Path, folder: Path, name: str):
    """An app instance of one team member, with the team folder chosen and a name."""
    console = console_factory(root)
    team = console.session.team
    team.set_author(name)
    team.watcher.set_poll_ms(300)
    team.set_folder(folder)
    return console


def team_of_two(console_factory, tmp_path: Path):
    """Dana and Sam, each an app instance of their own, on one team folder."""
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    return folder, dana, sam


def dana_shares_and_sam_accepts(console_factory, tmp_path: Path):
    """The usual start: Dana imports the refund tool and shares it; Sam reviews and accepts."""
    folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    review_and_accept(sam, offered(sam, 1)[0])
    return folder, dana, sam


def offered(console, count: int) -> list:
    team = console.session.team
    console.qtbot.waitUntil(lambda: team.settled() and len(team.view.offered) == count)
    return team.view.offered


def review_and_accept(console, item, click: bool = True) -> str:
    """Open the review as the person would, read it, and accept (or cancel)."""
    shown: list[str] = []

    def read(dialog):
        shown.append(dialog.text_shown())
        shown.append(dialog.import_button.text())
        if click:
            dialog.import_button.click()
        else:
            dialog.reject()
        return dialog.result()

    original = ImportPackDialog.exec
    ImportPackDialog.exec = read
    packs = console.window.packs
    try:
        signal = packs.imported if click else packs.import_failed
        with console.qtbot.waitSignal(signal):
            console.session.team.review(item)
    finally:
        ImportPackDialog.exec = original
    return "\n".join(shown)


def pack_variant(tmp_path: Path, description: str, assignee: str = "priya") -> Path:
    pack = json.loads(GOOD.read_text())
    pack["tools"][0]["description"] = description
    pack["tools"][0]["steps"][1]["args"]["assignee"]["value"] = assignee
    path = tmp_path / f"variant-{abs(hash(description))}.understudy-pack.json"
    path.write_text(json.dumps(pack))
    return path


def dana_shares_a_change(dana, sam, tmp_path: Path):
    """Dana changes assign_refund (to Marcus) and shares it again; what Sam is offered."""
    time.sleep(1.1)  # the version's time is to the second
    import_and_wait(dana, pack_variant(tmp_path, "Assign refunds to Marcus.", "marcus"), True)
    assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 1
    (update,) = offered(sam, 1)
    return update


def shared_files(folder: Path, kind: str = "tools") -> list[Path]:
    return sorted(p for p in (folder / kind).glob("*.json") if not p.name.startswith("."))


def test_share_then_see_review_accept_run_and_update(console_factory, tmp_path):
    folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 1
    files = shared_files(folder)
    assert len(files) == 1 and files[0].name == content_name(files[0].read_bytes(), "tools")

    # Sam's app notices by itself and says so in words.
    (item,) = offered(sam, 1)
    # Dana is not someone Sam trusts yet: said apart from "your team".
    first_contact = "1 new tool from someone you do not trust yet"
    assert sam.session.team.status == first_contact
    assert sam.window.team_menu.notice.text() == first_contact
    assert sam.library.get("assign_refund") is None  # nothing callable before accepting
    dana_key = dana.session.team.identity.key_id
    assert item.key_id == dana_key and not item.trusted

    text = review_and_accept(sam, item)
    assert f"Signed by Dana Ortiz (key {dana_key})" in text
    assert "first time you get tools signed with this key" in text
    assert "Trust Dana Ortiz and import" in text
    # The signature is read first, and the tool is named by its name, not its file's hash.
    assert text.startswith(f"Signed by Dana Ortiz (key {dana_key})")
    assert "Dana Ortiz shared “Assign refund” with your team" in text
    assert item.file.digest not in text and ".understudy-pack.json" not in text
    tool = sam.library.callable("assign_refund")
    assert tool is not None and tool.origin.by == "team" and tool.origin.author == "Dana Ortiz"
    sam.qtbot.waitUntil(
        lambda: dana.session.team.identity.public_key in sam.session.team.decisions.trusted()
    )
    sam.qtbot.waitUntil(lambda: sam.session.team.status == "Team library: nothing new")
    answer = sam.run_tool("assign_refund", {"ticket_id": "T-1011"})
    assert answer["ok"] is True
    assert sam.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]["assignee"] == "priya"

    # Sharing again unchanged writes nothing new.
    assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 0

    # Dana changes the tool and shares it: Sam sees an update, old -> new, under the same name.
    update = dana_shares_a_change(dana, sam, tmp_path)
    assert update.state == "update" and sam.session.team.status == "1 update from your team"
    assert (item.file.version, update.file.version) == (1, 2)  # signed, one more each time
    text = review_and_accept(sam, update)
    assert "An update to “Assign refund”" in text and "Old → new" in text
    assert "Marcus" in text and "Accept" in text  # a trusted author: no trust question
    assert [t.name for t in sam.library.tools()] == ["assign_refund"]
    assert sam.library.get("assign_refund").origin.version == update.file.digest
    sam.run_tool("assign_refund", {"ticket_id": "T-1011"})
    assert sam.dispatch("get_ticket", {"ticket_id": "T-1011"})["result"]["assignee"] == "marcus"


def test_an_update_replaces_the_tool_it_updates_and_no_other_of_its_name(console_factory, tmp_path):
    """Sam had an assign_refund of his own when he accepted Dana's, so hers is here under
    another name. Her update replaces that one; his own stays as it was."""
    _folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(sam, pack_variant(tmp_path, "Sam's own way.", "marcus"))
    own = sam.library.get("assign_refund").digest
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    (item,) = offered(sam, 1)
    review_and_accept(sam, item)
    [hers] = [t.name for t in sam.library.tools() if t.origin.by == "team"]
    assert hers != "assign_refund"

    update = dana_shares_a_change(dana, sam, tmp_path)
    assert update.state == "update"
    review_and_accept(sam, update)
    assert sorted(t.name for t in sam.library.tools()) == sorted(["assign_refund", hers])
    assert sam.library.get("assign_refund").digest == own
    assert sam.library.get(hers).origin.version == update.file.digest


def test_one_changed_byte_is_refused_and_an_unsigned_pack_is_labelled(console_factory, tmp_path):
    folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    (path,) = shared_files(folder)
    data = bytearray(path.read_bytes())
    data[data.index(b"priya")] = ord("q")  # "qriya": one byte, same file name
    path.write_bytes(bytes(data))
    # An unsigned pack, put there by hand under its content name.
    plain = json.dumps(json.loads(GOOD.read_text()) | {"author": "Someone"}).encode()
    (folder / "tools" / content_name(plain, "tools")).write_bytes(plain)

    def both_seen() -> bool:
        states = {t.state for t in sam.session.team.view.tools}
        return states == {"changed", "unsigned"}

    sam.qtbot.waitUntil(both_seen)
    states = {t.state: t for t in sam.session.team.view.tools}
    changed, unsigned = states["changed"], states["unsigned"]
    assert not changed.offered and "Changed after signing" in team_words.describe(changed)
    # Nobody signed it: it is said first, and no name is given as its author's.
    words = team_words.describe(unsigned)
    assert unsigned.key == "" and unsigned.author == ""
    assert words.startswith("⚠ Nobody signed this: anyone with access to the folder")
    assert "Someone" not in words
    assert sam.session.team.status == "Team library: nothing new"  # not counted as new

    # The changed file cannot be imported by any path; nothing is changed.
    packs = sam.window.packs
    shown: list[str] = []
    packs._show_problem = lambda _title, message: shown.append(message)
    with sam.qtbot.waitSignal(packs.import_failed) as failed:
        packs.import_data(
            (folder / "tools" / changed.file.name).read_bytes(), changed.file.name, confirm=False
        )
    assert failed.args[0].startswith("Changed after signing") and shown
    assert sam.library.tools() == []

    text = review_and_accept(sam, unsigned, click=False)
    assert "nobody signed it: anyone with access to the folder could have put it here" in text
    assert "Someone" not in text
    assert sam.library.tools() == []
    # Accepted, it is in the library and is never offered as new again.
    review_and_accept(sam, unsigned)
    assert sam.library.get("assign_refund") is not None
    sam.qtbot.waitUntil(lambda: not sam.session.team.view.offered)
    (accepted,) = [t for t in sam.session.team.view.tools if t.file.digest == unsigned.file.digest]
    assert accepted.state == "current"
    # Removed from the library later, it is still not offered as new: it was accepted once.
    tool = sam.library.get("assign_refund")
    grant = command_line_grant(REVOKE_TOOL.name, tool_args(tool))
    sam.wait_for(lambda done: sam.library.revoke("assign_refund", grant, done))
    sam.session.team.refresh()
    sam.qtbot.waitUntil(sam.session.team.settled)
    (after,) = [t for t in sam.session.team.view.tools if t.file.digest == unsigned.file.digest]
    assert after.state == "declined" and not sam.session.team.view.offered
    # Remembered in the database: the same after a restart.
    sam.session.close()
    again = console_factory(tmp_path / "sam")
    again.qtbot.waitUntil(lambda: bool(again.session.team.view.tools))
    (kept,) = [t for t in again.session.team.view.tools if t.file.digest == unsigned.file.digest]
    assert kept.state == "declined" and not again.session.team.view.offered


def test_a_known_name_with_a_new_key_is_warned_before_anything_else(console_factory, tmp_path):
    folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)

    # Someone else signs a tool in Dana's name with their own key.
    other_root = tmp_path / "mallory"
    other_root.mkdir()
    from understudy_desktop.store.database import Database

    db = Database(other_root)
    try:
        mallory = Identity(other_root, Settings(db), use_keyring=False)
        pack = json.loads(GOOD.read_text()) | {"author": "Dana Ortiz"}
        pack["tools"][0]["name"] = "assign_refund_fast"
        write_shared(folder, "tools", mallory.sign(pack))
        (item,) = offered(sam, 1)
        assert item.impostor_of == dana.session.team.identity.key_id
        assert item.key_id == mallory.key_id != dana.session.team.identity.key_id
        shown: list[QLabel] = []

        def read(dialog):
            shown.extend(dialog.findChildren(QLabel))
            dialog.reject()
            return dialog.result()

        original = ImportPackDialog.exec
        ImportPackDialog.exec = read
        try:
            with sam.qtbot.waitSignal(sam.window.packs.import_failed):
                sam.session.team.review(item)
        finally:
            ImportPackDialog.exec = original
        first = shown[0].text()
        assert first.startswith("⚠ Careful: this says it is from Dana Ortiz")
        assert mallory.key_id in first and dana.session.team.identity.key_id in first
        assert sam.library.get("assign_refund_fast") is None
    finally:
        db.close()


def test_a_withdrawal_propagates_and_the_folder_can_go_and_come_back(
    console_factory, tmp_path, monkeypatch
):
    folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)
    sam.qtbot.waitUntil(lambda: sam.session.team.status == "Team library: nothing new")

    # The folder disappears (unmounted, offline): a calm line, nothing lost or turned off.
    away = tmp_path / "team-away"
    folder.rename(away)
    sam.qtbot.waitUntil(lambda: sam.session.team.status == UNREACHABLE)
    assert "not reachable" in sam.window.team_menu.notice.text()
    assert sam.library.callable("assign_refund") is not None
    assert sam.run_tool("assign_refund", {"ticket_id": "T-1011"})["ok"] is True
    away.rename(folder)
    sam.qtbot.waitUntil(lambda: sam.session.team.status == "Team library: nothing new")
    assert sam.library.callable("assign_refund") is not None

    # Dana retires her tool: the withdrawal is a signed file; Sam's copy is turned off.
    told: list[str] = []
    team = sam.session.team
    monkeypatch.setattr(team, "_notify", told.append)
    tool = dana.library.get("assign_refund")
    grant = command_line_grant(REVOKE_TOOL.name, tool_args(tool))
    dana.wait_for(lambda done: dana.library.revoke("assign_refund", grant, done))
    dana.qtbot.waitUntil(lambda: len(shared_files(folder, "withdrawn")) == 1)
    # Sam's app tells him once it has turned his copy off (what it wrote is done by then).
    sam.qtbot.waitUntil(lambda: any("withdrew" in m for m in told))
    sam.written()
    assert sam.library.callable("assign_refund") is None
    held = sam.library.get("assign_refund")
    assert held.status == "needs_review" and "Dana Ortiz withdrew it" in held.review_reason
    assert "assign_refund" not in sam.listed()
    # Said once, however often the folder is looked at again (a copy held back is not
    # taken away again).
    for _ in range(3):
        team.refresh()
        sam.qtbot.waitUntil(team.settled)
    assert [m for m in told if "withdrew" in m] == [
        "Dana Ortiz withdrew “Assign refund” from the team library. It is turned off here; "
        "you can remove it from your library."
    ]
    # What is not offered cannot be taken: the withdrawn version's review opens nothing.
    opened: list[object] = []
    monkeypatch.setattr(ImportPackDialog, "exec", lambda dialog: opened.append(dialog) or 0)
    [item] = [t for t in team.view.tools if t.tool == "assign_refund"]
    assert item.state == "withdrawn" and not item.offered
    team.review(item)
    assert opened == []


def test_two_shares_at_once_both_land_and_conflict_copies_are_ignored(console_factory, tmp_path):
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    priya = member(console_factory, tmp_path / "priya", folder, "Priya Raman")
    sam = member(console_factory, tmp_path / "sam", folder, "Sam Lee")
    import_and_wait(dana, GOOD)
    import_and_wait(priya, GOOD)
    # Both share the same tool name at the same moment, from two threads.
    signed = [
        m.session.team.identity.sign(json.loads(GOOD.read_text()) | {"author": n})
        for m, n in ((dana, "Dana Ortiz"), (priya, "Priya Raman"))
    ]
    start = threading.Barrier(2)

    def share(data: bytes) -> None:
        start.wait()
        write_shared(folder, "tools", data)

    threads = [threading.Thread(target=share, args=(d,)) for d in signed]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # A sync service's copies of the same file, and a half-synced temporary file.
    first = shared_files(folder)[0]
    stem = first.name.split(".")[0]
    shutil.copy(first, folder / "tools" / f"{stem} (1).understudy-pack.json")
    shutil.copy(
        first, folder / "tools" / f"{stem} (Sam's conflicted copy 2026-12-01).understudy-pack.json"
    )
    (folder / "tools" / f".{stem}.understudy-pack.json.x1.tmp").write_bytes(b"{")

    items = offered(sam, 2)
    assert sorted(i.author for i in items) == ["Dana Ortiz", "Priya Raman"]
    sam.scan_team_folder()  # another look: still two, the copies ignored
    assert len(sam.session.team.view.tools) == 2
    assert sam.session.team.watcher.last_scan.skipped == 3


def test_stale_tools_are_flagged_and_usage_counts_are_shared(console_factory, tmp_path):
    folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)
    sam.run_tool("assign_refund", {"ticket_id": "T-1011"})
    sam.library.flush_usage()

    # Unused for 40 days: stale, freshness 1 / (1 + 40/30).
    usage = sam.library._usage["assign_refund"]
    usage.last_used = time.time() - 40 * 86_400
    (view,) = library_view(sam.library).tools
    assert view.stale is True and view.daysUnused == 40
    assert view.freshness == pytest.approx(1 / (1 + 40 / 30), abs=0.01)
    # The person sees it in the library, with Retire… instead of Revoke….
    sam.library.usage_changed.emit()
    sam.window.library_action.trigger()
    panel = "document.getElementById('library-panel').textContent"
    sam.qtbot.waitUntil(lambda: "Not used for 40 days" in sam.js(panel))
    assert "freshness 43%" in sam.js(panel) and "retire it" in sam.js(panel)
    assert "Retire…" in sam.js(panel) and "Revoke…" not in sam.js(panel)
    usage.last_used = time.time()
    (view,) = library_view(sam.library).tools
    assert view.stale is False and view.freshness == 1.0
    sam.library.usage_changed.emit()
    sam.qtbot.waitUntil(lambda: "Revoke…" in sam.js(panel))
    assert "Not used for" not in sam.js(panel)

    # Sam shares counts (numbers only); Dana's team window shows them on her tool.
    sam.session.team.set_share_usage(True)
    sam.qtbot.waitUntil(lambda: len(shared_files(folder, "usage")) == 1)
    counts = json.loads(shared_files(folder, "usage")[0].read_bytes())
    assert counts["tools"][0]["runs"] == 1 and counts["tools"][0]["failures"] == 0
    assert "T-1011" not in json.dumps(counts) and "priya" not in json.dumps(counts)

    def dana_sees() -> bool:
        mine = [t for t in dana.session.team.view.tools if t.state == "mine"]
        return bool(mine) and mine[0].usage.runs == 1 and mine[0].usage.people == 1

    # Dana does not trust Sam's key yet: his counts are left out, and the view says so.
    dana.qtbot.waitUntil(lambda: dana.session.team.view.usage_ignored == 1)
    assert not dana_sees()
    assert "from 1 person you do not trust are not counted" in " ".join(
        team_words.notes(dana.session.team.view)
    )
    dana.session.team.trust(sam.session.team.identity.public_key, "Sam Lee")
    dana.qtbot.waitUntil(dana_sees)
    mine = next(t for t in dana.session.team.view.tools if t.state == "mine")
    assert "used 1 time by 1 person you trust" in team_words.describe(mine)
    # A newer snapshot replaces Sam's older one.
    sam.run_tool("assign_refund", {"ticket_id": "T-1012"})
    sam.qtbot.waitUntil(lambda: sam.session.team.publish_usage())
    sam.qtbot.waitUntil(lambda: len(shared_files(folder, "usage")) == 1)
    dana.qtbot.waitUntil(
        lambda: next(t for t in dana.session.team.view.tools if t.state == "mine").usage.runs == 2,
    )


def test_team_screens_are_in_plain_words(console_factory, tmp_path):
    folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    offered(sam, 1)
    dialog = sam.window.team_menu.show_team()
    sam.qtbot.waitUntil(lambda: len(dialog.items.texts()) == 2)
    rows = dialog.items.texts()
    text = widget_text(dialog) + "\n" + "\n".join(rows)
    # Grouped: the heading, then the tool.
    assert rows[0] == "From people you do not trust yet (1)"
    assert "Assign refund (version 1): from Dana Ortiz (key " in text
    assert "1 new tool from someone you do not trust yet" in text
    assert internals(text) == []
    # Looked at by eye when this test was written (it shows the folder's full path, so it is
    # saved beside the test's files, not into docs/).
    assert dialog.grab().save(str(tmp_path / "team-library.png"))
    settings = SettingsDialog(sam.session.team, sam.window)
    sam.qtbot.addWidget(settings)
    settings.show()
    text = ""
    for tab in range(settings.tabs.count()):  # every page, as the person would click through
        settings.tabs.setCurrentIndex(tab)
        text += widget_text(settings) + "\n" + settings.tabs.tabText(tab) + "\n"
        assert settings.grab().save(str(tmp_path / f"settings-{tab}.png"))
    text += "\n".join(b.title() for b in settings.findChildren(QGroupBox))
    assert "Team library" in text and str(folder) in text and "People you trust" in text
    assert "Team l&ead" in text and "Set the team's &rules as its lead…" in text
    assert internals(text) == []
    dialog.close()
    assert key_id(dana.session.team.identity.public_key) == dana.session.team.identity.key_id


def test_a_person_can_stop_trusting_an_author(console_factory, tmp_path):
    _folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    import_and_wait(dana, pack_variant(tmp_path, "Another routine."), False)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    review_and_accept(sam, offered(sam, 1)[0])
    team = sam.session.team
    sam.qtbot.waitUntil(lambda: len(team.decisions.trusted()) == 1)
    settings = SettingsDialog(team, sam.window)
    sam.qtbot.addWidget(settings)
    assert settings.trusted.count() == 1
    assert (
        settings.trusted.item(0).text() == f"Dana Ortiz (key {dana.session.team.identity.key_id})"
    )
    told: list[str] = []
    team._notify = told.append
    settings.trusted.setCurrentRow(0)
    settings.distrust_button.click()
    sam.qtbot.waitUntil(lambda: team.decisions.trusted() == {})
    # Her tool stays in the library, turned off (written before the trust was taken back),
    # with a message that says how to get it back.
    assert sam.library.get("assign_refund").status == "disabled"
    assert sam.library.callable("assign_refund") is None
    assert "assign_refund" not in sam.listed()
    assert any("You no longer trust Dana Ortiz" in t and "turn it on" in t for t in told)
    # The way back: turned on again (through the usual approval), it runs.
    tool = sam.library.get("assign_refund")
    grant = command_line_grant(ENABLE_TOOL.name, tool_args(tool))
    sam.wait_for(lambda done: sam.library.enable("assign_refund", grant, done))
    assert sam.library.callable("assign_refund") is not None
    # Her next one waits for Sam to decide about her again.
    dana.session.team.share(["assign_refund_2"], "Dana Ortiz")
    (item,) = offered(sam, 1)
    assert not item.trusted and "waits for you to trust its author" in team_words.describe(item)
    # Kept across a restart: the decision is in the database.
    sam.session.close()
    again = console_factory(tmp_path / "sam")
    assert again.session.team.decisions.trusted() == {}


def test_retiring_while_the_folder_is_offline_withdraws_it_once_the_folder_is_back(
    console_factory, tmp_path
):
    folder, dana, sam = dana_shares_and_sam_accepts(console_factory, tmp_path)
    dana.qtbot.waitUntil(lambda: [t.state for t in dana.session.team.view.tools] == ["mine"])

    away = tmp_path / "team-away"
    folder.rename(away)
    dana.qtbot.waitUntil(lambda: dana.session.team.status == UNREACHABLE)
    told: list[str] = []
    dana.window.notify = told.append  # type: ignore[method-assign]
    dana.session.team._notify = told.append
    tool = dana.library.get("assign_refund")
    grant = command_line_grant(REVOKE_TOOL.name, tool_args(tool))
    dana.wait_for(lambda done: dana.library.revoke("assign_refund", grant, done))
    dana.qtbot.waitUntil(lambda: any("as soon as it is" in t for t in told))
    # Dana's app closes while the folder is still away; the withdrawal waits in her database.
    dana.session.team.decisions._db.write(lambda _conn: None)
    dana.session.close()
    assert sam.library.callable("assign_refund") is not None

    away.rename(folder)
    again = console_factory(tmp_path / "dana")
    again.qtbot.waitUntil(lambda: len(shared_files(folder, "withdrawn")) == 1)
    sam.qtbot.waitUntil(lambda: sam.library.callable("assign_refund") is None)
    assert "Dana Ortiz withdrew it" in sam.library.get("assign_refund").review_reason
    # Written once: a later scan does not withdraw it again.
    again.scan_team_folder()
    assert len(shared_files(folder, "withdrawn")) == 1


def test_a_bare_mount_point_is_not_taken_for_an_empty_team_library(console_factory, tmp_path):
    """An unmounted network share leaves its mount point: an empty folder at the same path.
    It is "not reachable", not "nothing there", and nothing is written onto this computer."""
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    import_and_wait(dana, GOOD)
    import_and_wait(dana, pack_variant(tmp_path, "Another routine."), False)
    dana.session.team.share(["assign_refund"], "Dana Ortiz")
    team = dana.session.team
    dana.qtbot.waitUntil(lambda: [t.state for t in team.view.tools] == ["mine"])

    folder.rename(tmp_path / "team-away")
    folder.mkdir()  # the bare mount point
    dana.qtbot.waitUntil(lambda: team.status == UNREACHABLE)
    shown: list[str] = []
    team._show_problem = lambda _title, message: shown.append(message)
    assert team.share(["assign_refund_2"], "Dana Ortiz") == 0
    assert shown and "not reachable just now" in shown[0] and "Nothing was shared" in shown[0]
    assert list(folder.iterdir()) == []
    assert dana.library.callable("assign_refund") is not None


def test_sharing_again_after_the_file_was_deleted_takes_the_next_number(console_factory, tmp_path):
    """Each version shared is numbered one more than any version of it seen here, even once
    the folder lost its file: colleagues who saw version 1 are never offered another 1 (which
    they would take for an older copy)."""
    folder = tmp_path / "team"
    folder.mkdir()
    dana = member(console_factory, tmp_path / "dana", folder, "Dana Ortiz")
    import_and_wait(dana, GOOD)
    team = dana.session.team
    assert team.share(["assign_refund"], "Dana Ortiz") == 1
    seen = (team.identity.public_key, "assign_refund")
    dana.qtbot.waitUntil(lambda: team.decisions.seen().get(seen) == 1)
    (first,) = shared_files(folder)
    assert json.loads(first.read_bytes())["teamVersion"] == 1
    first.unlink()
    dana.qtbot.waitUntil(lambda: team.view.tools == [])
    assert team.share(["assign_refund"], "Dana Ortiz") == 1
    (again,) = shared_files(folder)
    assert json.loads(again.read_bytes())["teamVersion"] == 2


def test_an_accept_records_its_trust_and_its_version_with_the_tool(console_factory, tmp_path):
    """Accepting from someone not trusted yet trusts their key, as the name they gave, and
    notes the version accepted, in the database, in the import's own transaction: read back
    from the database (what the next start reads), not from the app's memory."""
    from understudy_desktop.team.trust import TeamDecisions

    _folder, dana, sam = team_of_two(console_factory, tmp_path)
    import_and_wait(dana, GOOD)
    assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 1
    (item,) = offered(sam, 1)
    assert not item.trusted
    review_and_accept(sam, item)
    stored = TeamDecisions(sam.session.db)
    assert stored.trusted() == {dana.session.team.identity.public_key: "Dana Ortiz"}
    assert stored.accepted() == frozenset({item.file.digest})
