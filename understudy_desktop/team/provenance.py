"""Who a pack is from, in the words a person reads before importing it: signed by a named
author (and whether they trust that key), not signed, or changed after signing (refused)."""

from __future__ import annotations

from dataclasses import dataclass

from understudy_desktop.definition import Definition
from understudy_desktop.team import names
from understudy_desktop.team.signing import Checked, Verdict, fingerprint, key_id


@dataclass(frozen=True)
class Provenance:
    verdict: Verdict
    author: str
    key: str = ""  # the signer's key (hex), when signed
    trusted: bool = False  # this person trusts that key
    trusted_key_for_name: str = ""  # another key they trust under the same author name
    # From the team folder: the file's name and when it was shared; and, for an update, the
    # local tool it replaces with that tool's definition (to show old -> new).
    team_file: str = ""
    shared_as: str = ""  # the tool's name in the team folder
    created: str = ""
    update_of: str = ""
    old_definition: Definition | None = None  # None too where the old copy cannot be read
    named_in_file: str = ""  # the author the file names, when a trusted key signs another name

    @property
    def key_id(self) -> str:
        return key_id(self.key) if self.key else ""

    @property
    def new_key_for_known_name(self) -> bool:
        return self.verdict == "signed" and not self.trusted and bool(self.trusted_key_for_name)

    @property
    def asks_trust(self) -> bool:
        return self.verdict == "signed" and not self.trusted

    def warning(self) -> str:
        """The first thing shown when a known name arrives with a key this person does not
        trust for it; '' otherwise."""
        if not self.new_key_for_known_name:
            return ""
        name = self.author or "this author"
        return (
            f"⚠ Careful: this says it is from {name}, a name that looks like one you know, "
            f"but it was signed with a key you have not seen before (key {self.key_id}). The "
            f"key you trust for that name is {key_id(self.trusted_key_for_name)}. Someone "
            f"else may be using their name, or they may have a new computer. Ask {name} "
            "before you go on."
        )

    def signature_line(self) -> str:
        if self.verdict == "changed":
            return "Changed after signing: it cannot be used. Ask for it to be shared again."
        if self.verdict == "signed":
            line = f"Signed by {self.author or 'someone who gave no name'} (key {self.key_id})"
            if self.named_in_file:
                line += f"; the file calls its author “{self.named_in_file}”"
            return line
        if self.team_file:
            return (
                "Nobody signed this: anyone with access to the folder could have put it here. "
                "Accept it only if you know where it came from."
            )
        return (
            "Not signed: anyone could have made this file, under any name. Import it only if "
            "you know where it came from."
        )

    def trust_line(self) -> str:
        if not self.asks_trust or self.new_key_for_known_name:
            return ""
        return (
            f"This is the first time you get tools signed with this key. Importing also trusts "
            f"it as {self.author or 'this author'}'s: later tools signed with it will say they "
            "are from them. You can stop trusting it in Settings.\n"
            f"To be sure it is theirs, ask {self.author or 'them'} to read you their key's "
            f"fingerprint from Settings › You and compare: {fingerprint(self.key)}"
        )


def provenance_of(checked: Checked, author: str, trusted: dict[str, str]) -> Provenance:
    """`trusted`: key -> the name this person trusts it as."""
    if checked.verdict != "signed":
        return Provenance(checked.verdict, author)
    if checked.key in trusted:
        # A trusted key is shown under the name this person trusts it as.
        known = trusted[checked.key]
        renamed = author if author != known else ""
        return Provenance("signed", known, checked.key, True, named_in_file=renamed)
    # A name that looks like one this person trusts (whatever its letters) is that name.
    other = names.same_as_any(author, trusted)
    return Provenance("signed", author, checked.key, False, other)
