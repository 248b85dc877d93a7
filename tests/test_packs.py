"""Tool Packs without the app: the format, export stripping, and every refusal."""

from __future__ import annotations

import contextlib
import json
import subprocess
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from understudy_desktop.catalogue import Catalogue
from understudy_desktop.definition import Definition
from understudy_desktop.library.checks import complete
from understudy_desktop.library.library import new_tool
from understudy_desktop.library.model import Origin, definition_hash
from understudy_desktop.packs.adding import over_cap, tools_to_import
from understudy_desktop.packs.export import ExportError, build_pack, definitions_of, pack_bytes
from understudy_desktop.packs.importer import (
    MAX_PACK_BYTES,
    ImportPlan,
    PackError,
    parse_pack,
    plan_import,
    read_pack_bytes,
    renamed,
)
from understudy_desktop.paths import web_assets_dir
from understudy_desktop.rules import rules

PACKS = Path(__file__).parent / "fixtures" / "packs"
BAD = sorted((PACKS / "bad").glob("*.json"))


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    """The page's real catalogue, described by its own module under node (no copy kept here)."""
    script = (
        "import('./js/catalogue.js').then((m) => "
        "process.stdout.write(JSON.stringify(m.describeCatalogue())))"
    )
    out = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        cwd=web_assets_dir(),
        capture_output=True,
        text=True,
        check=True,
    )
    return Catalogue.from_data(json.loads(out.stdout))


def load(path: Path, catalogue: Catalogue, existing=frozenset()):
    pack = parse_pack(read_pack_bytes(path), path.name)
    return plan_import(pack, path.name, catalogue, set(existing))


def test_the_corpus_has_at_least_25_bad_packs():
    assert len(BAD) >= 25


def test_the_good_pack_imports(catalogue):
    plan = load(PACKS / "good.understudy-pack.json", catalogue)
    assert [d.name for d in plan.definitions] == ["assign_refund"]
    assert plan.definitions[0].annotations == {
        "readOnlyHint": False,
        "untrustedContentHint": False,
    }


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_every_bad_pack_is_refused_in_plain_words(path, catalogue):
    with pytest.raises(PackError) as refused:
        load(path, catalogue)
    message = str(refused.value)
    assert path.name in message or "not" in message
    assert "Traceback" not in message and len(message) < 2000


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big.understudy-pack.json"
    big.write_bytes(b" " * (MAX_PACK_BYTES + 1))
    with pytest.raises(PackError, match="at most 2 MB"):
        read_pack_bytes(big)


def test_annotations_in_the_file_are_ignored_and_recomputed(catalogue):
    pack = json.loads((PACKS / "good.understudy-pack.json").read_text())
    pack["tools"][0]["annotations"] = {"readOnlyHint": True, "untrustedContentHint": False}
    plan = plan_import(
        parse_pack(json.dumps(pack).encode(), "claims.json"), "claims.json", catalogue, set()
    )
    assert plan.definitions[0].annotations["readOnlyHint"] is False  # it assigns tickets


def test_clashing_names_are_reported_and_can_be_renamed(catalogue):
    plan = load(PACKS / "good.understudy-pack.json", catalogue, {"assign_refund"})
    assert plan.clashes == ["assign_refund"]
    assert renamed("assign_refund", {"assign_refund", "assign_refund_2"}) == "assign_refund_3"
    assert len(renamed("x" * 30, {"x" * 30})) == 30


def definition_with_examples():
    return {
        "name": "assign_refund",
        "title": "",
        "description": "Assign a refund ticket to Priya and fill the refund reply.",
        "inputSchema": {
            "type": "object",
            "properties": {
                "ticket_id": {"type": "string", "description": "The ticket.", "default": "T-1006"},
                "note": {
                    "type": "string",
                    "description": "A note.",
                    "default": "Derek Hollis said: charged three times",
                },
            },
            "required": [],
            "additionalProperties": False,
        },
        "annotations": {"readOnlyHint": False, "untrustedContentHint": False},
        "steps": [
            {
                "command": "select_ticket",
                "args": {"ticket_id": {"from": "param", "name": "ticket_id"}},
            },
            {
                "command": "apply_template",
                "args": {
                    "ticket_id": {"from": "step", "step": 0, "path": "ticket_id"},
                    "template_id": {"from": "const", "value": "refund_approved"},
                },
            },
        ],
    }


def test_export_leaves_out_example_values_and_keeps_the_routine(catalogue):
    tool = Definition.of(definition_with_examples())
    data = pack_bytes(build_pack([tool], catalogue, "priya"))
    assert b"T-1006" not in data
    assert b"Derek" not in data
    assert b"refund_approved" in data  # a fixed value of the routine stays
    pack = json.loads(data)
    assert pack["requiredCommandIds"] == ["apply_template", "select_ticket"]
    assert plan_import(parse_pack(data, "x.json"), "x.json", catalogue, set()).definitions


def test_export_refuses_a_tool_frozen_on_one_ticket(catalogue):
    frozen = definition_with_examples()
    frozen["steps"][0]["args"]["ticket_id"] = {"from": "const", "value": "T-1006"}
    with pytest.raises(ExportError, match="Make the ticket a parameter"):
        build_pack([Definition.of(frozen)], catalogue, "priya")


def test_export_reads_each_tool_as_the_library_runs_it(catalogue):
    """What goes into a pack is the tool's typed definition, so a stored copy that no longer
    reads as a tool (edited outside the app) is refused by name, and nothing is built."""
    approved = complete(Definition.of(definition_with_examples()), catalogue)
    good = new_tool(approved, Origin(by="person"))
    assert definitions_of([good]) == [good.parsed]
    broken_form = {**good.definition, "steps": [{"command": "get_ticket", "args": "all"}]}
    broken = good.but(name="edited_by_hand", definition=broken_form)
    with pytest.raises(ExportError) as refused:
        build_pack(definitions_of([good, broken]), catalogue, "priya")
    assert str(refused.value) == (
        "“Edited by hand” cannot be read: it was changed outside Understudy. "
        "Revoke it, or teach it again, before sharing it."
    )
    # The pack's steps are the model's file form: the same as the stored steps.
    pack = build_pack(definitions_of([good]), catalogue, "priya")
    assert pack["tools"][0]["steps"] == good.definition["steps"]


def test_a_draft_approves_exactly_what_the_library_then_stores(catalogue):
    approved = complete(Definition.of(definition_with_examples()), catalogue)
    tool = new_tool(approved, Origin(by="person"))
    assert tool.definition == approved.stored()
    assert tool.digest == definition_hash(approved.stored()) and tool.intact
    # What the hash covers does not include what the tool was graded on.
    regraded = approved.but(catalogueVersion=approved.catalogueVersion + 1)
    assert definition_hash(regraded.stored()) == tool.digest
    assert definition_hash(approved.but(description="Other.").stored()) != tool.digest


def test_an_import_renames_or_replaces_a_clash_and_holds_back_what_drifted(catalogue):
    approved = complete(Definition.of(definition_with_examples()), catalogue)
    other = approved.but(name="other_tool")
    plan = ImportPlan(
        definitions=[approved, other],
        clashes=[approved.name],
        author="Priya",
        hold_back={"other_tool": "the console changed under it"},
    )
    existing = {approved.name, f"{approved.name}_2"}
    tools, replacing = tools_to_import(plan, existing, False, "x.understudy-pack.json")
    assert [t.name for t in tools] == [f"{approved.name}_3", "other_tool"] and replacing == []
    assert [t.status for t in tools] == ["active", "needs_review"]
    assert tools[1].review_reason == "the console changed under it"
    assert tools[0].origin == Origin(by="pack", pack="x.understudy-pack.json", author="Priya")
    # The renamed copy is the approved definition under its new name, approved as such.
    assert tools[0].definition == {**approved.stored(), "name": f"{approved.name}_3"}
    assert tools[0].intact
    tools, replacing = tools_to_import(plan, existing, True, "x.understudy-pack.json")
    assert [t.name for t in tools] == [approved.name, "other_tool"]
    assert replacing == [approved.name]


def test_a_pack_whose_file_name_is_not_utf8_is_kept_with_a_readable_name(catalogue, tmp_path):
    """Python hands such a name over with lone surrogates, which SQLite refuses ("the
    database refused the change"): the tool keeps the name readable, odd bytes shown."""
    import json
    import os

    approved = complete(Definition.of(definition_with_examples()), catalogue)
    plan = ImportPlan(definitions=[approved], clashes=[], author="Priya", hold_back={})
    odd = os.fsdecode(b"caf\xe9-tools.understudy-pack.json")
    [tool], _ = tools_to_import(plan, set(), False, odd)
    assert tool.origin.pack == "caf\ufffd-tools.understudy-pack.json"
    json.dumps(tool.origin.pack, ensure_ascii=False).encode("utf-8")  # storable as it is


def test_an_import_that_would_go_over_the_cap_says_so_and_a_held_tool_does_not_count(catalogue):
    cap = rules().maxTaughtTools
    approved = complete(Definition.of(definition_with_examples()), catalogue)
    two = ImportPlan(definitions=[approved, approved.but(name="second")])
    assert over_cap(two, cap - 2) == ""
    assert over_cap(two, cap - 1) == (
        f"Importing 2 more tools would go over {cap} active tools. Turn off or revoke some first."
    )
    two.hold_back["second"] = "changed"
    assert over_cap(two, cap - 1) == ""


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=5)
    ),
    max_leaves=30,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    tools=st.lists(
        st.dictionaries(
            st.sampled_from(
                ["name", "description", "inputSchema", "steps", "title", "annotations"]
            ),
            json_values,
            max_size=6,
        ),
        min_size=1,
        max_size=3,
    ),
    ids=st.lists(st.text(max_size=10), max_size=3),
)
def test_fuzzed_packs_are_refused_or_accepted_but_never_crash(tools, ids, catalogue):
    pack = {
        "packVersion": 1,
        "app": {"name": "x", "version": "1"},
        "catalogueVersion": 1,
        "requiredCommandIds": ids,
        "author": "",
        "created": "2026-11-30T10:00:00Z",
        "tools": tools,
    }
    with contextlib.suppress(PackError):  # refusing is fine; any other exception is a bug
        plan_import(
            parse_pack(json.dumps(pack).encode(), "fuzz.json"), "fuzz.json", catalogue, set()
        )


def test_the_page_and_the_shell_read_one_catalogue(catalogue):
    from understudy_desktop.catalogue import current_catalogue

    assert catalogue == current_catalogue()


@pytest.mark.parametrize("document", [{}, {"tools": []}, {"packVersion": None}])
def test_a_json_file_that_is_no_pack_is_not_called_a_pack_of_version_none(document):
    with pytest.raises(PackError) as refused:
        parse_pack(json.dumps(document).encode(), "notes.json")
    assert str(refused.value) == "notes.json is JSON but not a Tool Pack."


def test_counts_have_their_nouns_right():
    from understudy_desktop.text import count_of

    assert [count_of(n, "tool") for n in (0, 1, 2, 7600)] == [
        "0 tools",
        "1 tool",
        "2 tools",
        "7,600 tools",
    ]
