"""Drafts: tools proposed but not approved, kept by the shell.

An agent's draft is compiled here, from the recording the shell holds
(library/draft_compiler.py); a person's comes from the page's Make a tool. Either way the
shell keeps its own copy, re-checks it (library/checks.py), recomputes its annotations from
the catalogue, and makes sure it does what the recording it came from did. What the person
approves in the dialog is this copy, never whatever the page holds by then.
"""

from __future__ import annotations

import re
import secrets
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import Approved, ConstArg, Definition
from understudy_desktop.library.checks import (
    complete,
    definition_problems,
    follows_recording,
    follows_repair,
    parse_definition,
)
from understudy_desktop.library.model import MadeBy, definition_hash
from understudy_desktop.library.refs import Known, name_refs
from understudy_desktop.rules import rules

MAX_DRAFTS = 100


@dataclass
class Draft:
    id: str
    definition: Approved
    problems: list[str]
    by: MadeBy
    client: str = ""
    recording_id: str = ""
    warnings: list[str] = field(default_factory=list)
    replaces: str | None = None  # a repair: the tool it replaces

    @property
    def digest(self) -> str:
        return definition_hash(self.definition.stored())

    @property
    def name(self) -> str:
        return self.definition.name


def check_draft(
    raw: Any,
    catalogue: Catalogue,
    recording: dict[str, Any] | None,
    repair_of: tuple[Definition | None, int] | None = None,
    known: Known | None = None,
) -> tuple[Approved | None, list[str]]:
    """The definition as the shell would approve it, and every problem with it. With `known`
    (the saved queue's people and templates), names shown for them are the queue's."""
    parsed, problems = parse_definition(raw)
    if parsed is None:
        return None, problems
    if known is not None:
        parsed = name_refs(parsed, catalogue, known)
    problems = definition_problems(parsed, catalogue)
    if repair_of is not None:
        old, index = repair_of
        issue = follows_repair(parsed, old, index, recording or {}, catalogue)
    elif recording is not None:
        issue = follows_recording(parsed, recording)
    else:
        issue = "The tool was not made from a recording this app knows."
    if issue:
        problems.append(issue)
    return complete(parsed, catalogue), problems


def draft_problems(compiled: list[str], checked: list[str]) -> list[str]:
    """What blocks a compiled draft, said once: the compiler's words where it found anything
    (they are what Make a tool shows, and the draft is blocked either way), the shell's own
    checks' otherwise. Both at once said most things twice, in two phrasings."""
    return list(dict.fromkeys(compiled or checked))


def _literal(text: str) -> Callable[[re.Match[str]], str]:
    return lambda _match: text


def repaired_description(old: Definition, new: Approved, step: int) -> Approved:
    """The repaired tool with what agents read brought up to date: where the description
    names a fixed value of the re-done step (a person's or a template's name, a status), the
    value it has now is named instead. A description that would grow past its budget stays."""
    if not (0 <= step < len(old.steps) and step < len(new.steps)):
        return new
    text = new.description
    before, after = old.steps[step].args, new.steps[step].args
    for field_name, spec in before.items():
        now = after.get(field_name)
        if not isinstance(spec, ConstArg) or not isinstance(now, ConstArg):
            continue
        pairs = (
            (spec.ref.name if spec.ref else None, now.ref.name if now.ref else None),
            (spec.value, now.value),
        )
        for was, becomes in pairs:
            if isinstance(was, str) and isinstance(becomes, str) and len(was) >= 3:
                # A function, not a replacement string: a name is never read as a pattern.
                text = re.sub(rf"(?<!\w){re.escape(was)}(?!\w)", _literal(becomes), text)
    if text == new.description or len(text) > rules().budgets.description:
        return new
    return new.but(description=text)


def check_imported(
    raw: Any, catalogue: Catalogue, known: Known
) -> tuple[Approved | None, list[str]]:
    """A definition made from something the team already had (a helpdesk macro), not from a
    recording: checked the same way, and approved by the person the same way."""
    parsed, problems = parse_definition(raw)
    if parsed is None:
        return None, problems
    parsed = name_refs(parsed, catalogue, known)
    problems = definition_problems(parsed, catalogue)
    return complete(parsed, catalogue), problems


class Drafts:
    """The drafts of this session, by id (ids are random: a draft cannot be guessed)."""

    def __init__(self) -> None:
        self._drafts: OrderedDict[str, Draft] = OrderedDict()

    def add(
        self,
        definition: Approved,
        problems: list[str],
        by: MadeBy,
        client: str = "",
        recording_id: str = "",
        warnings: list[str] | None = None,
        replaces: str | None = None,
    ) -> Draft:
        draft_id = f"draft-{secrets.token_hex(4)}"
        draft = Draft(
            draft_id, definition, problems, by, client, recording_id, warnings or [], replaces
        )
        self._drafts[draft_id] = draft
        while len(self._drafts) > MAX_DRAFTS:
            self._drafts.popitem(last=False)
        return draft

    def get(self, draft_id: str) -> Draft | None:
        return self._drafts.get(draft_id)

    def forget(self, draft_id: str) -> None:
        self._drafts.pop(draft_id, None)
