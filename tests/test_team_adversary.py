"""A member who can write anything to the team folder, and holds a copied key, against an honest
lead and an honest member: every attack of issue 34 as a case, on the view each honest app
works out from the folder (team/inbox.py), without Qt. The same rules run in the real app in
tests/test_team_lead.py and over real Syncthing in tests/test_team_syncthing.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_team_trust import (
    ALICE,
    ALICE2,
    LEAD,
    MALLORY,
    PRIYA,
    PUB,
    SAM,
    TRUST_ALICE,
    one,
    pack,
    shared,
    signed,
    view,
)
from waiting import until

from understudy_desktop.shell import team_words
from understudy_desktop.team import documents, inbox, signing
from understudy_desktop.team.folder import SharedFile

THIEF = Ed25519PrivateKey.from_private_bytes(bytes([42]) * 32)
PUB[THIEF] = signing.public_hex(THIEF)


def handover(
    old: Ed25519PrivateKey, new: Ed25519PrivateKey, countersign: bool = True
) -> SharedFile:
    doc = documents.handover_document("Alice Novak", PUB[old], new)
    if not countersign:
        doc.pop("newKeySignature")
    return signed("keys", doc, old)


def rules(seq: int, key: Ed25519PrivateKey = LEAD, **given: Any) -> SharedFile:
    doc = documents.policy_document(
        "Lee Lead",
        seq,
        given.get("publishers"),
        given.get("second_review", False),
        given.get("turned_off", []),
        given.get("revoked_keys"),
    )
    return signed("policy", doc, key)


def review(
    key: Ed25519PrivateKey, of: SharedFile, version: int = 0, file: str = "", carried: bytes = b""
) -> SharedFile:
    doc = documents.review_document(
        "Reviewer", of.tool, of.key, file or of.digest, version, carried or None
    )
    return signed("reviews", doc, key)


# --- hand-overs need both keys ----------------------------------------------------------------


def test_a_hand_over_the_new_key_did_not_countersign_vouches_for_nothing():
    v = view(shared(pack(ALICE2)), handover(ALICE, ALICE2, countersign=False), trusted=TRUST_ALICE)
    assert not one(v).trusted and v.vouched == {}


def test_a_member_cannot_hand_their_key_over_to_the_leads_key():
    """Mallory signs "my key -> the lead's key": the lead never countersigned, so the lead
    does not become Mallory for anyone, and is not counted as Mallory's second person."""
    doc = documents.handover_document("Mallory", PUB[MALLORY], LEAD)
    doc["newKeySignature"] = MALLORY.sign(documents.handover_statement(PUB[MALLORY], PUB[LEAD]))
    doc["newKeySignature"] = doc["newKeySignature"].hex()
    forged = signed("keys", doc, MALLORY)
    lead_tool = shared(pack(LEAD, author="Lee Lead"))
    v = view(lead_tool, forged, trusted={PUB[MALLORY]: "Mallory", PUB[LEAD]: "Lee Lead"})
    assert v.vouched == {}
    assert one(v).author == "Lee Lead"
    assert PUB[MALLORY] not in v.revoked  # a hand-over that does not verify revokes nothing


def test_after_a_new_key_the_copied_old_key_shares_nothing_as_its_owner():
    old_tool = shared(pack(ALICE, name="refund_old"))
    thief_tool = shared(pack(ALICE, name="wire_money", created="2026-12-09T10:00:00Z"))
    v = view(old_tool, thief_tool, handover(ALICE, ALICE2), trusted=TRUST_ALICE)
    states = {t.tool: t.state for t in v.tools}
    assert states == {"refund_old": "revoked", "wire_money": "revoked"}
    assert not any(t.offered for t in v.tools)
    assert PUB[ALICE] in v.revoked
    thief = next(t for t in v.tools if t.tool == "wire_money")
    assert "no longer uses" in team_words.line(thief)
    # The new key is Alice, unwarned.
    new = view(shared(pack(ALICE2)), handover(ALICE, ALICE2), trusted=TRUST_ALICE)
    assert one(new).state == "new" and one(new).author == "Alice Novak"


def test_a_copied_key_handed_over_twice_makes_neither_new_key_trusted():
    """The owner moves to ALICE2; the thief, holding the old key, hands it to a key of theirs
    (and countersigns it). Nobody can tell which is Alice: neither is trusted through it, and
    the window says why."""
    v = view(
        shared(pack(THIEF, name="wire_money")),
        shared(pack(ALICE2, name="refund_new")),
        handover(ALICE, ALICE2),
        handover(ALICE, THIEF),
        trusted=TRUST_ALICE,
    )
    assert v.vouched == {} and v.contested == {PUB[ALICE]: {PUB[ALICE2], PUB[THIEF]}}
    assert all(not t.trusted for t in v.tools)
    assert {t.state for t in v.tools} == {"disputed"} and not any(t.offered for t in v.tools)
    assert any("surely copied" in note for note in team_words.notes(v))
    assert "ask its author" in team_words.line(v.tools[0])
    # Even if this app had trusted the thief's key before the owner's hand-over arrived.
    earlier = view(
        shared(pack(THIEF, name="wire_money")),
        handover(ALICE, ALICE2),
        handover(ALICE, THIEF),
        trusted={**TRUST_ALICE, PUB[THIEF]: "Alice Novak"},
    )
    assert not one(earlier).trusted and one(earlier).state == "disputed"


def test_the_lead_revokes_a_members_key_for_everyone_who_follows_the_lead():
    tool = shared(pack(ALICE))
    counts = signed(
        "usage",
        documents.usage_document(
            "Alice Novak",
            [{"sharedBy": PUB[ALICE], "tool": "assign_refund", "runs": 7, "failures": 0}],
        ),
        ALICE,
    )
    off = rules(1, revoked_keys=[PUB[ALICE]])
    v = view(tool, counts, off, trusted=TRUST_ALICE, lead=PUB[LEAD])
    assert one(v).state == "lead_revoked" and one(v).usage.runs == 0
    # Someone who does not follow that lead decides for themselves.
    assert one(view(tool, counts, off, trusted=TRUST_ALICE)).state == "new"


def test_one_member_is_never_several_people_in_the_counts():
    """Hand-overs to other people's keys are refused, so a member's counts under keys they do
    not own are not theirs, and their own keys count as one person."""
    tool = shared(pack(PRIYA, author="Priya"))

    def counts(key: Ed25519PrivateKey) -> SharedFile:
        rows = [{"sharedBy": PUB[PRIYA], "tool": "assign_refund", "runs": 10**9, "failures": 0}]
        return signed("usage", documents.usage_document("Mallory", rows), key)

    forged = documents.handover_document("Mallory", PUB[MALLORY], LEAD)
    forged["newKeySignature"] = MALLORY.sign(
        documents.handover_statement(PUB[MALLORY], PUB[LEAD])
    ).hex()
    v = view(
        tool,
        counts(MALLORY),
        signed("keys", forged, MALLORY),
        trusted={PUB[PRIYA]: "Priya", PUB[MALLORY]: "Mallory", PUB[LEAD]: "Lee"},
    )
    assert one(v).usage.people == 1


# --- a review cannot freeze a colleague's tool ------------------------------------------------


def test_a_review_claiming_a_version_that_does_not_exist_freezes_nothing():
    v1 = shared(pack(ALICE, version=1))
    frozen = review(PRIYA, v1, version=10**9, file="f" * 64)
    trusted = {**TRUST_ALICE, PUB[PRIYA]: "Priya"}
    assert one(view(v1, frozen, trusted=trusted)).state == "new"
    # Naming a real file with a made-up number: the file's own number counts.
    lying = review(PRIYA, v1, version=10**9)
    assert one(view(v1, lying, trusted=trusted)).state == "new"
    # A carried file that is not the one named, or not signed by the author, counts nothing.
    other = pack(MALLORY, version=10**9)
    assert one(view(v1, review(PRIYA, v1, 10**9, carried=other), trusted=trusted)).state == "new"


# --- turned off for the team, under any name -------------------------------------------------


def test_a_tool_turned_off_for_the_team_stays_off_under_another_name():
    original = shared(pack(ALICE))
    off = rules(1, turned_off=[(PUB[ALICE], "assign_refund", original.steps)])
    renamed = shared(pack(ALICE, name="assign_refund_v2"))
    by_other = shared(pack(PRIYA, name="handy_refund", author="Priya"))
    v = view(
        renamed,
        by_other,
        off,
        trusted={**TRUST_ALICE, PUB[PRIYA]: "Priya"},
        lead=PUB[LEAD],
    )
    assert {t.tool: t.state for t in v.tools} == {
        "assign_refund_v2": "turned_off",
        "handy_refund": "turned_off",
    }


# --- a second review needs a second person ----------------------------------------------------


def test_with_no_allow_list_a_second_review_still_needs_a_second_person():
    tool = shared(pack(ALICE))
    on = rules(1, second_review=True)
    base: dict[str, Any] = {"trusted": {**TRUST_ALICE, PUB[PRIYA]: "Priya"}, "lead": PUB[LEAD]}
    # Any member (Sam) is not offered it first: he waits.
    assert one(view(tool, on, **base)).state == "awaiting_review"
    # Priya is a member, not a reviewer: her accept does not count as the second review.
    assert one(view(tool, on, review(PRIYA, tool), **base)).state == "awaiting_review"
    # The author's other key does not count either.
    own = view(tool, on, handover(ALICE, ALICE2), review(ALICE2, tool), **base)
    assert one(own).state in ("awaiting_review", "revoked")
    # The lead's does.
    assert one(view(tool, on, review(LEAD, tool), **base)).state == "new"
    # The lead is offered it first.
    assert one(view(tool, on, **{**base, "mine": PUB[LEAD]})).state == "new"


def test_rules_from_a_lead_who_moved_to_a_new_key_carry_on():
    lead2 = Ed25519PrivateKey.from_private_bytes(bytes([77]) * 32)
    PUB[lead2] = signing.public_hex(lead2)
    moved = signed("keys", documents.handover_document("Lee Lead", PUB[LEAD], lead2), LEAD)
    old_rules = rules(3, publishers=[PUB[PRIYA]])
    tool = shared(pack(ALICE))
    base: dict[str, Any] = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    # Until the new key signs rules, the old key's stay in force.
    assert one(view(tool, old_rules, moved, **base)).state == "not_allowed"
    # Once it does, only the new key's count: the old key (which a thief may hold) cannot
    # sign newer rules.
    new_rules = rules(4, key=lead2, publishers=None)
    thief_rules = rules(99, key=LEAD, publishers=[PUB[MALLORY]])
    v = view(tool, old_rules, moved, new_rules, thief_rules, **base)
    assert v.policy is not None and v.policy.sequence == 4
    assert one(v).state == "new"


def test_sam_is_a_member_here():
    assert PUB[SAM]  # the honest member whose view these tests work out (test_team_trust.view)
    assert inbox.OFFERED == ("new", "update", "untrusted", "unsigned")


# --- nothing goes back: a deleted file changes nothing ----------------------------------------


def _kept_view(folder_now: list[SharedFile], seen_before: list[SharedFile], **decided: Any):
    """The view of an app that saw `seen_before` in the folder and kept it (team/trust.py),
    once the folder holds only `folder_now`."""
    from pathlib import Path

    from understudy_desktop.team.folder import FolderScan

    scan = FolderScan(Path("team"), reachable=True, files=list(folder_now))
    decided.setdefault("mine", PUB[SAM])
    return inbox.team_view(inbox.with_kept(scan, seen_before), inbox.Decisions(**decided))


def test_deleting_the_newest_rules_does_not_bring_the_older_ones_back():
    tool = shared(pack(ALICE))
    older = rules(1)
    newest = rules(2, turned_off=[(PUB[ALICE], "assign_refund", tool.steps)])
    base: dict[str, Any] = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    assert one(_kept_view([tool, older], [older, newest], **base)).state == "turned_off"
    # Every rules file deleted: the kept ones still hold.
    gone = _kept_view([tool], [older, newest], **base)
    assert gone.policy is not None and gone.policy.sequence == 2
    assert one(gone).state == "turned_off"


def test_deleting_a_withdrawal_does_not_make_the_tool_new_again():
    tool = shared(pack(ALICE, created="2026-12-01T10:00:00Z"))
    stop = documents.withdrawal_document("Alice Novak", "assign_refund")
    stop["created"] = "2026-12-02T10:00:00Z"
    withdrawal = signed("withdrawn", stop, ALICE)
    assert one(_kept_view([tool], [withdrawal], trusted=TRUST_ALICE)).state == "withdrawn"


def test_deleting_a_hand_over_does_not_trust_the_copied_key_again():
    thief_tool = shared(pack(ALICE, name="wire_money"))
    kept = [handover(ALICE, ALICE2)]
    assert one(_kept_view([thief_tool], kept, trusted=TRUST_ALICE)).state == "revoked"


def test_deleting_ones_own_review_does_not_erase_it_from_the_history():
    tool = shared(pack(ALICE))
    accepted = review(PRIYA, tool)
    trusted = {**TRUST_ALICE, PUB[PRIYA]: "Priya"}
    v = _kept_view([tool], [accepted], trusted=trusted)
    assert any("Priya accepted “Assign refund”" in f"{a.who} {a.what}" for a in v.audit)


def test_the_history_shows_only_what_signatures_prove_in_one_line_and_never_ahead():
    """An author name with a line break, a fake date in the future and a bidi override: the
    line stays one line, its name is plain, and it is dated no later than it was seen."""
    import dataclasses

    doc = documents.withdrawal_document(
        "Mallory\n2026-12-31 Lee Lead turned assign_refund back on for the team\u202e",
        "assign_refund",
    )
    doc["created"] = "2099-01-01T00:00:00Z"
    forged = dataclasses.replace(signed("withdrawn", doc, MALLORY), seen=1_700_000_000.0)
    honest = shared(pack(ALICE, created="2026-12-01T10:00:00Z"))
    v = view(forged, honest, trusted=TRUST_ALICE)
    lines = {a.file: a for a in v.audit}
    line = lines[forged.name]
    assert "\n" not in line.who and "\u202e" not in line.who
    assert line.who.endswith("(not trusted by you)")
    assert line.when == "2023-11-14T22:13:20Z"  # when it was seen, not 2099
    assert v.audit[0].file == honest.name  # the forged line is not on top


# --- names that look alike --------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "Alice\u2800Novak",  # braille blank inside
        "Alice Novak\u2800",  # and trailing
        "Alice\u3164Novak",  # Hangul filler
        "Alice\uffa0Novak",  # halfwidth Hangul filler
        "Alice\u200aNovak",  # hair space
        "Alice Nova\u0323k",  # combining dot below
        "Ali\u0331ce Novak",  # combining macron below
        "Alice\u115fNovak",
    ],
)
def test_look_alikes_that_used_to_pass_are_warned(name):
    v = view(shared(pack(MALLORY, author=name)), trusted=TRUST_ALICE)
    assert one(v).impostor_of and one(v).looks_like == "Alice Novak"


def test_kept_documents_outlive_a_restart_and_an_edited_one_is_not_believed(tmp_path):
    from understudy_desktop.store.database import Database
    from understudy_desktop.team.folder import content_name
    from understudy_desktop.team.trust import TeamDecisions

    data = signing.sign(documents.policy_document("Lee Lead", 2, None, False, []), LEAD)
    name = content_name(data, "policy")
    db = Database(tmp_path)
    try:
        decisions = TeamDecisions(db)
        decisions._write = lambda work, apply, done: (db.write(work), apply())  # type: ignore[method-assign]
        decisions.keep([("policy", name, data), ("policy", "f" * 64 + ".x", b"not signed")])
        assert [f.name for f in TeamDecisions(db).kept()] == [name]
        # What does not verify is not even stored.
        assert [r["name"] for r in db.read("SELECT name FROM team_kept")] == [name]
        assert TeamDecisions(db).kept()[0].seen > 0
        # Someone edits the database: the file no longer verifies, and counts for nothing.
        db.write(lambda conn: conn.execute("UPDATE team_kept SET data = data || x'20'"))
        assert TeamDecisions(db).kept() == []
    finally:
        db.close()


def test_a_folder_flooded_with_signed_documents_keeps_only_so_many(tmp_path, monkeypatch):
    """What is kept of the folder has a ceiling: a teammate who writes thousands of signed
    rules cannot grow everyone's database without end. A kept row of a kind that is never
    kept (edited into the database) is not read back either."""
    from understudy_desktop.store.database import Database
    from understudy_desktop.team import trust
    from understudy_desktop.team.folder import content_name

    monkeypatch.setattr(trust, "KEEP_MOST", 3)
    files = []
    for version in range(2, 7):
        data = signing.sign(documents.policy_document("Lee Lead", version, None, False, []), LEAD)
        files.append(("policy", content_name(data, "policy"), data))
    tool = pack(LEAD, author="Lee Lead")
    db = Database(tmp_path)
    try:
        decisions = trust.TeamDecisions(db)
        decisions._write = lambda work, apply, done: (db.write(work), apply())  # type: ignore[method-assign]
        decisions.keep(files[:2])
        decisions.keep(files[2:])
        assert len(decisions.kept()) == 3
        assert len(trust.TeamDecisions(db).kept()) == 3
        db.write(
            lambda conn: conn.execute(
                "INSERT INTO team_kept (name, kind, data, seen_at) VALUES (?, 'tools', ?, 1)",
                (content_name(tool, "tools"), tool),
            )
        )
        assert {f.kind for f in trust.TeamDecisions(db).kept()} == {"policy"}
    finally:
        db.close()


# --- nothing in the folder can block the app -------------------------------------------------


def waiting_for_a_fifo(thread: Any) -> bool:
    """Whether `thread` sleeps in the kernel's wait for a FIFO's other end to open."""
    try:
        wchan = Path(f"/proc/self/task/{thread.native_id}/wchan").read_text(encoding="ascii")
    except OSError:
        return False
    return wchan.strip() == "wait_for_partner"


def test_a_fifo_or_a_device_in_the_folder_never_blocks_a_scan_or_a_review(tmp_path):
    """A listed file swapped for a FIFO (which waits for a writer when opened to read) and a
    file that keeps growing: the scan and the review's read end at once, with nothing."""
    import os
    import threading

    from understudy_desktop.team import folder as team_folder

    root = tmp_path / "team"
    (root / "tools").mkdir(parents=True)
    data = pack(ALICE)
    name = team_folder.content_name(data, "tools")
    os.mkfifo(root / "tools" / name)
    other = pack(ALICE, name="refund_two")
    (root / "tools" / team_folder.content_name(other, "tools")).write_bytes(other)
    out: dict[str, Any] = {}

    def scan() -> None:
        out["scan"] = team_folder.FolderReader().scan(root)
        fake = team_folder.SharedFile("tools", name, "signed")
        out["load"] = team_folder.load(root, fake)

    worker = threading.Thread(target=scan, daemon=True)
    worker.start()
    # Until the read ends, or the kernel says it is waiting for the FIFO's writer (a read that
    # blocks is known at once on Linux; elsewhere only the hang deadline tells).
    until(
        lambda: not worker.is_alive() or waiting_for_a_fifo(worker),
        "the folder's scan ends",
    )
    assert not worker.is_alive(), "a FIFO in the folder blocked the read"
    assert [f.tool for f in out["scan"].files] == ["refund_two"]
    assert out["load"] is None


# --- replays and mixes of old and new files ---------------------------------------------------


def test_old_files_put_back_change_nothing():
    """The dishonest member copies old files back in beside the new ones: older rules, a
    withdrawal from before a tool was shared again, a hand-over seen already."""
    base: dict[str, Any] = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    tool = shared(pack(ALICE, created="2026-12-03T10:00:00Z", version=2))
    old_rules, new_rules = rules(1, publishers=[PUB[PRIYA]]), rules(2)
    v = view(tool, new_rules, old_rules, **base)
    assert v.policy is not None and v.policy.sequence == 2 and one(v).state == "new"
    stop = documents.withdrawal_document("Alice Novak", "assign_refund")
    stop["created"] = "2026-12-02T10:00:00Z"  # withdrawn, then shared again since
    replayed = signed("withdrawn", stop, ALICE)
    assert one(view(tool, replayed, **base)).state == "new"
    twice = view(shared(pack(ALICE2)), handover(ALICE, ALICE2), handover(ALICE, ALICE2), **base)
    assert one(twice).trusted and twice.contested == {}


def test_with_the_leads_list_only_the_people_on_it_count_in_the_team_counts():
    """Mallory is trusted one to one but not on the lead's list of who may share: her counts
    are left out of the team's; Priya's, on the list, are in."""
    tool = shared(pack(ALICE))

    def counts(key: Ed25519PrivateKey, runs: int) -> SharedFile:
        rows = [{"sharedBy": PUB[ALICE], "tool": "assign_refund", "runs": runs, "failures": 0}]
        return signed("usage", documents.usage_document("Someone", rows), key)

    trusted = {**TRUST_ALICE, PUB[PRIYA]: "Priya", PUB[MALLORY]: "Mallory"}
    on_list = rules(1, publishers=[PUB[ALICE], PUB[PRIYA]])
    v = view(
        tool, counts(PRIYA, 3), counts(MALLORY, 10**9), on_list, trusted=trusted, lead=PUB[LEAD]
    )
    assert (one(v).usage.runs, one(v).usage.people) == (3, 1)
    assert v.usage_ignored == 1
    assert (
        "Usage counts from 1 person you do not trust or your team lead has not let share are "
        "not counted." in team_words.notes(v)
    )
    # Without a list, everyone trusted counts, as before.
    anyone = view(
        tool, counts(PRIYA, 3), counts(MALLORY, 5), rules(1), trusted=trusted, lead=PUB[LEAD]
    )
    assert one(anyone).usage.runs == 8


def test_rules_from_a_lead_who_moved_twice_follow_to_the_newest_key():
    lead2 = Ed25519PrivateKey.from_private_bytes(bytes([78]) * 32)
    lead3 = Ed25519PrivateKey.from_private_bytes(bytes([79]) * 32)
    PUB[lead2], PUB[lead3] = signing.public_hex(lead2), signing.public_hex(lead3)
    first = signed("keys", documents.handover_document("Lee Lead", PUB[LEAD], lead2), LEAD)
    second = signed("keys", documents.handover_document("Lee Lead", PUB[lead2], lead3), lead2)
    tool = shared(pack(ALICE))
    base: dict[str, Any] = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    middle = rules(4, key=lead2, publishers=[PUB[PRIYA]])
    newest = rules(5, key=lead3, publishers=None)
    v = view(tool, first, second, middle, newest, **base)
    assert v.policy is not None and v.policy.sequence == 5
    assert one(v).state == "new"
