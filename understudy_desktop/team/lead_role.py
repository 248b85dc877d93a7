"""The team lead's side of the team library, and what the lead's word means for a member
over time: the rules written and signed (and co-signed by other leads, team/leads.py), a tool
turned off for the whole team, confirmations signed on a schedule (team/confirming.py), a
member's team tools paused or warned about when the lead's word is not proven here
(team/freshness.py), and the person told when a file of theirs was deleted and put back.

A part of the team service (library_service.py), which mixes it in: it works on the
service's view, folder and settings, and is kept apart so each half reads on its own."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from shiboken6 import isValid

from understudy_desktop.library.library import Library
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.background import Background
from understudy_desktop.team.confirming import moment
from understudy_desktop.team.documents import confirmation_document, now_iso, policy_document
from understudy_desktop.team.folder import Kind, SharedFile, remove_own, write_shared
from understudy_desktop.team.freshness import STALE, Freshness
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.inbox import TeamTool, TeamView
from understudy_desktop.team.leads import Waiting, co_sign_document
from understudy_desktop.team.no_links import LinkRefusedError
from understudy_desktop.team.status_words import (
    LINK_WORDS,
    freshness_notice,
    restored_words,
    unconfirmed_reason,
)
from understudy_desktop.team.trust import TeamDecisions
from understudy_desktop.team.view_work import LeadPlan
from understudy_desktop.team.watcher import TeamWatcher

log = logging.getLogger(__name__)
# The team lead's key this person chose to follow ('' none).
TEAM_LEAD = "team_lead_key"
# Why team tools were paused at the last run ('' or absent: they were not).
PAUSED = "team_tools_paused"


class LeadRole:
    """Mixed into TeamLibrary; these are the service's, set in its __init__."""

    identity: Identity
    decisions: TeamDecisions
    view: TeamView
    watcher: TeamWatcher
    _settings: Settings
    _library: Library
    _background: Background
    _clock: Callable[[], float]
    _notify: Callable[[str], None]
    _show_problem: Callable[[str, str], None]
    _confirming: bool
    _confirmed_sequence: int
    _confirmed_by: int
    _generation: int
    _freshness_told: tuple[object, ...]
    _restored_told: set[str]

    # What the service itself provides.
    @property
    def folder(self) -> Path | None:
        raise NotImplementedError

    @property
    def lead(self) -> str:
        raise NotImplementedError

    def author_name(self) -> str:
        raise NotImplementedError

    def refresh(self, at_once: bool = False) -> None:
        raise NotImplementedError

    def _write(self, kind: Kind, data: bytes) -> Path:
        raise NotImplementedError

    def _add_to_scan(self, kind: Kind, name: str, data: bytes) -> None:
        raise NotImplementedError

    def _expect_layout(self) -> bool:
        raise NotImplementedError

    # --- the team lead's rules ----------------------------------------------------------------
    def is_lead(self) -> bool:
        """This person leads the team: the lead they follow is their own key, or the rules in
        force name them as one of the leads."""
        mine = self.identity.public_key
        return bool(mine) and (mine == self.lead or mine in self.view.rules.leads)

    def waiting_for_me(self) -> list[Waiting]:
        """Newer rules another lead signed that need this lead's signature too."""
        mine = self.identity.public_key
        if not mine or mine not in self.view.rules.leads:
            return []
        return [w for w in self.view.rules.waiting if mine not in w.signed_by]

    def co_sign(self, waiting: Waiting) -> bool:
        """As one of the leads: sign the same rules another lead signed (team/leads.py), so
        that, with enough leads, they are in force. Problems are shown; True when written."""
        document = co_sign_document(waiting.policy, self.author_name() or "Team lead", now_iso())
        return self._sign_rules(self.identity.sign(document))

    def write_policy(
        self,
        publishers: list[str] | None,
        second_review: bool,
        turned_off: list[tuple[str, str]] | list[tuple[str, str, str]],
        revoked_keys: list[str] | None = None,
        confirm_for: int | Literal["same"] | None = "same",
        when_unconfirmed: str = "",
        co_leads: list[str] | None = None,
        threshold: int | None = None,
    ) -> bool:
        """As the team lead: sign and write the team's rules (the next number, above any
        this person signed with an earlier key too). This person follows their own policy
        from then on. Keys the rules revoked stay revoked unless `revoked_keys` says
        otherwise; how long a confirmation lasts and what members do without one stay as
        they were unless given. Problems are shown; True when written."""
        # The next number above any this person or another lead in force signed (rules of
        # other leads that are not in force yet are numbered past too).
        leads = {self.identity.public_key} | set(self.identity.former_keys) | self.view.rules.leads
        numbers = [f.info.sequence for f in self.view.policies if f.key in leads and f.info]
        policy = self.view.policy
        if revoked_keys is None:
            revoked_keys = list(policy.revokedKeys) if policy is not None else []
        if confirm_for == "same":
            confirm_for = policy.confirmFor if policy is not None else None
        if not when_unconfirmed:
            when_unconfirmed = policy.whenUnconfirmed if policy is not None else "keep"
        if co_leads is None:
            co_leads = list(policy.coLeads) if policy is not None else []
        if threshold is None:
            threshold = policy.threshold if policy is not None else 1
        document = policy_document(
            self.author_name() or "Team lead",
            max(numbers, default=0) + 1,
            publishers,
            second_review,
            turned_off,
            revoked_keys,
            confirm_for,
            when_unconfirmed,
            co_leads,
            threshold,
        )
        return self._sign_rules(self.identity.sign(document))

    def _sign_rules(self, data: bytes) -> bool:
        try:
            path = self._write("policy", data)
        except LinkRefusedError:
            self._show_problem("The team's rules were not saved", LINK_WORDS)
            return False
        except OSError as exc:
            self._show_problem(
                "The team's rules were not saved",
                f"The team folder could not be written ({exc.strerror or exc}). Try again when "
                "it is reachable.",
            )
            return False
        if not self.lead or self.identity.public_key not in self.view.rules.leads:
            # The lead now (a co-lead goes on following the lead whose rules name them).
            self._settings.set(TEAM_LEAD, self.identity.public_key)
        # In force here at once (the dialog reopened a moment later shows them), not only
        # once the folder is read again.
        self._add_to_scan("policy", path.name, data)
        self.refresh(at_once=True)
        self._notify("The team's rules are saved in the team folder.")
        self.watcher.scan_now()
        return True

    def turn_off_for_team(self, item: TeamTool, off: bool = True) -> bool:
        """As the team lead: turn one shared tool off (or on again) for every member."""
        policy = self.view.policy
        current = {(t.sharedBy, t.tool, t.steps) for t in policy.turnedOff} if policy else set()
        # What it does is turned off too (its steps and kinds of input, not their wording:
        # team/fingerprint.py), under whatever name and words it comes.
        entry = (item.key, item.tool, item.file.does)
        same = {item.file.does, item.file.steps} - {""}
        wanted = (
            current | {entry}
            if off
            else {e for e in current if e[:2] != entry[:2] and e[2] not in same}
        )
        return self.write_policy(
            policy.publishers if policy else None,
            policy.secondReview if policy else False,
            sorted(wanted),
        )

    # --- is the lead's word reaching this computer? -----------------------------------------
    def _on_freshness(self, fresh: Freshness) -> None:
        """Pause team tools, or let them run with a warning, as the lead's rules say; tell
        the person once each time the state changes."""
        now = self._clock()
        reason = unconfirmed_reason(fresh, now) if fresh.stale else ""
        self._library.set_team_pause(reason if fresh.paused else "", reason)
        if (reason if fresh.paused else "") != (self._settings.get(PAUSED, "") or ""):
            self._settings.set(PAUSED, reason if fresh.paused else None)
        told = (fresh.state, fresh.file, fresh.missing_rules, fresh.missing_other, fresh.pause)
        if fresh.stale and told != self._freshness_told:
            self._notify(freshness_notice(fresh, now))
        elif not fresh.stale and self._freshness_told and self._freshness_told[0] in STALE:
            self._notify("Your team lead's rules are confirmed again. Team tools run as usual.")
        self._freshness_told = told if fresh.stale else (fresh.state,)

    def _lead_duties(self, plan: LeadPlan | None, generation: int) -> None:
        """As the team lead: sign a new confirmation when one is due (what it names changed,
        or a renewDivisor-th of its lifetime passed), and remove this person's outdated ones,
        on the team's thread."""
        folder = self.folder
        if plan is None or folder is None or not self.is_lead():
            return
        if plan.outdated:
            names = list(plan.outdated)
            self._background.run(lambda: remove_own(folder, "confirmed", names), _ignored)
        if not plan.due or self._confirming or generation <= self._confirmed_by:
            # One is being written, or this view was worked out before the last one was.
            return
        want = plan.want
        document = confirmation_document(
            self.author_name() or "Team lead",
            max(plan.sequence, self._confirmed_sequence + 1),
            want.lifetime_s,
            want.rules,
            want.rules_sequence,
            list(want.named),
            moment(self._clock()),
        )
        data = self.identity.sign(document)
        expect = self._expect_layout()
        self._confirming = True

        def written(path: Path | None) -> None:
            if not isValid(self):
                return
            self._confirming = False
            if path is None:
                return  # logged; the next view tries again
            self.decisions.keep([("confirmed", path.name, data)])
            self._add_to_scan("confirmed", path.name, data)
            self._confirmed_by = self._generation  # views asked for until now lack it
            self.refresh()

        self._background.run(
            lambda: write_shared(folder, "confirmed", data, expect_layout=expect), written
        )

    def _told_restored(self, restored: list[SharedFile]) -> None:
        """Files someone removed from the folder that this app wrote back: the person hears of
        their own (the lead, of their rules), once per file."""
        mine = {self.identity.public_key} | set(self.identity.former_keys)
        own = [f for f in restored if f.key in mine and f.name not in self._restored_told]
        self._restored_told |= {f.name for f in own}
        if not own:
            return
        what = restored_words(own)
        self._notify(
            f"Someone removed {what} from the team folder (a colleague with access to it, or "
            "their sync service). Understudy put it back. If it keeps happening, ask whoever "
            "looks after the folder."
        )


def _ignored(_result: object) -> None:
    """A background job whose outcome only the log needs."""
