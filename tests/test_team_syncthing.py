"""The team library over a real sync engine: app instances, each on its own copy of the
team folder, kept in step by real Syncthing processes on loopback (tests/syncthing_pair.py).
Two peers: a share, a review, a withdrawal and the lead's switch travel through Syncthing; so
do an unsigned file dropped into the folder and a link planted in place of a subfolder
(Syncthing carries links as links), which the other side neither trusts nor follows, and a
member's deletion of a withdrawal, which undoes nothing. Three peers, the one in the middle
dishonest (issue 48): forged rules under the lead's name, ignore lines that keep the lead's
rules and confirmations from the member, a new rule deleted as it lands, a turned-off tool
shared again reworded, and a copied key handed over to the thief's: each fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from syncthing_pair import SyncthingMesh, SyncthingPair, syncthing_available
from test_team_library import GOOD, import_and_wait, member, offered, review_and_accept
from test_team_over_time import GRACE, Clock

from understudy_desktop.consent.ledger import command_line_grant
from understudy_desktop.consent.manifest import REVOKE_TOOL
from understudy_desktop.error_codes import ErrorCode
from understudy_desktop.library.library import tool_args
from understudy_desktop.rules import rules
from understudy_desktop.team import documents, signing
from understudy_desktop.team.folder import content_name, write_shared
from understudy_desktop.team.keys import KEY_FILE

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


# --- three peers, the middle one dishonest (issue 48) ------------------------------------------


def _signed_pack(key, author: str, name: str, version: int = 1, reworded: bool = False) -> bytes:
    pack = json.loads(GOOD.read_text())
    pack.update(author=author, teamVersion=version)
    tool = pack["tools"][0]
    tool["name"] = name
    if reworded:
        tool["title"] = "Quick refund"
        tool["description"] = "The same steps, described otherwise."
        (question,) = list(tool["inputSchema"]["properties"])
        spec = tool["inputSchema"]["properties"].pop(question)
        spec["description"] = "Which ticket it is."
        tool["inputSchema"]["properties"]["which_ticket"] = spec
        tool["inputSchema"]["required"] = ["which_ticket"]
        for step in tool["steps"]:
            for source in step["args"].values():
                if source.get("from") == "param":
                    source["name"] = "which_ticket"
    return signing.sign(pack, key)


def _files(copy: Path, kind: str) -> set[str]:
    where = copy / kind
    return (
        {p.name for p in where.iterdir() if p.name.endswith(".json")} if where.is_dir() else set()
    )


def _settled(console) -> None:
    console.scan_team_folder()
    console.qtbot.waitUntil(console.session.team.settled)


def _call(console, name: str, arguments: dict) -> dict:
    return console.wait_for(
        lambda done: console.session.calls.call(name, arguments, "an agent", done)
    )


def test_a_dishonest_peer_in_between_cannot_keep_the_leads_word_from_a_member(
    console_factory, tmp_path
):
    """Lee (lead) — Dee (a member who can write anything, and whose Syncthing sits between) —
    Sam (a member who reaches Lee only through Dee). Dee forges rules under Lee's name, ignores
    the rules, withdrawals and confirmations folders, deletes a new rule as it lands and
    shares a turned-off tool again reworded: Sam is warned, told in words, his agent refused,
    and in the end every rule reaches him."""
    dirs = {name: tmp_path / f"{name}-copy" for name in ("lee", "dee", "sam")}
    for d in dirs.values():
        d.mkdir()
    dee = Ed25519PrivateKey.from_private_bytes(bytes([61]) * 32)
    with SyncthingMesh(tmp_path / "st", dirs, [("lee", "dee"), ("dee", "sam")]) as mesh:
        lee = member(console_factory, tmp_path / "lee", dirs["lee"], "Lee Park")
        assert lee.session.team.write_policy(None, False, [], when_unconfirmed="pause")
        lee_key = lee.session.team.identity.public_key
        # Dee signs rules under Lee's name with her own key, numbered far above Lee's.
        forged = documents.policy_document("Lee Park", 90, None, False, [])
        write_shared(dirs["dee"], "policy", signing.sign(forged, dee))
        # And shares a tool of her own, which Sam will accept.
        write_shared(dirs["dee"], "tools", _signed_pack(dee, "Dee Quinn", "refund_fast"))
        mesh.wait_in_sync()

        # The newcomer: two keys claim "Lee Park"; the invitation picks Lee's.
        sam = member(console_factory, tmp_path / "sam", dirs["sam"], "Sam Lee")
        team = sam.session.team
        clock = Clock()
        team._clock = clock
        told: list[str] = []
        team._notify = told.append
        sam.qtbot.waitUntil(lambda: len(team.invitations.lead_choices()) == 2)
        assert all(c.others == 1 for c in team.invitations.lead_choices())
        assert "You follow Lee Park's rules now" in team.invitations.use_invitation_code(
            lee.session.team.invitations.invitation_code()
        )
        assert team.lead == lee_key
        (offered_tool,) = offered(sam, 1)
        review_and_accept(sam, offered_tool)
        sam.qtbot.waitUntil(lambda: team.view.freshness.state == "fresh")
        assert not _call(sam, "refund_fast", {"ticket_id": "T-1001"}).get("isError")
        history = {f"{a.who} {a.what}" for a in team.view.audit}
        assert any("not as your team lead" in line for line in history)

        # Dee stops passing on rules and withdrawals; Lee turns her tool off for the team.
        mesh.set_ignores("dee", ["policy", "withdrawn"])
        lee.qtbot.waitUntil(
            lambda: any(t.tool == "refund_fast" for t in lee.session.team.view.tools)
        )
        before = _files(dirs["sam"], "confirmed")
        off = next(t for t in lee.session.team.view.tools if t.tool == "refund_fast")
        assert lee.session.team.turn_off_for_team(off)
        sam.qtbot.waitUntil(lambda: bool(_files(dirs["sam"], "confirmed") - before))
        mesh.wait_in_sync()
        assert len(_files(dirs["sam"], "policy")) == 2  # Lee's first rules and Dee's forgery
        clock.ahead = GRACE + 1
        _settled(sam)
        assert team.view.freshness.state == "missing" and team.view.freshness.paused
        assert any("confirmed newer rules that have not reached this computer" in m for m in told)
        refused = _call(sam, "refund_fast", {"ticket_id": "T-1001"})
        assert refused["code"] == ErrorCode.TEAM_UNCONFIRMED

        # Dee lets nothing of Lee's word through any more: it runs out.
        mesh.set_ignores("dee", ["policy", "withdrawn", "confirmed"])
        clock.ahead = rules().teamFreshness.defaultSeconds + 3600
        _settled(sam)
        assert team.view.freshness.state == "expired"

        # The ignore lines go: the rules arrive, the tool is off for the team, and Dee's
        # reworded copy under another name stays off.
        mesh.set_ignores("dee", [])
        clock.ahead = 0
        sam.qtbot.waitUntil(lambda: sam.library.get("refund_fast").held == "team_off")
        write_shared(
            dirs["dee"], "tools", _signed_pack(dee, "Dee Quinn", "refund_quickly", reworded=True)
        )
        sam.qtbot.waitUntil(lambda: "refund_quickly" in {t.tool for t in team.view.tools})
        _settled(sam)
        assert next(t for t in team.view.tools if t.tool == "refund_quickly").state == (
            "turned_off"
        )
        sam.qtbot.waitUntil(lambda: team.view.freshness.state == "fresh")

        # Lee revokes Dee's key; Dee deletes the new rules file as it lands in her copy, and
        # Syncthing carries the deletion to every copy, Lee's included.
        policies = _files(dirs["dee"], "policy")
        lee_told: list[str] = []
        lee.session.team._notify = lee_told.append
        dee_key = signing.public_hex(dee)
        assert lee.session.team.write_policy(None, False, lee_rules_off(lee), [dee_key])
        new = mesh_wait_new(mesh, dirs["dee"], "policy", policies)
        (dirs["dee"] / "policy" / new).unlink()
        lee.qtbot.waitUntil(
            lambda: any(m.startswith("Someone removed the team's rules") for m in lee_told)
        )
        mesh.wait_for(lambda: new in _files(dirs["sam"], "policy"), "the rules are back")
        sam.qtbot.waitUntil(lambda: sam.library.get("refund_fast").held in ("key_revoked",))
        assert "refund_fast" not in sam.listed()


def lee_rules_off(lee) -> list[tuple[str, str, str]]:
    policy = lee.session.team.view.policy
    return [(t.sharedBy, t.tool, t.steps) for t in policy.turnedOff] if policy else []


def mesh_wait_new(mesh, copy: Path, kind: str, before: set[str]) -> str:
    found: list[str] = []

    def landed() -> bool:
        found[:] = sorted(_files(copy, kind) - before)
        return bool(found)

    mesh.wait_for(landed, f"a new file in {kind}/")
    return found[0]


def test_a_thiefs_hand_over_is_settled_by_the_lead_and_the_history_says_what_is_proven(
    console_factory, tmp_path
):
    """Dee copied Sam's old key. Sam moves to a new key; Dee hands the copied key over to a
    key of hers and shares with it. Sam's new key is disputed for Lee until Lee revokes Dee's;
    nobody's history says Sam did what Dee did with his old key."""
    dirs = {name: tmp_path / f"{name}-copy" for name in ("lee", "dee", "sam")}
    for d in dirs.values():
        d.mkdir()
    with SyncthingMesh(tmp_path / "st", dirs, [("lee", "dee"), ("dee", "sam")]):
        lee = member(console_factory, tmp_path / "lee", dirs["lee"], "Lee Park")
        sam = member(console_factory, tmp_path / "sam", dirs["sam"], "Sam Lee")
        assert lee.session.team.write_policy(None, False, [])
        sam.qtbot.waitUntil(lambda: len(sam.session.team.invitations.lead_choices()) == 1)
        sam.session.team.follow_lead(lee.session.team.identity.public_key)
        import_and_wait(sam, GOOD)
        assert sam.session.team.share(["assign_refund"], "Sam Lee") == 1
        review_and_accept(lee, offered(lee, 1)[0])
        old_key = sam.session.team.identity.public_key
        stolen = Ed25519PrivateKey.from_private_bytes(
            bytes.fromhex((tmp_path / "sam" / KEY_FILE).read_text())
        )
        assert sam.session.team.move_to_new_key()
        new_key = sam.session.team.identity.public_key
        lee.qtbot.waitUntil(lambda: lee.session.team.decisions.trusted().get(new_key) == "Sam Lee")

        # Dee, with the copied key: a countersigned hand-over to her own key, and a tool.
        theirs = Ed25519PrivateKey.from_private_bytes(bytes([62]) * 32)
        handover = documents.handover_document("Sam Lee", old_key, theirs)
        write_shared(dirs["dee"], "keys", signing.sign(handover, stolen))
        write_shared(dirs["dee"], "tools", _signed_pack(stolen, "Sam Lee", "wire_money"))
        # Sam's next tool, with his real new key, is disputed for Lee.
        import_and_wait(sam, _second_tool(tmp_path), False)
        sam.session.team.share(["assign_refund_2"], "Sam Lee")
        lee.qtbot.waitUntil(
            lambda: (
                {t.tool: t.state for t in lee.session.team.view.tools}.get("assign_refund_2")
                == "disputed"
            )
        )
        # Lee revokes Dee's key: the dispute is settled, for Lee and for everyone following.
        thief = signing.public_hex(theirs)
        assert lee.session.team.write_policy(None, False, [], [thief])
        lee.qtbot.waitUntil(
            lambda: (
                {t.tool: t.state for t in lee.session.team.view.tools}.get("assign_refund_2")
                == "new"
            )
        )
        assert lee.session.team.view.contested == {}
        # The history, in Sam's app and Lee's: what Dee did with the copied key is not Sam's.
        sam.qtbot.waitUntil(lambda: thief in sam.session.team.view.lead_revoked)
        for console, owner in ((sam, "your"), (lee, "Sam Lee's")):
            _settled(console)
            lines = {a.what: a.who for a in console.session.team.view.audit}
            wire = next(who for what, who in lines.items() if "Wire money" in what)
            assert wire == f"Someone with {owner} old key", lines
            moved = next(who for what, who in lines.items() if "moved to a new key" in what)
            assert moved == ("You" if console is sam else "Sam Lee"), lines
            handed = next(who for what, who in lines.items() if "key your team lead" in what)
            assert handed == f"Someone with {owner} old key", lines


def _second_tool(tmp_path: Path) -> Path:
    pack = json.loads(GOOD.read_text())
    pack["tools"][0]["name"] = "assign_refund_2"
    pack["tools"][0]["steps"][1]["args"]["assignee"]["value"] = "chen"
    path = tmp_path / "second.understudy-pack.json"
    path.write_text(json.dumps(pack))
    return path
