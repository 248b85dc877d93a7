"""The people and reply templates a tool names, by a name a person knows as well as by id.

On a draft, a name is taken from the saved queue whenever the id is on it (name_refs): what
the approval dialog says ("Assign to Priya Raman") is what the shell knows, not what the page
claimed. Before a pack is imported, what this queue lacks is mapped by the person ("Priya
Raman → choose someone on your queue") and the tools are rewritten to what they chose, so they
run here from the start.

Matching is the runner's (web_assets/js/teach/runner.js resolveRef): by id, else by name,
ignoring case. A reference left unmapped is kept by its name; a run then stops and says who
is missing, as it would for any tool whose person has left the queue.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import Approved, Arg, ConstArg, Definition, Ref, Step

NO_ONE = (None, "", "__unassigned__")  # a fixed "nobody": nothing to name or map
KIND_WORDS = {"person": "someone", "template": "a reply template"}


@dataclass(frozen=True)
class Reference:
    kind: str  # "person" or "template"
    name: str  # as the tool keeps it (the name it was taught with, else its id)

    @property
    def key(self) -> tuple[str, str]:
        return (self.kind, self.name.casefold())


def _fixed_in(step: Step, catalogue: Catalogue) -> Iterator[tuple[str, ConstArg, str]]:
    """(field, fixed value, kind) for each fixed person or template of one step (a fixed "no
    one" is neither)."""
    info = catalogue.commands.get(step.command)
    if info is None:
        return
    for field, spec in step.args.items():
        kind = info.refs.get(field)
        if kind and isinstance(spec, ConstArg) and spec.value not in NO_ONE:
            yield field, spec, kind


def _fixed_refs(definition: Definition, catalogue: Catalogue) -> list[tuple[ConstArg, str]]:
    """(fixed value, kind) for every fixed person or template in the tool's steps."""
    return [(spec, kind) for s in definition.steps for _f, spec, kind in _fixed_in(s, catalogue)]


def _name_of(spec: ConstArg) -> str:
    return spec.ref.name if spec.ref is not None else str(spec.value)


def _matches(spec: ConstArg, items: list[dict[str, str]]) -> bool:
    value = str(spec.value)
    wanted = _name_of(spec).casefold()
    return any(i["id"] == value or i["name"].casefold() == wanted for i in items)


Known = dict[str, list[dict[str, str]]]  # "person"/"template" -> [{"id", "name"}]


def _with_refs(
    definition: Definition, catalogue: Catalogue, change: Callable[[ConstArg, str], Arg | None]
) -> list[Step]:
    """The steps with each fixed person or template (not "no one") replaced by what
    change(value, kind) gives, where it gives something; the models are not changed in place."""
    steps: list[Step] = []
    for step in definition.steps:
        args = dict(step.args)
        for field, spec, kind in _fixed_in(step, catalogue):
            changed = change(spec, kind)
            if changed is not None:
                args[field] = changed
        steps.append(step.model_copy(update={"args": args}))
    return steps


def _ref(kind: str, item: dict[str, str]) -> Ref:
    return Ref.model_validate({"kind": kind, "name": item["name"] or item["id"]})


def name_refs(definition: Definition, catalogue: Catalogue, known: Known) -> Definition:
    """The definition with each fixed person or template whose id is on the saved queue
    given that queue's name for it. Others keep the name they carry (resolved by name at run
    time)."""

    def named(spec: ConstArg, kind: str) -> ConstArg | None:
        hit = next((i for i in known.get(kind, []) if i["id"] == str(spec.value)), None)
        return spec.model_copy(update={"ref": _ref(kind, hit)}) if hit is not None else None

    return definition.model_copy(update={"steps": _with_refs(definition, catalogue, named)})


def missing_references(
    definitions: Sequence[Definition], catalogue: Catalogue, known: Known
) -> list[Reference]:
    """The people and templates the tools name that this queue does not have, each once."""
    seen: dict[tuple[str, str], Reference] = {}
    for definition in definitions:
        for spec, kind in _fixed_refs(definition, catalogue):
            if not _matches(spec, known.get(kind, [])):
                ref = Reference(kind, _name_of(spec))
                seen.setdefault(ref.key, ref)
    return list(seen.values())


def apply_mapping(
    definitions: Sequence[Approved],
    catalogue: Catalogue,
    mapping: dict[tuple[str, str], dict[str, str]],
) -> list[Approved]:
    """The tools with each mapped reference pointing at the chosen person or template ({"id",
    "name"}); unmapped ones as they were (the models are not changed in place)."""

    def mapped(spec: ConstArg, kind: str) -> ConstArg | None:
        chosen = mapping.get(Reference(kind, _name_of(spec)).key)
        if chosen is None:
            return None
        return spec.model_copy(update={"value": chosen["id"], "ref": _ref(kind, chosen)})

    return [d.but(steps=_with_refs(d, catalogue, mapped)) for d in definitions]
