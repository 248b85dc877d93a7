"""Whose rules a member may choose to follow (Settings › Team lead), listed so that the first
trust is not one click on the wrong line: every key that signed rules or confirmations, under
the name this person trusts it as or the name it gives, with its fingerprint, in an order no
signer can influence (by name, then by key), and a warning on each key whose name looks like
another's. An invitation from the lead (team/invitation.py) picks the one key it names."""

from __future__ import annotations

from dataclasses import dataclass

from understudy_desktop.team import names
from understudy_desktop.team.folder import SharedFile
from understudy_desktop.team.invitation import matches
from understudy_desktop.team.signing import fingerprint, key_id


@dataclass(frozen=True)
class LeadChoice:
    key: str
    name: str  # as this person trusts the key, or as its files give it ('' none)
    trusted: bool  # this person trusts the key as that name
    others: int  # other keys whose files claim a name that looks like this one
    invited: bool  # the lead's invitation names this key

    @property
    def key_id(self) -> str:
        return key_id(self.key)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)


def lead_choices(
    files: list[SharedFile], trusted: dict[str, str], invited: str = ""
) -> list[LeadChoice]:
    """The keys that signed rules or confirmations in `files` (signed ones only)."""
    claimed: dict[str, str] = {}
    for file in files:
        if file.kind in ("policy", "confirmed") and file.verdict == "signed" and file.key:
            claimed.setdefault(file.key, names.one_line(file.author))
    shown = {key: trusted.get(key) or name for key, name in claimed.items()}
    choices = [
        LeadChoice(
            key=key,
            name=name,
            trusted=key in trusted,
            others=sum(1 for k, n in shown.items() if k != key and n and names.alike(n, name)),
            invited=matches(invited, key),
        )
        for key, name in shown.items()
    ]
    choices.sort(key=lambda c: (names.one_line(c.name).casefold(), c.key_id))
    return choices
