"""What the team service says in the status bar and in its problems, apart from the service
(library_service.py) so the words can be read, and tested, without a folder or Qt."""

from __future__ import annotations

from understudy_desktop.team.inbox import TeamView

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
