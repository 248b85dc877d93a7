"""What importing a pack adds to the library, decided without a window: the tools (clashes
renamed or replacing the person's, breaking drift held back), their people and templates named
as this queue names them, and whether they fit under the cap on active tools. The flow that
shows the preview and asks is shell/pack_actions.py."""

from __future__ import annotations

from pathlib import Path

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import Approved
from understudy_desktop.library.library import new_tool
from understudy_desktop.library.model import Origin, TaughtTool
from understudy_desktop.library.refs import Known, name_refs
from understudy_desktop.packs.export import PACK_SUFFIX
from understudy_desktop.packs.importer import ImportPlan, renamed
from understudy_desktop.rules import rules
from understudy_desktop.text import count_of, file_name_words


def looks_like_pack(path: Path) -> bool:
    if path.name.endswith(PACK_SUFFIX):
        return True
    try:
        head = path.open("rb").read(4096)
    except OSError:
        return False
    return b'"packVersion"' in head


def tools_to_import(
    plan: ImportPlan,
    existing: set[str],
    replace: bool,
    filename: str,
    definitions: list[Approved] | None = None,
    origin: Origin | None = None,
) -> tuple[list[TaughtTool], list[str]]:
    """The tools an import adds (clashes renamed, or replacing the person's), and the names
    it replaces. Tools whose commands changed in a breaking way arrive held back.
    `definitions` are the plan's with people and templates mapped to this queue."""
    taken = set(existing) | {d.name for d in plan.definitions}
    replacing: list[str] = []
    tools: list[TaughtTool] = []
    # The name is stored with the tool: one that is not UTF-8 on disk is kept readable.
    origin = origin or Origin(by="pack", pack=file_name_words(filename), author=plan.author)
    for definition in definitions if definitions is not None else plan.definitions:
        original = definition.name
        if original in plan.clashes:
            if replace:
                replacing.append(original)
            else:
                definition = definition.but(name=renamed(original, taken))
                taken.add(definition.name)
        tool = new_tool(definition, origin)
        reason = plan.hold_back.get(original)
        if reason:
            tool = tool.but(status="needs_review", review_reason=reason)
        tools.append(tool)
    return tools, replacing


def named_here(definitions: list[Approved], catalogue: Catalogue, known: Known) -> list[Approved]:
    """People and templates this queue has, named as it names them (what the preview shows is
    what a run will find)."""
    return [d.but(steps=name_refs(d, catalogue, known).steps) for d in definitions]


def over_cap(plan: ImportPlan, active: int) -> str:
    """Why the import does not fit beside `active` tools, or '' when it does (a tool held back
    arrives turned off and does not count)."""
    cap = rules().maxTaughtTools
    adding = sum(1 for d in plan.definitions if d.name not in plan.hold_back)
    if active + adding <= cap:
        return ""
    return (
        f"Importing {count_of(adding, 'more tool')} would go over {cap} active tools. Turn off or "
        "revoke some first."
    )
