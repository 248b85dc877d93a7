"""What a team can trust in the team folder, without Qt: nothing unsigned passes as a colleague's,
usage counts that cannot be forged, look-alike names, links planted anywhere, versions that
cannot go back, the team lead's policy, key hand-overs, partial files, and a scan of an
unchanged folder that does no work."""

from __future__ import annotations

import copy
import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from understudy_desktop.library.may_run import ToolState, may_run
from understudy_desktop.shell import team_words
from understudy_desktop.store.database import Database
from understudy_desktop.store.settings import Settings
from understudy_desktop.team import documents, folder, inbox, names, signing
from understudy_desktop.team.folder import FolderReader, FolderScan, SharedFile
from understudy_desktop.team.identity import Identity, KeyFileError
from understudy_desktop.team.no_links import LinkRefusedError

GOOD = Path(__file__).parent / "fixtures" / "packs" / "good.understudy-pack.json"
PACK: dict[str, Any] = json.loads(GOOD.read_bytes())
KEYS = [Ed25519PrivateKey.from_private_bytes(bytes([n]) * 32) for n in range(1, 9)]
ALICE, MALLORY, SAM, LEAD, ALICE2, PRIYA = KEYS[:6]
PUB = {k: signing.public_hex(k) for k in KEYS}


def pack(
    key: Ed25519PrivateKey | None,
    name: str = "assign_refund",
    author: str = "Alice Novak",
    created: str = "2026-12-01T10:00:00Z",
    version: int | None = None,
    description: str | None = None,
) -> bytes:
    doc = copy.deepcopy(PACK)
    doc.update(author=author, created=created)
    doc["tools"][0]["name"] = name
    if description is not None:
        doc["tools"][0]["description"] = description
    if version is not None:
        doc["teamVersion"] = version
    return signing.sign(doc, key) if key is not None else signing.canonical(doc)


def signed(kind: folder.Kind, document: dict[str, Any], key: Ed25519PrivateKey) -> SharedFile:
    data = signing.sign(document, key)
    return folder.read_file(kind, folder.content_name(data, kind), data)


def shared(data: bytes, kind: folder.Kind = "tools") -> SharedFile:
    return folder.read_file(kind, folder.content_name(data, kind), data)


def view(*files: SharedFile, **decided: Any) -> inbox.TeamView:
    decided.setdefault("mine", PUB[SAM])
    decided.setdefault("my_name", "Sam Lee")
    return inbox.team_view(
        FolderScan(Path("team"), reachable=True, files=list(files)), inbox.Decisions(**decided)
    )


def one(v: inbox.TeamView) -> inbox.TeamTool:
    assert len(v.tools) == 1, v.tools
    return v.tools[0]


TRUST_ALICE = {PUB[ALICE]: "Alice Novak"}


# --- nothing unsigned passes as a colleague's -------------------------------------------------


def test_an_unsigned_tool_names_nobody_is_not_counted_and_is_never_new_once_accepted():
    file = shared(pack(None, author="Alice Novak"))
    tool = one(view(file, trusted=TRUST_ALICE))
    assert tool.state == "unsigned" and tool.offered
    assert tool.author == "" and tool.key == "" and not tool.trusted
    words = team_words.describe(tool)
    assert words.startswith("⚠ Nobody signed this: anyone with access to the folder could have")
    assert "Alice" not in words
    assert view(file, trusted=TRUST_ALICE).new_from_team == []
    # Accepted (remembered by its file's digest): never offered again.
    here = inbox.Installed("assign_refund", "", "assign_refund", file.digest, "")
    again = one(view(file, trusted=TRUST_ALICE, installed=(here,)))
    assert again.state == "current" and not again.offered
    gone = one(view(file, trusted=TRUST_ALICE, accepted=frozenset({file.digest})))
    assert gone.state == "declined" and not gone.offered


def test_a_version_accepted_and_removed_since_is_not_offered_as_new_again():
    file = shared(pack(ALICE))
    tool = one(view(file, trusted=TRUST_ALICE, accepted=frozenset({file.digest})))
    assert tool.state == "declined" and not tool.offered


def test_a_tool_already_in_the_library_from_a_pack_is_not_offered_again():
    file = shared(pack(ALICE))
    digest = file.definition
    tool = one(view(file, trusted=TRUST_ALICE, have={digest: "refunds_from_pack"}))
    assert tool.state == "current" and tool.have_as == "refunds_from_pack"
    assert "you have it already, as “refunds_from_pack”" in team_words.line(tool)


# --- usage counts that cannot be forged --------------------------------------------------------


def _usage(key: Ed25519PrivateKey, runs: int, created: str = "2026-12-02T10:00:00Z") -> SharedFile:
    doc = documents.usage_document(
        "someone",
        [{"sharedBy": PUB[ALICE], "tool": "assign_refund", "runs": runs, "failures": 0}],
    )
    doc["created"] = created
    return signed("usage", doc, key)


def test_twenty_throwaway_keys_count_nothing_and_the_view_says_so():
    throwaway = [Ed25519PrivateKey.generate() for _ in range(20)]
    forged = [_usage(k, 50_000_000) for k in throwaway]
    honest = _usage(PRIYA, 3)
    v = view(shared(pack(ALICE)), honest, *forged, trusted={**TRUST_ALICE, PUB[PRIYA]: "Priya"})
    tool = one(v)
    assert tool.usage.runs == 3 and tool.usage.people == 1
    assert v.usage_ignored == 20
    assert "Usage counts from 20 people you do not trust are not counted." in team_words.notes(v)


def test_a_person_who_moved_to_a_new_key_is_still_one_person():
    old_counts = _usage(ALICE, 4, "2026-12-01T10:00:00Z")
    new_counts = _usage(ALICE2, 6, "2026-12-03T10:00:00Z")
    v = view(
        shared(pack(ALICE)), old_counts, new_counts, _handover(ALICE, ALICE2), trusted=TRUST_ALICE
    )
    assert one(v).usage.people == 1 and one(v).usage.runs == 6  # her latest counts


def test_one_trusted_key_is_one_person_whatever_it_writes():
    files = [_usage(PRIYA, n, f"2026-12-0{n}T10:00:00Z") for n in range(1, 6)]
    tool = one(view(shared(pack(ALICE)), *files, trusted={**TRUST_ALICE, PUB[PRIYA]: "Priya"}))
    assert tool.usage.people == 1 and tool.usage.runs == 5  # the latest file only


# --- names compared by their look --------------------------------------------------------------

LOOK_ALIKES = [
    "\u0410lice Novak",  # a Cyrillic capital A
    "Alice  Novak",  # a double space
    "alice novak",
    "ALICE NOVAK",
    "AIice Novak",  # a capital I for the l
    "Al\u200bice Novak",  # a zero-width space
    "Alice\u00a0Novak",  # a no-break space
    " Alice Novak ",
]


@pytest.mark.parametrize("name", LOOK_ALIKES)
def test_a_look_alike_of_a_trusted_name_with_another_key_is_warned(name):
    assert names.alike(name, "Alice Novak")
    tool = one(view(shared(pack(MALLORY, author=name)), trusted=TRUST_ALICE))
    assert tool.state == "untrusted"
    assert tool.impostor_of == signing.key_id(PUB[ALICE]) and tool.looks_like == "Alice Novak"
    assert team_words.describe(tool).startswith("⚠ The name looks like Alice Novak's")


@pytest.mark.parametrize("name", ["Alicia Novak", "Alice Novák", "Bob Smith", "Alice"])
def test_a_different_name_is_not_a_look_alike(name):
    assert not names.alike(name, "Alice Novak")
    assert one(view(shared(pack(MALLORY, author=name)), trusted=TRUST_ALICE)).impostor_of == ""


def test_a_look_alike_of_this_persons_own_name_is_warned_too():
    tool = one(view(shared(pack(MALLORY, author="Sam  Lee"))))
    assert tool.looks_like == "Sam Lee" and tool.impostor_of == signing.key_id(PUB[SAM])


def test_one_unknown_key_signing_under_several_names_is_flagged():
    files = [
        shared(pack(MALLORY, name=f"tool_{i}", author=author))
        for i, author in enumerate(["Dana Ortiz", "Chen Wei", "Priya Raman", "Marcus Hill"])
    ]
    v = view(*files)
    assert all(len(t.other_names) == 3 for t in v.tools)
    assert team_words.warning(v.tools[0]).startswith("⚠ This key also signed files under")
    # The same name written two ways is one name, not several.
    same = [
        shared(pack(MALLORY, name="a", author="Dana")),
        shared(pack(MALLORY, name="b", author="DANA")),
    ]
    assert all(t.other_names == () for t in view(*same).tools)


def test_the_review_warning_uses_the_look_too():
    from understudy_desktop.team.provenance import provenance_of

    data = pack(MALLORY, author="\u0410lice Novak")
    source = provenance_of(signing.check(data), "\u0410lice Novak", TRUST_ALICE)
    assert source.new_key_for_known_name and source.warning().startswith("⚠ Careful")


# --- no link is followed ------------------------------------------------------------------------


@pytest.fixture(params=["descriptors", "names"])
def link_checks(request, monkeypatch):
    """Both ways of refusing links: relative to open folders (POSIX), and by checking each
    name just before use (where the platform has no such calls)."""
    from understudy_desktop.team import no_links

    if request.param == "names":
        monkeypatch.setattr(no_links, "_AT", False)
    return request.param


@pytest.mark.parametrize("kind", folder.KINDS)
def test_a_link_in_place_of_a_subfolder_is_neither_read_nor_written_through(
    tmp_path, kind, link_checks
):
    team, outside = tmp_path / "team", tmp_path / "outside"
    team.mkdir()
    outside.mkdir()
    # Outside, a file that would be read if the link were followed.
    data = (
        pack(ALICE)
        if kind == "tools"
        else signing.sign(documents.withdrawal_document("A", "x"), ALICE)
    )
    (outside / folder.content_name(data, kind)).write_bytes(data)
    (team / kind).symlink_to(outside, target_is_directory=True)
    scan = FolderReader().scan(team)
    assert scan.reachable and scan.files == [] and scan.links == [kind]
    before = sorted(p.name for p in outside.iterdir())
    with pytest.raises(LinkRefusedError):
        folder.write_shared(team, kind, pack(ALICE, name="other_tool"))
    folder.remove_own(team, kind, before)
    assert sorted(p.name for p in outside.iterdir()) == before  # nothing written or removed


def test_a_link_in_place_of_a_file_is_not_read_and_not_written_through(tmp_path, link_checks):
    team, outside = tmp_path / "team", tmp_path / "outside.json"
    (team / "tools").mkdir(parents=True)
    data = pack(ALICE)
    name = folder.content_name(data, "tools")
    outside.write_bytes(data)  # the very bytes: only the link makes it wrong
    (team / "tools" / name).symlink_to(outside)
    scan = FolderReader().scan(team)
    assert scan.files == [] and scan.skipped == 1
    with pytest.raises(LinkRefusedError):
        folder.write_shared(team, "tools", data)  # its very name is a link
    assert outside.read_bytes() == data
    # Loading what a scan found never goes through a link either.
    found = folder.read_file("tools", name, data)
    assert folder.load(team, found) is None


def test_a_link_in_place_of_the_note_for_people_is_not_written_through(tmp_path, link_checks):
    team, outside = tmp_path / "team", tmp_path / "outside.txt"
    team.mkdir()
    outside.write_bytes(b"keep me")
    (team / folder.README).symlink_to(outside)
    folder.write_shared(team, "tools", pack(ALICE))
    assert outside.read_bytes() == b"keep me"


def test_the_team_folder_itself_may_be_a_link(tmp_path):
    real = tmp_path / "share"
    real.mkdir()
    (tmp_path / "team").symlink_to(real, target_is_directory=True)
    folder.write_shared(tmp_path / "team", "tools", pack(ALICE))
    assert len(FolderReader().scan(tmp_path / "team").files) == 1


# --- bad names, partial files ----------------------------------------------------------------


@pytest.mark.parametrize("bad", ["../../etc/passwd", "Assign Refund", "x" * 31, "", "ä_tool"])
def test_a_tool_with_a_name_no_tool_can_have_is_neither_offered_nor_counted(bad):
    v = view(shared(pack(ALICE, name=bad)), trusted=TRUST_ALICE)
    assert v.tools == [] and v.offered == []


def test_a_pack_of_several_tools_offers_nothing():
    doc = copy.deepcopy(PACK)
    doc["tools"] = [doc["tools"][0], {**doc["tools"][0], "name": "second"}]
    assert view(shared(signing.sign(doc, ALICE)), trusted=TRUST_ALICE).tools == []


def test_a_file_still_being_copied_in_waits_quietly_then_is_judged(tmp_path):
    data = pack(ALICE)
    path = tmp_path / "tools" / folder.content_name(data, "tools")
    path.parent.mkdir()
    now = [time.time()]
    reader = FolderReader(clock=lambda: now[0])
    for end in (100, 400, 900):  # growing
        path.write_bytes(data[:end])
        scan = reader.scan(tmp_path)
        assert scan.files == [] and scan.arriving == 1
    path.write_bytes(data)  # complete
    assert [f.verdict for f in reader.scan(tmp_path).files] == ["signed"]
    # One that stops half way is "changed" once it stays put.
    half = tmp_path / "tools" / folder.content_name(pack(ALICE, name="other"), "tools")
    half.write_bytes(pack(ALICE, name="other")[:300])
    assert reader.scan(tmp_path).arriving == 1
    now[0] += 1
    assert "changed" in [f.verdict for f in reader.scan(tmp_path).files]


# --- versions never go back -------------------------------------------------------------------


def test_the_highest_signed_version_is_the_latest_whatever_its_time():
    v1 = shared(pack(ALICE, version=1, created="2026-12-05T10:00:00Z"))
    v2 = shared(pack(ALICE, version=2, created="2026-12-01T10:00:00Z", description="Newer."))
    tool = one(view(v1, v2, trusted=TRUST_ALICE))
    assert tool.file.version == 2
    # What is seen is remembered by the app (view.seen, then the database).
    assert view(v1, v2, trusted=TRUST_ALICE).seen == {(PUB[ALICE], "assign_refund"): (2, v2.digest)}


def test_an_older_version_is_not_offered_once_a_newer_one_was_seen():
    v1 = shared(pack(ALICE, version=1))
    seen = {(PUB[ALICE], "assign_refund"): 2}  # v2 was here, and its file was deleted
    tool = one(view(v1, trusted=TRUST_ALICE, seen=seen))
    assert tool.state == "older" and not tool.offered and tool.newer_seen == 2
    assert "version 2 was here before" in team_words.line(tool)
    assert one(view(v1, trusted=TRUST_ALICE)).state == "new"  # a newcomer without memory


def test_a_newcomer_is_not_offered_an_older_version_than_one_a_trusted_colleague_accepted():
    v1 = shared(pack(ALICE, version=1))
    v2_bytes = pack(ALICE, version=2, description="Newer.")
    v2 = shared(v2_bytes)
    accepted_v2 = signed(
        "reviews",
        documents.review_document("Priya", "assign_refund", PUB[ALICE], v2.digest, 2, v2_bytes),
        PRIYA,
    )
    trusted = {**TRUST_ALICE, PUB[PRIYA]: "Priya"}
    # v2's file is gone; Priya's signed review of it, which carries it, is still there.
    assert one(view(v1, accepted_v2, trusted=trusted)).state == "older"
    # A review that carries no file counts only while the file it names is there.
    bare = signed(
        "reviews",
        documents.review_document("Priya", "assign_refund", PUB[ALICE], v2.digest, 2),
        PRIYA,
    )
    assert one(view(v1, bare, trusted=trusted)).state == "new"
    assert one(view(v1, v2, bare, trusted=trusted)).file.version == 2
    # A review by someone this person does not trust does not hold anything back.
    forged = signed(
        "reviews",
        documents.review_document("M", "assign_refund", PUB[ALICE], "0" * 64, 99),
        MALLORY,
    )
    assert one(view(v1, forged, trusted=trusted)).state == "new"


def test_versions_seen_are_kept_in_the_database(tmp_path):
    from understudy_desktop.team.trust import TeamDecisions

    db = Database(tmp_path)
    try:
        decisions = TeamDecisions(db)
        decisions._write = lambda work, apply, done: (db.write(work), apply())  # type: ignore[method-assign]
        decisions.note_versions({(PUB[ALICE], "assign_refund"): (3, "f" * 64)})
        decisions.note_versions({(PUB[ALICE], "assign_refund"): (2, "e" * 64)})  # lower: kept 3
        assert TeamDecisions(db).seen() == {(PUB[ALICE], "assign_refund"): 3}
    finally:
        db.close()


def test_a_trusted_key_is_kept_in_the_database_under_its_name_cut_to_the_limit(tmp_path):
    """What accepting from someone new records (their key, as the name they gave) outlives a
    restart, and a name longer than a person's name may be is kept cut to that limit."""
    from understudy_desktop.rules import rules
    from understudy_desktop.team.trust import TeamDecisions

    limit = rules().limits.authorName
    db = Database(tmp_path)
    try:
        decisions = TeamDecisions(db)
        decisions._write = lambda work, apply, done: (db.write(work), apply())  # type: ignore[method-assign]
        decisions.trust(PUB[ALICE], "Alice Novak")
        decisions.trust(PUB[PRIYA], "P" * (limit + 5))
        expected = {PUB[ALICE]: "Alice Novak", PUB[PRIYA]: "P" * limit}
        assert TeamDecisions(db).trusted() == expected
        assert decisions.trusted() == expected
    finally:
        db.close()


# --- the team lead's policy ---------------------------------------------------------------------


def policy(seq: int, key: Ed25519PrivateKey = LEAD, **rules: Any) -> SharedFile:
    doc = documents.policy_document(
        "Lee Lead",
        seq,
        rules.get("publishers"),
        rules.get("second_review", False),
        rules.get("turned_off", []),
    )
    return signed("policy", doc, key)


def test_without_a_chosen_lead_a_policy_changes_nothing():
    v = view(shared(pack(ALICE)), policy(1, publishers=[PUB[PRIYA]]), trusted=TRUST_ALICE)
    assert one(v).state == "new" and v.policy is None and len(v.policies) == 1


def test_only_listed_publishers_are_offered():
    rules = {"publishers": [PUB[PRIYA]]}
    v = view(shared(pack(ALICE)), policy(1, **rules), trusted=TRUST_ALICE, lead=PUB[LEAD])
    tool = one(v)
    assert tool.state == "not_allowed" and not tool.offered
    allowed = view(
        shared(pack(PRIYA, author="Priya")), policy(1, **rules), lead=PUB[LEAD], trusted={}
    )
    assert one(allowed).state == "untrusted"


def test_a_policy_signed_by_another_key_or_an_older_number_is_not_the_one_in_force():
    forged = policy(9, key=MALLORY, publishers=[PUB[MALLORY]])
    older, newer = policy(1, publishers=[PUB[PRIYA]]), policy(2, publishers=None)
    v = view(shared(pack(ALICE)), forged, older, newer, trusted=TRUST_ALICE, lead=PUB[LEAD])
    assert v.policy is not None and v.policy.sequence == 2
    assert one(v).state == "new"


def test_the_highest_rules_number_is_in_force_whatever_its_date():
    """Rules are ordered by their signed number, not by the date they give themselves: rules
    number 1 dated after number 2 do not come back into force."""
    dated = []
    for seq, created, publishers in (
        (1, "2026-12-05T10:00:00Z", [PUB[PRIYA]]),
        (2, "2026-12-01T10:00:00Z", None),
    ):
        doc = documents.policy_document("Lee Lead", seq, publishers, False, [])
        doc["created"] = created
        dated.append(signed("policy", doc, LEAD))
    v = view(shared(pack(ALICE)), *dated, trusted=TRUST_ALICE, lead=PUB[LEAD])
    assert v.policy is not None and v.policy.sequence == 2
    assert [f.info.sequence for f in v.policies] == [2, 1]
    assert one(v).state == "new"


def _review(key: Ed25519PrivateKey, of: SharedFile) -> SharedFile:
    doc = documents.review_document("Reviewer", of.tool, of.key, of.digest)
    return signed("reviews", doc, key)


def test_a_second_review_comes_before_the_rest_of_the_team_is_offered_a_tool():
    rules = {"publishers": [PUB[ALICE], PUB[PRIYA]], "second_review": True}
    tool_file = shared(pack(ALICE))
    base = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    # Sam is not a publisher: he waits for a second person's review.
    assert one(view(tool_file, policy(1, **rules), **base)).state == "awaiting_review"
    # Priya may review: she is offered it.
    priya = view(tool_file, policy(1, **rules), **{**base, "mine": PUB[PRIYA]})
    assert one(priya).state == "new"
    # The author's own review does not count; a stranger's does not either.
    for key in (ALICE, MALLORY):
        assert one(view(tool_file, policy(1, **rules), _review(key, tool_file), **base)).state == (
            "awaiting_review"
        )
    # Once Priya accepted it, Sam is offered it.
    done = view(tool_file, policy(1, **rules), _review(PRIYA, tool_file), **base)
    assert one(done).state == "new"


def test_a_review_of_one_version_is_not_the_second_review_of_the_next():
    rules = {"publishers": [PUB[ALICE], PUB[PRIYA]], "second_review": True}
    v1 = shared(pack(ALICE, version=1))
    v2 = shared(pack(ALICE, version=2, description="Newer."))
    base = {"trusted": TRUST_ALICE, "lead": PUB[LEAD]}
    waiting = one(view(v1, v2, policy(1, **rules), _review(PRIYA, v1), **base))
    assert waiting.file.version == 2 and waiting.state == "awaiting_review"
    assert one(view(v1, v2, policy(1, **rules), _review(PRIYA, v2), **base)).state == "new"


def test_a_tool_turned_off_for_the_team_is_taken_away_and_comes_back_when_lifted():
    tool_file = shared(pack(ALICE))
    here = inbox.Installed("assign_refund", PUB[ALICE], "assign_refund", tool_file.digest, "")
    off = policy(1, turned_off=[(PUB[ALICE], "assign_refund")])
    v = view(tool_file, off, trusted=TRUST_ALICE, lead=PUB[LEAD], installed=(here,))
    assert one(v).state == "turned_off" and v.turn_off == [one(v)]
    held = inbox.Installed(
        "assign_refund", PUB[ALICE], "assign_refund", tool_file.digest, "", "team_off"
    )
    still = view(tool_file, off, trusted=TRUST_ALICE, lead=PUB[LEAD], installed=(held,))
    assert still.turn_off == [] and still.turn_back == []  # already held: nothing to redo
    lifted = view(tool_file, off, policy(2), trusted=TRUST_ALICE, lead=PUB[LEAD], installed=(held,))
    assert lifted.turn_back == [held]


def test_an_agent_is_told_in_words_why_a_tool_taken_away_by_the_team_does_not_run():
    withdrawn = may_run("assign_refund", ToolState("needs_review", "d", "withdrawn"), "d", None, 0)
    assert withdrawn is not None
    assert "withdrawn from the team library by its author" in withdrawn["message"]
    off = may_run("assign_refund", ToolState("needs_review", "d", "team_off"), "d", None, 0)
    assert off is not None and "turned off for the whole team by the team lead" in off["message"]
    other = may_run("assign_refund", ToolState("needs_review", "d", ""), "d", None, 0)
    assert other is not None and "changed since a person approved it" in other["message"]


def _withdrawal(key: Ed25519PrivateKey, created: str) -> SharedFile:
    stop = documents.withdrawal_document("Alice Novak", "assign_refund")
    stop["created"] = created
    return signed("withdrawn", stop, key)


def test_the_history_lists_who_shared_accepted_withdrew_and_turned_off_what():
    tool_file = shared(pack(ALICE, version=1, created="2026-12-01T10:00:00Z"))
    v = view(
        tool_file,
        _review(PRIYA, tool_file),
        _withdrawal(ALICE, "2026-12-03T10:00:00Z"),
        policy(1, turned_off=[(PUB[ALICE], "assign_refund")]),
        shared(pack(None, name="sneaky")),  # unsigned: not in the history
        trusted={**TRUST_ALICE, PUB[PRIYA]: "Priya Raman"},
    )
    said = [f"{line.who} {line.what}" for line in v.audit]
    assert "Alice Novak shared “Assign refund” (version 1)" in said
    assert "Alice Novak withdrew “Assign refund”" in said
    assert "Priya Raman accepted “Assign refund” from Alice Novak" in said
    assert any("turned off for the team: Assign refund" in s for s in said)
    assert not any("sneaky" in s for s in said)


# --- keys: hand-over, export and import -------------------------------------------------------


def _handover(old: Ed25519PrivateKey, new: Ed25519PrivateKey) -> SharedFile:
    return signed("keys", documents.handover_document("Alice Novak", PUB[old], new), old)


def test_a_new_key_vouched_for_by_a_trusted_one_is_trusted_under_the_same_name():
    v = view(shared(pack(ALICE2)), _handover(ALICE, ALICE2), trusted=TRUST_ALICE)
    tool = one(v)
    assert tool.trusted and tool.state == "new" and tool.impostor_of == ""
    assert tool.vouched_by == PUB[ALICE] and v.vouched == {PUB[ALICE2]: (PUB[ALICE], "Alice Novak")}
    # A hand-over signed by anyone else vouches for nothing.
    forged = view(shared(pack(ALICE2)), _handover(MALLORY, ALICE2), trusted=TRUST_ALICE)
    assert not one(forged).trusted and one(forged).impostor_of


def test_the_new_key_can_withdraw_what_the_old_key_shared():
    tool_file = shared(pack(ALICE, created="2026-12-01T10:00:00Z"))
    here = inbox.Installed("assign_refund", PUB[ALICE], "assign_refund", tool_file.digest, "")
    v = view(
        tool_file,
        _handover(ALICE, ALICE2),
        _withdrawal(ALICE2, "2026-12-05T10:00:00Z"),
        trusted=TRUST_ALICE,
        installed=(here,),
    )
    assert one(v).state == "withdrawn" and v.withdraw == [one(v)]


def _identity(root: Path) -> tuple[Identity, Database]:
    root.mkdir(parents=True, exist_ok=True)
    db = Database(root)
    return Identity(root, Settings(db), use_keyring=False), db


def test_a_key_saved_with_a_passphrase_opens_on_a_new_computer_and_nowhere_else(tmp_path):
    old, old_db = _identity(tmp_path / "old")
    new, new_db = _identity(tmp_path / "new")
    try:
        old.sign({"x": 1})  # makes the key
        saved = tmp_path / "me.understudy-key"
        with pytest.raises(KeyFileError, match="at least 8 characters"):
            old.export_key(saved, "short")
        assert not saved.exists()
        old.export_key(saved, "a long passphrase")
        assert stat.S_IMODE(saved.stat().st_mode) == 0o600
        assert b"ENCRYPTED PRIVATE KEY" in saved.read_bytes()
        assert old.public_key.encode() not in saved.read_bytes()
        with pytest.raises(KeyFileError, match="does not open"):
            new.import_key(saved, "the wrong passphrase")
        assert new.public_key == ""  # nothing changed
        (tmp_path / "junk").write_bytes(b"not a key")
        with pytest.raises(KeyFileError, match="not a saved Understudy key"):
            new.import_key(tmp_path / "junk", "a long passphrase")
        assert new.import_key(saved, "a long passphrase") == old.public_key
        assert signing.check(new.sign({"y": 2})).key == old.public_key
        # Kept across a restart.
        again = Identity(tmp_path / "new", Settings(new_db), use_keyring=False)
        assert signing.check(again.sign({"z": 3})).key == old.public_key
    finally:
        old_db.close()
        new_db.close()


def test_moving_to_a_new_key_signs_a_hand_over_and_keeps_the_old_files_ones_own(tmp_path):
    me, db = _identity(tmp_path / "me")
    try:
        first = signing.check(me.sign({"x": 1})).key
        handover = me.new_key("Alice Novak")
        checked = signing.check(handover)
        assert checked.verdict == "signed" and checked.key == first
        assert documents.as_handover(checked.document).newKey == me.public_key != first
        assert me.former_keys == {first}
        # What an earlier key shared is still this person's own.
        ours = view(
            shared(signing.sign(copy.deepcopy(PACK), ALICE)),
            mine=me.public_key,
            former=frozenset({PUB[ALICE]}),
        )
        assert one(ours).state == "mine"
    finally:
        db.close()


# --- a scan of an unchanged folder does no work -----------------------------------------------


def test_an_unchanged_folder_is_not_listed_again(tmp_path, monkeypatch):
    for n in range(50):
        folder.write_shared(tmp_path, "tools", pack(ALICE, name=f"tool_{n}"))
    now = [time.time() + 10]
    reader = FolderReader(clock=lambda: now[0])
    first = reader.scan(tmp_path)
    assert len(first.files) == 50 and not first.same_as_before
    listed: list[str] = []
    from understudy_desktop.team import no_links

    real = no_links.Folder.files

    def counting(self: no_links.Folder):  # type: ignore[no-untyped-def]
        listed.append(str(self.path))
        return real(self)

    monkeypatch.setattr(no_links.Folder, "files", counting)
    second = reader.scan(tmp_path)
    assert second.same_as_before and listed == [] and second.files == first.files
    # A new file changes the folder's time: listed, and only it is read.
    time.sleep(0.01)  # time passing is the point: the folder's time becomes a new one
    folder.write_shared(tmp_path, "tools", pack(ALICE, name="tool_new"))
    third = reader.scan(tmp_path)
    assert listed and len(third.files) == 51 and not third.same_as_before


def test_a_scan_keeps_a_summary_not_the_files_bytes():
    file = shared(pack(ALICE))
    assert not any(isinstance(v, bytes) for v in vars(file).values())
    assert file.size == len(pack(ALICE))


def test_what_is_written_is_readable_by_colleagues_whatever_the_apps_umask(tmp_path):
    before = os.umask(0o077)  # the app keeps its own data private
    try:
        path = folder.write_shared(tmp_path, "tools", pack(ALICE))
    finally:
        os.umask(before)
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o644  # colleagues read it
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o755
