"""What the team service says in the status bar and in its problems, apart from the service
(library_service.py) so the words can be read, and tested, without a folder or Qt."""

from __future__ import annotations

from understudy_desktop.library.model import shown_name
from understudy_desktop.rules import rules
from understudy_desktop.team.documents import Policy, when
from understudy_desktop.team.folder import SharedFile
from understudy_desktop.team.freshness import Freshness
from understudy_desktop.team.inbox import TeamView
from understudy_desktop.team.names import one_line
from understudy_desktop.team.signing import key_id
from understudy_desktop.text import count_of

LINK_WORDS = (
    "The team folder has a link where Understudy keeps its files, so nothing was written: a "
    "link could send it to another folder of this computer. Ask whoever looks after the "
    "folder to remove the link."
)
UNREACHABLE = (
    "Team library: the folder is not reachable just now. Your tools work as usual; "
    "Understudy checks again by itself."
)


def offered_words(view: TeamView) -> str:
    """What the status bar says. Only tools signed by people this person trusts are "from
    your team"; signed by a key they do not trust yet is said apart; unsigned ones are not
    counted (the team window lists them, with their warning)."""
    new = sum(1 for t in view.new_from_team if t.state == "new")
    updates = sum(1 for t in view.new_from_team if t.state == "update")
    strangers = sum(1 for t in view.tools if t.state == "untrusted")
    parts = []
    if new:
        parts.append(f"{new} new tool{'s' if new != 1 else ''}")
    if updates:
        parts.append(f"{updates} update{'s' if updates != 1 else ''}")
    words = " and ".join(parts) + " from your team" if parts else ""
    if strangers:
        theirs = (
            f"{strangers} new tool{'s' if strangers != 1 else ''} from someone you do not trust yet"
        )
        words = f"{words}; {theirs}" if words else theirs
    return words


# --- the lead's word, confirmed or not (team/freshness.py) ------------------------------------
def ago(seconds: float) -> str:
    """How long ago, in the largest whole unit: "3 days ago", "5 hours ago"."""
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"{count} {unit}{'s' if count != 1 else ''} ago"
    return "a moment ago"


def _lead(fresh: Freshness) -> str:
    return f"your team lead {one_line(fresh.by)}" if fresh.by else "your team lead"


def unconfirmed_reason(fresh: Freshness, now: float) -> str:
    """Why the lead's word is not proven here, as the end of a sentence ('' when it is)."""
    if fresh.state == "never":
        return f"{_lead(fresh)} has not confirmed the team's rules on this computer yet"
    if fresh.state == "expired":
        confirmed = when(fresh.confirmed_at).timestamp()
        by = one_line(fresh.by) or "your team lead"
        return f"your team's rules were last confirmed by {by} {ago(max(0.0, now - confirmed))}"
    if fresh.state == "missing":
        what = _missing_words(fresh)
        return f"{_lead(fresh)} confirmed {what} that {_have_not(fresh)} reached this computer"
    return ""


def _missing_words(fresh: Freshness) -> str:
    parts = ["newer rules"] if fresh.missing_rules else []
    if fresh.missing_other:
        parts.append(count_of(fresh.missing_other, "other file"))
    return " and ".join(parts)


def _have_not(fresh: Freshness) -> str:
    return "have not" if fresh.missing_rules or fresh.missing_other != 1 else "has not"


def freshness_status(fresh: Freshness, now: float) -> str:
    """The status bar's words while the lead's word is not proven here ('' when it is): short,
    since the status bar shares its line (the team window says the rest)."""
    by = one_line(fresh.by) or "your team lead"
    if fresh.state == "never":
        said = f"rules not confirmed by {by} yet"
    elif fresh.state == "expired":
        confirmed = when(fresh.confirmed_at).timestamp()
        said = f"rules last confirmed by {by} {ago(max(0.0, now - confirmed))}"
    elif fresh.state == "missing":
        said = f"{by}'s newer rules have not arrived"
    else:
        return ""
    after = "team tools are paused" if fresh.paused else "team tools still run"
    return f"Team library: {said}; {after}"


def freshness_notice(fresh: Freshness, now: float) -> str:
    """What the person is told when the lead's word stops being proven here."""
    reason = unconfirmed_reason(fresh, now)
    sentence = f"{reason[:1].upper()}{reason[1:]}."
    cause = (
        " Something may be keeping the lead's newest rules from your copy of the team folder "
        "(a colleague's copy it syncs through, or the lead's computer being off for a while)."
    )
    if fresh.paused:
        after = (
            " As your team lead asked, team tools are paused until the rules are confirmed "
            "again; agents are told why. Ask your team lead, or whoever looks after the folder."
        )
    else:
        after = (
            " Team tools keep running, as your team lead chose; agents are told the rules are "
            "not confirmed. Ask your team lead, or whoever looks after the folder."
        )
    return sentence + cause + after


_KIND_WORDS = {
    "policy": "the team's rules",
    "withdrawn": "a withdrawal",
    "keys": "a note of your new key",
    "reviews": "a review",
    "confirmed": "a confirmation of the team's rules",
}


def restored_words(files: list[SharedFile]) -> str:
    """Some of this person's own files, in words: "the team's rules (number 7)"."""
    if len(files) == 1:
        file = files[0]
        number = getattr(file.info, "sequence", 0) if file.kind == "policy" else 0
        return _KIND_WORDS.get(file.kind, "a file") + (f" (number {number})" if number else "")
    kinds = sorted({_KIND_WORDS.get(f.kind, "a file") for f in files})
    return f"{len(files)} of your files ({', '.join(kinds)})"


def rules_summary(policy: Policy, names: dict[str, str], lead: str) -> str:
    """The team's rules in words, for a lead asked to sign another lead's version."""

    def who(key: str) -> str:
        return one_line(names.get(key, "")) or f"key {key_id(key)}"

    share = (
        "anyone with access to the folder"
        if policy.publishers is None
        else ", ".join(sorted(who(k) for k in policy.publishers)) or "nobody"
    )
    off = ", ".join(sorted(shown_name(t.tool) for t in policy.turnedOff)) or "nothing"
    leads = [who(lead), *(who(k) for k in policy.coLeads)]
    lasts = rules().teamFreshness.lifetime(policy.confirmFor)
    meanwhile = "team tools pause" if policy.whenUnconfirmed == "pause" else "tools run on"
    parts = [
        f"Who may share tools: {share}.",
        f"A second review: {'yes' if policy.secondReview else 'no'}.",
        f"Turned off for the team: {off}.",
        f"Keys revoked: {len(policy.revokedKeys)}.",
        f"Leads: {', '.join(leads)}; a change needs {policy.threshold} of their signatures.",
        f"Not confirmed after {_duration(lasts)}: {meanwhile}.",
    ]
    return " ".join(parts)


def _duration(seconds: int) -> str:
    for unit, size in (("day", 86400), ("hour", 3600), ("minute", 60)):
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {unit}{'s' if count != 1 else ''}"
    return f"{seconds} seconds"
