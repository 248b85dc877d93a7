"""Choosing a lead by invitation (team/invitation.py has the codes and files): what the lead
hands out, and how a member's app follows the key it names, at once or as soon as that
lead's files arrive. Settings › Team lead shows it; the service owns one."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from understudy_desktop.atomic_file import write_atomically
from understudy_desktop.store.settings import Settings
from understudy_desktop.team.folder import SharedFile
from understudy_desktop.team.identity import Identity
from understudy_desktop.team.invitation import (
    EXAMPLE_CODE,
    MAX_FILE_BYTES,
    InvitationError,
    code_of,
    invitation_document,
    matches,
    normal_code,
    read_invitation,
)
from understudy_desktop.team.lead_choice import LeadChoice, lead_choices
from understudy_desktop.team.names import one_line
from understudy_desktop.team.signing import fingerprint

# The invitation code this person used: its lead is followed once their files arrive.
INVITED = "team_lead_invited"


class Team(Protocol):
    """What this needs of the team service."""

    @property
    def lead(self) -> str: ...

    def follow_lead(self, key: str) -> None: ...

    def files_seen(self) -> list[SharedFile]: ...

    def trusted(self) -> dict[str, str]: ...


class LeadInvitations:
    def __init__(
        self,
        team: Team,
        settings: Settings,
        identity: Identity,
        author: Callable[[], str],
        notify: Callable[[str], None],
    ) -> None:
        self._team = team
        self._settings = settings
        self._identity = identity
        self._author = author
        self._notify = notify

    def lead_choices(self) -> list[LeadChoice]:
        """Whose rules this person may follow: every key that signed rules or confirmations."""
        return lead_choices(self._team.files_seen(), self._team.trusted(), self.invited)

    @property
    def invited(self) -> str:
        """The invitation code this person used ('' none): the lead it names is followed as
        soon as their files arrive, and marked as the invited one among those who claim it."""
        return str(self._settings.get(INVITED, "") or "")

    def invitation_code(self) -> str:
        """This person's key's invitation code, for newcomers to follow them ('' no key)."""
        mine = self._identity.public_key
        return code_of(mine) if mine else ""

    def save_invitation(self, path: Path) -> None:
        """An invitation file naming this person's key. Raises InvitationError in words."""
        data = self._identity.sign(
            invitation_document(self._author() or "Team lead", self._identity.public_key)
        )
        try:
            write_atomically(path, data)
        except OSError as exc:
            raise InvitationError(
                f"The invitation could not be saved there ({exc.strerror or exc}). Nothing was "
                "changed."
            ) from exc

    def use_invitation_code(self, typed: str) -> str:
        """Follow the lead whose key has this code; if none has written to the folder yet, as
        soon as one does. Returns what happened, in words; raises InvitationError."""
        code = normal_code(typed)
        if code is None:
            raise InvitationError(
                "That is not an invitation code: a code has 16 letters and digits, like "
                f"{EXAMPLE_CODE}. Nothing was changed."
            )
        self._settings.set(INVITED, code)
        found = [c for c in self.lead_choices() if matches(code, c.key)]
        if found:
            self._team.follow_lead(found[0].key)
            return self._following_words(found[0].key, found[0].name)
        return (
            "Nobody with this code has written to the team folder yet (their files may still "
            "be on their way). Understudy follows them as soon as their rules arrive."
        )

    def use_invitation_file(self, path: Path) -> str:
        """Follow the lead an invitation file names. Returns what happened, in words; raises
        InvitationError."""
        try:
            with path.open("rb") as handle:
                data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as exc:
            raise InvitationError(
                f"The invitation could not be read ({exc.strerror or exc}). Nothing was changed."
            ) from exc
        invitation = read_invitation(data)
        self._settings.set(INVITED, code_of(invitation.key))
        self._team.follow_lead(invitation.key)
        return self._following_words(invitation.key, invitation.name)

    def _following_words(self, key: str, name: str) -> str:
        return (
            f"You follow {one_line(name) or 'your team lead'}'s rules now: the key whose "
            f"fingerprint is {fingerprint(key)}."
        )

    def follow_when_arrived(self) -> None:
        """An invitation entered before its lead's files arrived: followed once they do."""
        code = self.invited
        if not code or matches(code, self._team.lead):
            return
        found = [c for c in self.lead_choices() if matches(code, c.key)]
        if found and not self._team.lead:
            self._team.follow_lead(found[0].key)
            self._notify(
                f"Your team lead's rules arrived. "
                f"{self._following_words(found[0].key, found[0].name)}"
            )

    def forget_unless(self, key: str) -> None:
        """A lead chosen by hand: an invitation naming someone else is forgotten."""
        if self.invited and not matches(self.invited, key):
            self._settings.set(INVITED, None)
