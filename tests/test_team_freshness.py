"""The lead's word over time, without Qt (issue 48): a confirmation that expires and names what
the lead counts (TUF's timestamp and snapshot roles), worked out from a folder and a clock of
the test's own; the lead's schedule; what a tool does, whatever its wording; disputes the
lead or the member settles; a revoked key's tools; and a history that says only what
signatures prove. The same rules run in the app in tests/test_team_over_time.py and over
three real Syncthing peers in tests/test_team_syncthing.py."""

from __future__ import annotations

import copy
import dataclasses
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from test_team_adversary import THIEF, handover, rules
from test_team_trust import (
    ALICE,
    ALICE2,
    LEAD,
    MALLORY,
    PACK,
    PRIYA,
    PUB,
    TRUST_ALICE,
    one,
    pack,
    shared,
    signed,
    view,
)

from understudy_desktop.rules import rules as shared_rules
from understudy_desktop.shell import team_words
from understudy_desktop.team import (
    confirming,
    documents,
    fingerprint,
    inbox,
    leads,
    signing,
    status_words,
)
from understudy_desktop.team.folder import FolderScan, SharedFile

FRESH = shared_rules().teamFreshness
T0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC).timestamp()
HOUR, DAY = 3600.0, 86400.0
FOLLOW = {"lead": PUB[LEAD], "trusted": TRUST_ALICE}


def confirmation(
    *named: SharedFile,
    at: float = T0,
    lasts: int = 3 * 86400,
    sequence: int = 1,
    key: Ed25519PrivateKey = LEAD,
    in_force: SharedFile | None = None,
    seen: float | None = None,
) -> SharedFile:
    doc = documents.confirmation_document(
        "Lee Park",
        sequence,
        lasts,
        in_force.digest if in_force else "",
        in_force.info.sequence if in_force else 0,
        [f.digest for f in named],
        datetime.fromtimestamp(at, UTC),
    )
    file = signed("confirmed", doc, key)
    return dataclasses.replace(file, seen=at if seen is None else seen)


def seen_at(file: SharedFile, at: float) -> SharedFile:
    return dataclasses.replace(file, seen=at)


def fresh_at(now: float, *files: SharedFile, **decided: Any) -> inbox.TeamView:
    return view(*files, **{**FOLLOW, **decided, "now": now})


# --- a freeze is noticed ------------------------------------------------------------------------


def test_a_confirmation_in_time_naming_what_is_here_is_fresh():
    lead_rules = seen_at(rules(1), T0)
    v = fresh_at(T0 + HOUR, lead_rules, confirmation(lead_rules, in_force=lead_rules))
    assert v.freshness.state == "fresh" and not v.freshness.stale
    assert v.freshness.by == "Lee Lead"  # the name the lead's rules give, for a key followed


def test_a_confirmation_that_ran_out_says_when_the_rules_were_last_confirmed():
    lead_rules = seen_at(rules(1), T0)
    last = confirmation(lead_rules, in_force=lead_rules, lasts=int(DAY))
    v = fresh_at(T0 + 3 * DAY + HOUR, lead_rules, last)
    assert v.freshness.state == "expired" and v.freshness.stale and not v.freshness.paused
    words = status_words.freshness_notice(v.freshness, T0 + 3 * DAY + HOUR)
    assert words.startswith("Your team's rules were last confirmed by Lee Lead 3 days ago.")
    assert "keep running" in words
    # Just before it runs out, it is fresh.
    assert fresh_at(T0 + DAY - 1, lead_rules, last).freshness.state == "fresh"


def test_rules_named_but_kept_from_this_copy_are_missing_after_the_grace():
    """The hub lets confirmations through but ignores policy/: the newest rules never come."""
    old = seen_at(rules(1), T0)
    newest = rules(2, turned_off=[(PUB[ALICE], "assign_refund")])  # never reaches this copy
    word = confirmation(old, newest, in_force=newest, at=T0 + HOUR, sequence=2)
    within = fresh_at(T0 + HOUR + FRESH.arrivalGraceSeconds - 1, old, word)
    assert within.freshness.state == "fresh"  # it may still be on its way
    after = fresh_at(T0 + HOUR + FRESH.arrivalGraceSeconds + 1, old, word)
    assert after.freshness.state == "missing" and after.freshness.missing_rules
    said = status_words.unconfirmed_reason(after.freshness, T0 + 2 * HOUR)
    assert (
        said == "your team lead Lee Lead confirmed newer rules that have not reached this computer"
    )


def test_a_withdrawal_named_but_deleted_before_it_arrived_is_missing():
    lead_rules = seen_at(rules(1), T0)
    stop = documents.withdrawal_document("Alice Novak", "assign_refund")
    withdrawal = signed("withdrawn", stop, ALICE)  # deleted as it landed: never seen here
    word = confirmation(lead_rules, withdrawal, in_force=lead_rules)
    v = fresh_at(T0 + HOUR, lead_rules, word, shared(pack(ALICE)))
    assert v.freshness.state == "missing" and v.freshness.missing_other == 1
    assert not v.freshness.missing_rules


def test_following_a_lead_who_never_confirmed_is_said_after_a_grace():
    lead_rules = seen_at(rules(1), T0)
    assert fresh_at(T0 + 10, lead_rules).freshness.state == "pending"
    never = fresh_at(T0 + FRESH.arrivalGraceSeconds + 1, lead_rules)
    assert never.freshness.state == "never" and never.freshness.stale
    # Following nobody, there is nothing to confirm.
    assert view(lead_rules, now=T0 + DAY).freshness.state == "no_lead"


def test_the_leads_rules_decide_whether_team_tools_pause():
    paused_rules = signed(
        "policy",
        documents.policy_document("Lee Lead", 1, None, False, [], when_unconfirmed="pause"),
        LEAD,
    )
    paused_rules = seen_at(paused_rules, T0)
    word = confirmation(paused_rules, in_force=paused_rules, lasts=int(DAY))
    v = fresh_at(T0 + 2 * DAY, paused_rules, word)
    assert v.freshness.paused
    assert "team tools are paused" in status_words.freshness_status(v.freshness, T0 + 2 * DAY)
    assert not fresh_at(T0 + HOUR, paused_rules, word).freshness.paused


def test_only_the_leads_key_confirms_and_a_replay_cannot_stretch_a_confirmation():
    lead_rules = seen_at(rules(1), T0)
    forged = confirmation(lead_rules, key=MALLORY, at=T0 + 5 * DAY, sequence=99)
    assert fresh_at(T0 + 5 * DAY, lead_rules, forged).freshness.state == "never"
    # An old confirmation that lasted 30 days, replayed after the lead's newer one (which
    # lasts a day): the highest number counts, so it runs out with the newer one.
    old = confirmation(lead_rules, lasts=30 * 86400, sequence=1)
    newer = confirmation(lead_rules, at=T0 + HOUR, lasts=int(DAY), sequence=2)
    v = fresh_at(T0 + 3 * DAY, lead_rules, old, newer)
    assert v.freshness.state == "expired"


def test_a_confirmation_lasts_no_longer_than_the_longest_a_lead_may_choose():
    lead_rules = seen_at(rules(1), T0)
    forever = confirmation(lead_rules, lasts=100 * 365 * 86400)
    beyond = T0 + FRESH.maxSeconds + HOUR
    assert fresh_at(beyond, lead_rules, forever).freshness.state == "expired"


def test_the_lead_is_not_warned_about_their_own_word():
    lead_rules = seen_at(rules(1), T0)
    v = fresh_at(T0 + 90 * DAY, lead_rules, mine=PUB[LEAD])
    assert v.freshness.state == "lead" and not v.freshness.stale


# --- the lead's schedule -------------------------------------------------------------------------


def test_the_lead_confirms_again_when_what_it_names_changes_and_on_a_schedule():
    lead_rules = seen_at(rules(1), T0)
    v = view(lead_rules, mine=PUB[LEAD], lead=PUB[LEAD])
    scan = FolderScan(Path("team"), True, files=[lead_rules])
    want = confirming.wanted(scan, v.policy, v.policies, {PUB[LEAD]})
    assert want.rules == lead_rules.digest and want.named == (lead_rules.digest,)
    assert want.lifetime_s == FRESH.defaultSeconds
    assert confirming.due(None, want, T0)
    mine = confirmation(lead_rules, in_force=lead_rules, lasts=want.lifetime_s)
    assert not confirming.due(mine, want, T0 + 60)
    renew = T0 + want.lifetime_s / FRESH.renewDivisor
    assert not confirming.due(mine, want, renew - 1) and confirming.due(mine, want, renew)
    assert confirming.next_due_s(mine, want, T0) == want.lifetime_s / FRESH.renewDivisor
    # A withdrawal from someone who shared a tool is named at once; one from a throwaway
    # key that shared nothing is not (a flood of those cannot swell every confirmation).
    stop = signed("withdrawn", documents.withdrawal_document("Alice", "assign_refund"), ALICE)
    junk = signed("withdrawn", documents.withdrawal_document("X", "assign_refund"), MALLORY)
    scan = dataclasses.replace(scan, files=[lead_rules, shared(pack(ALICE)), stop, junk])
    grown = confirming.wanted(scan, v.policy, v.policies, {PUB[LEAD]})
    assert stop.digest in grown.named and junk.digest not in grown.named
    assert confirming.due(mine, grown, T0 + 60)


def test_the_lead_keeps_only_its_newest_confirmations_in_the_folder():
    files = [confirmation(sequence=n, at=T0 + n) for n in range(1, 6)]
    scan = FolderScan(Path("team"), True, files=files)
    gone = confirming.outdated_own(scan, {PUB[LEAD]})
    assert sorted(f.info.sequence for f in gone) == list(range(1, 6 - FRESH.keptPerSigner))


# --- what a tool does, whatever its wording -------------------------------------------------------


def _reworded(tool: dict[str, Any]) -> dict[str, Any]:
    """The same steps: another name, title, description, question name and description."""
    out = copy.deepcopy(tool)
    out.update(name="refund_quickly", title="Quick refund", description="Another description.")
    schema = out["inputSchema"]
    (old,) = list(schema["properties"])
    spec = schema["properties"].pop(old)
    spec["description"] = "Which ticket, worded otherwise."
    spec["maxLength"] = 63
    schema["properties"]["which_ticket"] = spec
    schema["required"] = ["which_ticket"]
    for step in out["steps"]:
        for source in step["args"].values():
            if source.get("from") == "param":
                source["name"] = "which_ticket"
    return out


def test_what_a_tool_does_ignores_its_wording_but_not_its_steps():
    tool = PACK["tools"][0]
    assert fingerprint.does(_reworded(tool)) == fingerprint.does(tool)
    other = copy.deepcopy(tool)
    other["steps"][1]["args"]["assignee"]["value"] = "chen"
    assert fingerprint.does(other) != fingerprint.does(tool)
    kind = copy.deepcopy(tool)
    (name,) = list(kind["inputSchema"]["properties"])
    kind["inputSchema"]["properties"][name]["type"] = "integer"
    assert fingerprint.does(kind) != fingerprint.does(tool)


def test_a_tool_turned_off_for_the_team_stays_off_reworded_under_another_name():
    original = shared(pack(ALICE))
    turned_off = rules(1, turned_off=[(PUB[ALICE], "assign_refund", original.does)])
    doc = copy.deepcopy(PACK)
    doc["tools"][0] = _reworded(doc["tools"][0])
    doc.update(author="Mallory")
    again = shared(signing.sign(doc, MALLORY))
    assert again.steps != original.steps  # the old fingerprint would have let it back
    v = view(again, turned_off, lead=PUB[LEAD])
    assert one(v).state == "turned_off"


# --- disputes the lead or the member settles -----------------------------------------------------


def _stolen() -> list[SharedFile]:
    """Alice moved to ALICE2; a thief with a copy of her old key handed it over to THIEF."""
    return [shared(pack(ALICE2)), handover(ALICE, ALICE2), handover(ALICE, THIEF)]


def test_a_thiefs_hand_over_makes_the_owners_new_key_disputed_until_the_lead_settles_it():
    v = view(*_stolen(), trusted=TRUST_ALICE)
    assert one(v).state == "disputed"
    settled = view(
        *_stolen(), rules(1, revoked_keys=[PUB[THIEF]]), trusted=TRUST_ALICE, lead=PUB[LEAD]
    )
    assert one(settled).state == "new" and one(settled).trusted
    assert settled.contested == {} and settled.handed[PUB[ALICE]] == PUB[ALICE2]


def test_a_member_who_trusts_the_new_key_directly_settles_it_for_themselves():
    trusted = {**TRUST_ALICE, PUB[ALICE2]: "Alice Novak"}
    vouched_only = view(*_stolen(), trusted=trusted)  # trusted through the hand-over alone
    assert one(vouched_only).state == "disputed"
    direct = view(*_stolen(), trusted=trusted, direct=frozenset({PUB[ALICE2]}))
    assert one(direct).state == "new" and direct.contested == {}


# --- a revoked key's tools stop, accepted before or after -----------------------------------------


def test_a_key_the_lead_revokes_stops_the_tools_it_signed_that_were_accepted_before():
    file = shared(pack(ALICE))
    here = inbox.Installed("assign_refund", PUB[ALICE], "assign_refund", file.digest, file.created)
    from_pack = inbox.Installed("refund_from_file", PUB[ALICE], "", "", "")
    revoked = rules(1, revoked_keys=[PUB[ALICE]])
    v = view(
        file,
        revoked,
        trusted=TRUST_ALICE,
        lead=PUB[LEAD],
        installed=(here,),
        keyed=(here, from_pack),
    )
    assert one(v).state == "lead_revoked"
    assert "your team lead revoked this key" in team_words.line(one(v))
    assert [i.local_name for i in v.revoke_here] == ["assign_refund", "refund_from_file"]
    # Held back already: nothing more to do; the lead takes the revocation back: reviewed again.
    held = dataclasses.replace(here, held="key_revoked")
    assert view(file, revoked, lead=PUB[LEAD], keyed=(held,)).revoke_here == []
    back = view(file, rules(2), lead=PUB[LEAD], keyed=(held,))
    assert [i.local_name for i in back.unrevoke_here] == ["assign_refund"]


def test_the_leads_own_tools_count_under_the_leads_list_from_every_key_the_lead_had():
    listing_others = rules(1, publishers=[PUB[ALICE]])
    own = one(view(shared(pack(LEAD, author="Lee Lead")), listing_others, lead=PUB[LEAD]))
    assert own.state == "untrusted"  # offered (not "not allowed"), from a key Sam must trust
    # A tool the lead shared before moving to a new key, already in a member's library, is
    # the team's too (not "not allowed") under the rules the new key signs.
    lead2 = Ed25519PrivateKey.from_private_bytes(bytes([77]) * 32)
    PUB[lead2] = documents.handover_document("Lee", PUB[LEAD], lead2)["newKey"]
    moved = handover(LEAD, lead2)
    later = signed(
        "policy", documents.policy_document("Lee Lead", 2, [PUB[ALICE]], False, []), lead2
    )
    before = shared(pack(LEAD, author="Lee Lead"))
    here = inbox.Installed("assign_refund", PUB[LEAD], "assign_refund", before.digest, "")
    kept = one(view(before, moved, later, lead=PUB[LEAD], installed=(here,)))
    assert kept.state == "current"


# --- a history that says only what signatures prove -----------------------------------------------


def test_a_hand_over_the_new_key_never_countersigned_is_not_in_the_history():
    doc = documents.handover_document("Mallory", PUB[MALLORY], LEAD)
    doc["newKeySignature"] = MALLORY.sign(
        documents.handover_statement(PUB[MALLORY], PUB[LEAD])
    ).hex()
    forged = signed("keys", doc, MALLORY)
    v = view(forged, shared(pack(ALICE)), trusted=TRUST_ALICE)
    assert not any("moved to a new key" in a.what for a in v.audit)


def test_what_an_old_key_signed_after_its_hand_over_is_not_said_as_its_owner():
    moved = seen_at(handover(ALICE, ALICE2), T0)
    before = seen_at(shared(pack(ALICE, name="refund_before")), T0 - DAY)
    after = seen_at(shared(pack(ALICE, name="wire_money")), T0 + HOUR)
    v = view(moved, before, after, trusted=TRUST_ALICE)
    said = {a.file: a.who for a in v.audit}
    assert said[before.name] == "Alice Novak"
    assert said[after.name] == "Someone with Alice Novak's old key"
    # In Alice's own history, neither is "You" once her old key was handed over.
    mine = view(moved, before, after, mine=PUB[ALICE2], former=frozenset({PUB[ALICE]}))
    said = {a.file: a.who for a in mine.audit}
    assert said[before.name] == "You" and said[after.name] == "Someone with your old key"


def test_a_key_handed_over_twice_is_said_so_in_the_history():
    v = view(*_stolen(), trusted=TRUST_ALICE)
    lines = [a.what for a in v.audit if "handed a key over" in a.what]
    assert len(lines) == 2 and all("not its owner's" in line for line in lines)


def test_a_time_ago_reads_in_plain_words():
    assert status_words.ago(30) == "a moment ago"
    assert status_words.ago(3 * DAY + 5) == "3 days ago"
    assert status_words.ago(HOUR) == "1 hour ago"
    assert status_words.ago(125) == "2 minutes ago"


# --- what a call is told; invitations; the newcomer's list ------------------------------------


def test_a_paused_team_tool_and_a_revoked_keys_tool_are_refused_in_words():
    from understudy_desktop.error_codes import ErrorCode
    from understudy_desktop.library.may_run import ToolState, may_run

    reason = "your team's rules were last confirmed by Lee Park 3 days ago"
    paused = may_run("refund", ToolState("active", "d", "", reason), "d", None, 0)
    assert paused is not None and paused["code"] == ErrorCode.TEAM_UNCONFIRMED
    assert paused["message"] == (
        f"refund comes from the team library, and {reason}. The team lead asked for team tools "
        "to wait until the rules are confirmed again."
    )
    assert may_run("refund", ToolState("active", "d", "", ""), "d", None, 0) is None
    revoked = may_run("refund", ToolState("needs_review", "d", "key_revoked"), "d", None, 0)
    assert revoked is not None and revoked["code"] == ErrorCode.APPROVAL_CHANGED
    assert revoked["message"] == (
        "refund was signed with a key the team lead revoked (it may have been copied), so it "
        "does not run."
    )


def test_an_invitation_code_is_read_back_however_it_was_typed():
    from understudy_desktop.team import invitation

    code = invitation.code_of(PUB[LEAD])
    assert len(code) == 19 and code.count("-") == 3
    assert set(code.replace("-", "")) <= set("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    typed = code.lower().replace("-", " ").replace("0", "o").replace("1", "l")
    assert invitation.normal_code(typed) == code and invitation.matches(typed, PUB[LEAD])
    assert not invitation.matches(code, PUB[MALLORY])
    assert invitation.normal_code(code[:-1]) is None
    assert invitation.normal_code(code.replace(code[0], "U", 1)) is None  # no U in a code


def test_an_invitation_file_names_its_lead_and_an_edited_one_is_refused():
    import pytest

    from understudy_desktop.team import invitation

    data = signing.sign(invitation.invitation_document("Lee Park", PUB[LEAD]), LEAD)
    found = invitation.read_invitation(data)
    assert found.key == PUB[LEAD] and found.name == "Lee Park"
    with pytest.raises(invitation.InvitationError, match="changed after"):
        invitation.read_invitation(data.replace(b"Lee Park", b"Lee Parc"))
    someone_else = invitation.invitation_document("Lee Park", PUB[LEAD])
    with pytest.raises(invitation.InvitationError, match="does not hold together"):
        invitation.read_invitation(signing.sign(someone_else, MALLORY))
    with pytest.raises(invitation.InvitationError, match="not an Understudy invitation"):
        invitation.read_invitation(b"{}")


def test_the_newcomers_list_names_every_key_that_claims_the_lead_and_warns_on_each():
    from understudy_desktop.team.invitation import code_of
    from understudy_desktop.team.lead_choice import lead_choices

    real = rules(1)
    forgeries = [
        signed("policy", documents.policy_document("Lee  Lead", 90, None, False, []), key)
        for key in (MALLORY, ALICE)
    ]
    other = signed("policy", documents.policy_document("Dana Ortiz", 2, None, False, []), PRIYA)
    choices = lead_choices([*forgeries, real, other], {})
    by_key = {c.key: c for c in choices}
    assert by_key[PUB[LEAD]].others == 2 and by_key[PUB[MALLORY]].others == 2
    assert by_key[PUB[PRIYA]].others == 0
    order = [(c.name.casefold(), c.key_id) for c in choices]
    assert order == sorted(order)  # by name and key, whatever number each claims
    invited = lead_choices([*forgeries, real], {}, code_of(PUB[LEAD]))
    assert [c.key for c in invited if c.invited] == [PUB[LEAD]]


# --- several leads with a threshold -------------------------------------------------------------


def _rules_with(
    seq: int, key: Ed25519PrivateKey, co_leads: list[str], threshold: int, **rest: Any
) -> SharedFile:
    doc = documents.policy_document(
        "Lee Lead",
        seq,
        None,
        False,
        rest.get("turned_off", []),
        co_leads=co_leads,
        threshold=threshold,
    )
    return signed("policy", doc, key)


def _co_signed(of: SharedFile, key: Ed25519PrivateKey) -> SharedFile:
    doc = leads.co_sign_document(of.info, "Alice Novak", "2026-12-02T10:00:00Z")
    return signed("policy", doc, key)


def test_with_two_leads_new_rules_are_in_force_once_both_signed():
    first = _rules_with(1, LEAD, [PUB[ALICE]], 2)
    off = [(PUB[PRIYA], "assign_refund")]
    second = _rules_with(2, LEAD, [PUB[ALICE]], 2, turned_off=off)
    waiting = view(first, second, lead=PUB[LEAD])
    assert waiting.policy.sequence == 1 and waiting.rules.leads == {PUB[LEAD], PUB[ALICE]}
    assert [w.policy.sequence for w in waiting.rules.waiting] == [2]
    both = view(first, second, _co_signed(second, ALICE), lead=PUB[LEAD])
    assert both.policy.sequence == 2 and both.rules.signed_by == {PUB[LEAD], PUB[ALICE]}
    # Someone who is not a lead signing the same rules counts for nothing.
    stranger = view(first, second, _co_signed(second, MALLORY), lead=PUB[LEAD])
    assert stranger.policy.sequence == 1
    # Nor does a co-lead alone sign rules into force when two are needed.
    alone = _rules_with(3, ALICE, [PUB[ALICE]], 1)
    assert view(first, alone, lead=PUB[LEAD]).policy.sequence == 1


def test_the_word_stays_confirmed_while_one_lead_is_away():
    first = seen_at(_rules_with(1, LEAD, [PUB[ALICE]], 1), T0)
    leads_word = confirmation(first, in_force=first, lasts=int(HOUR))
    later = confirmation(first, in_force=first, lasts=int(HOUR), key=ALICE, at=T0 + 2 * HOUR)
    v = fresh_at(T0 + 2 * HOUR + 60, first, leads_word, later)
    assert v.freshness.state == "fresh" and v.freshness.key == PUB[ALICE]
    # With only the lead's, run out, the word is not confirmed.
    assert fresh_at(T0 + 2 * HOUR + 60, first, leads_word).freshness.state == "expired"
