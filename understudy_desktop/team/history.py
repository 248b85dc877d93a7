"""The team's history (View › Team library › History…): who shared, accepted, withdrew, moved
to a new key and set the rules, from what signatures prove and nothing more.

A signature proves which key signed, not who held it. So a line names a person only while
their key was theirs alone as far as this app can tell: a key its owner handed over, or the
lead revoked, may have been copied, and what it signed after this app learnt of that is said
as "someone with Bob Lee's old key", never as Bob (nor as "You" in Bob's own history). A
hand-over is a line only when the new key countersigned it; one handed over twice says so.
Every line is dated no later than when this app first saw its file, so a date in the future
cannot put a line on top. Pure, like the inbox it is part of."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from understudy_desktop.library.model import shown_name
from understudy_desktop.team.documents import KeyHandover, Policy, Review, countersigned, when
from understudy_desktop.team.folder import FolderScan, SharedFile
from understudy_desktop.team.names import one_line
from understudy_desktop.team.signing import key_id


@dataclass(frozen=True)
class AuditLine:
    when: str
    who: str  # the signer, as far as signatures prove it
    key: str
    what: str  # in words
    file: str = ""  # the file it comes from (its name)


@dataclass(frozen=True)
class Signers:
    """What the rest of the view worked out about keys, that the history's words depend on."""

    names: dict[str, str]  # key -> the name this person trusts it as
    me: frozenset[str]  # this person's keys, current and former
    lead_revoked: frozenset[str]  # keys the lead revoked
    handed: dict[str, str]  # a key -> the one key it was handed over to
    contested: dict[str, set[str]]  # a key handed over to two or more keys
    leads: frozenset[str] = frozenset()  # the lead's keys, earlier ones too (none followed)


def replaced_at(
    scan: FolderScan, lead_revoked: frozenset[str], chain: list[str]
) -> dict[str, float]:
    """Each key handed over or revoked -> when this app first saw that (0: not known). What it
    signed from then on proves nothing about its owner."""
    out: dict[str, float] = {}

    def note(key: str, seen: float) -> None:
        out[key] = min(out.get(key, seen), seen) if seen else out.get(key, 0.0)

    for file in scan.files:
        if file.verdict != "signed":
            continue
        info = file.info
        if (
            file.kind == "keys"
            and isinstance(info, KeyHandover)
            and info.authorKey == file.key
            and countersigned(info)
        ):
            note(file.key, file.seen)
        elif file.kind == "policy" and isinstance(info, Policy) and file.key in chain:
            for key in set(info.revokedKeys) & lead_revoked:
                note(key, file.seen)
    return out


def history(scan: FolderScan, s: Signers, replaced: dict[str, float]) -> list[AuditLine]:
    """Who shared, accepted, withdrew, moved keys and set the rules, newest first."""
    lines: list[AuditLine] = []

    def known(key: str, file: SharedFile) -> str:
        return s.names.get(key) or one_line(file.author) or "someone"

    def who(file: SharedFile) -> str:
        # The hand-over that settled where a key went is its owner's act (the new key
        # countersigned it, and nothing disputes it); anything else a replaced key signed
        # after this app learnt it was replaced is only the key's.
        key = file.key
        since = replaced.get(key)
        settled = (
            file.kind == "keys"
            and isinstance(file.info, KeyHandover)
            and s.handed.get(key) == file.info.newKey
        )
        if since is not None and not settled and not (file.seen and since and file.seen < since):
            # Signed with a key that was handed over or revoked, and not seen here before
            # that: whoever held the key, not proven to be its owner.
            if key in s.me:
                return "Someone with your old key"
            kind = "revoked" if key in s.lead_revoked else "old"
            return f"Someone with {known(key, file)}'s {kind} key"
        if key in s.me:
            return "You"
        if key in s.names:
            return s.names[key]
        return f"{known(key, file)} (not trusted by you)"

    for file in scan.files:
        if file.verdict != "signed":
            continue
        info = file.info
        line = _what(file, info, s)
        if line:
            lines.append(AuditLine(file.created, who(file), file.key, line, file.name))
    seen = {f.name: f.seen for f in scan.files}
    dated = [dataclasses.replace(line, when=_no_later(line, seen)) for line in lines]
    dated.sort(key=lambda line: when(line.when), reverse=True)
    return dated


def _tool_words(file: SharedFile, name: str) -> str:
    return f"“{shown_name(name, file.title)}”"


def _what(file: SharedFile, info: object, s: Signers) -> str:
    """What one signed file says happened, in words ('' when it proves nothing to show)."""
    if file.kind == "tools" and file.tool:
        version = f" (version {file.version})" if file.version else ""
        return f"shared {_tool_words(file, file.tool)}{version}"
    if file.kind == "withdrawn" and file.tool:
        return f"withdrew {_tool_words(file, file.tool)}"
    if file.kind == "reviews" and isinstance(info, Review):
        by = "you" if info.sharedBy in s.me else s.names.get(info.sharedBy)
        return (
            f"accepted {_tool_words(file, info.tool)} from {by or 'key ' + key_id(info.sharedBy)}"
        )
    if file.kind == "keys" and isinstance(info, KeyHandover):
        if info.authorKey != file.key or not countersigned(info) or file.key in s.lead_revoked:
            return ""  # the new key never agreed, or the old one counts for nothing
        new = key_id(info.newKey)
        if info.newKey in s.lead_revoked:
            return f"handed a key over to a key your team lead revoked ({new})"
        if file.key in s.contested:
            return (
                f"handed a key over to key {new}; it was handed over to another key too, so "
                "one of them is not its owner's"
            )
        return f"moved to a new key ({new})"
    if file.kind == "policy" and isinstance(info, Policy):
        off = ", ".join(sorted(shown_name(t.tool) for t in info.turnedOff)) or "nothing"
        lead = "" if not s.leads or file.key in s.leads else ", not as your team lead"
        return (
            f"set the team's rules (number {info.sequence}{lead}); turned off for the team: {off}"
        )
    return ""


def _no_later(line: AuditLine, seen: dict[str, float]) -> str:
    limit = datetime.fromtimestamp(seen.get(line.file, 0.0) or time.time(), UTC)
    return line.when if when(line.when) <= limit else limit.strftime("%Y-%m-%dT%H:%M:%SZ")
