"""The team library over a real sync engine: two app instances, each on its own copy of the
team folder, kept in step by two Syncthing processes on loopback (tests/syncthing_pair.py).
A share, a review, a withdrawal and the lead's switch travel through Syncthing; so do an
unsigned file dropped into the folder and a link planted in place of a subfolder (Syncthing
carries links as links), which the other side neither trusts nor follows, and a member's
deletion of a withdrawal, which undoes nothing."""

from __future__ import annotations

import json
import os

import pytest
from syncthing_pair import SyncthingPair, syncthing_available
from test_team_library import GOOD, import_and_wait, member, review_and_accept

from understudy_desktop.consent.ledger import command_line_grant
from understudy_desktop.consent.manifest import REVOKE_TOOL
from understudy_desktop.library.library import tool_args
from understudy_desktop.team.folder import content_name

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not syncthing_available() and not os.environ.get("UNDERSTUDY_REQUIRE_SYNCTHING"),
        reason="Debian's syncthing is not installed (./run-tests installs it)",
    ),
]


def test_share_review_withdraw_and_planted_files_over_real_syncthing(console_factory, tmp_path):
    a_dir, b_dir = tmp_path / "dana-copy", tmp_path / "sam-copy"
    outside = tmp_path / "outside"
    for d in (a_dir, b_dir, outside):
        d.mkdir()
    with SyncthingPair(tmp_path / "syncthing", a_dir, b_dir) as pair:
        dana = member(console_factory, tmp_path / "dana", a_dir, "Dana Ortiz")
        sam = member(console_factory, tmp_path / "sam", b_dir, "Sam Lee")
        import_and_wait(dana, GOOD)
        assert dana.session.team.share(["assign_refund"], "Dana Ortiz") == 1

        # Through Syncthing to Sam: signed, from someone he does not trust yet.
        team = sam.session.team
        sam.qtbot.waitUntil(lambda: [t.state for t in team.view.tools] == ["untrusted"])
        review_and_accept(sam, team.view.tools[0])
        assert sam.library.callable("assign_refund") is not None
        # His review travels back to Dana's copy: the team's history has it.
        dana.qtbot.waitUntil(
            lambda: any("accepted “Assign refund”" in a.what for a in dana.session.team.view.audit),
        )

        # Someone drops an unsigned pack into Dana's copy under Dana's name, and plants a link
        # in place of usage/ pointing outside the folder.
        plain = json.dumps(json.loads(GOOD.read_text()) | {"author": "Dana Ortiz"}).encode()
        plain_doc = json.loads(plain)
        plain_doc["tools"][0]["name"] = "assign_refund_fast"
        plain = json.dumps(plain_doc).encode()
        (a_dir / "tools" / content_name(plain, "tools")).write_bytes(plain)
        (outside / "note.txt").write_text("outside the team folder")
        (a_dir / "usage").symlink_to(outside, target_is_directory=True)
        pair.wait_in_sync()
        assert (b_dir / "usage").is_symlink()  # Syncthing carried the link as a link
        sam.qtbot.waitUntil(lambda: "usage" in team.view.links)
        sam.qtbot.waitUntil(lambda: any(t.state == "unsigned" for t in team.view.tools))
        unsigned = next(t for t in team.view.tools if t.state == "unsigned")
        assert unsigned.author == "" and team.status == "Team library: nothing new"
        # Sam shares his counts: refused through the link, nothing written outside.
        team.set_share_usage(True)
        assert sorted(p.name for p in outside.iterdir()) == ["note.txt"]

        # Dana retires her tool: the signed withdrawal reaches Sam, whose copy stops.
        tool = dana.library.get("assign_refund")
        grant = command_line_grant(REVOKE_TOOL.name, tool_args(tool))
        dana.wait_for(lambda done: dana.library.revoke("assign_refund", grant, done))
        sam.qtbot.waitUntil(lambda: sam.library.callable("assign_refund") is None)
        held = sam.library.get("assign_refund")
        assert held.held == "withdrawn" and "assign_refund" not in sam.listed()

        # A member deletes the withdrawal from the folder, and Syncthing carries the deletion
        # to Sam's copy: his app kept it (issue 34), so the tool is not "New" again.
        sam.qtbot.waitUntil(lambda: any(f.kind == "withdrawn" for f in team.decisions.kept()))
        for path in (a_dir / "withdrawn").glob("*.json"):
            path.unlink()
        pair.wait_in_sync()
        sam.qtbot.waitUntil(lambda: not list((b_dir / "withdrawn").glob("*.json")))
        sam.scan_team_folder()
        assert [t.state for t in team.view.tools if t.tool == "assign_refund"] == ["withdrawn"]
        assert sam.library.get("assign_refund").held == "withdrawn"
