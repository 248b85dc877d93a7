"""The team library without Qt: signatures on shared files, the team folder, what a scan means
for one person (inbox), the words shown before an import (provenance), and the signing key."""

from __future__ import annotations

import copy
import json
import os
import re
import stat
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from understudy_desktop.packs.importer import PackError, parse_pack
from understudy_desktop.team import documents, folder, inbox, keys, provenance, signing
from understudy_desktop.team.folder import FolderReader, FolderScan, SharedFile

GOOD = Path(__file__).parent / "fixtures" / "packs" / "good.understudy-pack.json"
PACK: dict[str, Any] = json.loads(GOOD.read_bytes())

# Fixed keys, so that every run signs the very same bytes.
KEY_A = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
KEY_B = Ed25519PrivateKey.from_private_bytes(bytes(range(32, 64)))
KEY_C = Ed25519PrivateKey.from_private_bytes(bytes(range(64, 96)))
PUB_A, PUB_B, PUB_C = (signing.public_hex(k) for k in (KEY_A, KEY_B, KEY_C))

SIGNED = signing.sign(PACK, KEY_A)
KEY_ID = re.compile(r"^[0-9A-F]{4}( [0-9A-F]{4}){3}$")
FINGERPRINT = re.compile(r"^[0-9A-F]{4}( [0-9A-F]{4}){15}$")
FUZZ = settings(
    max_examples=2000,
    deadline=None,
    database=None,  # nothing written into the work tree
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


def pack_doc(
    name: str = "assign_refund",
    author: str = "Priya",
    created: str = "2026-12-01T10:00:00Z",
) -> dict[str, Any]:
    doc = copy.deepcopy(PACK)
    doc["author"] = author
    doc["created"] = created
    doc["tools"][0]["name"] = name
    return doc


def signed_pack(key: Ed25519PrivateKey = KEY_A, **kwargs: str) -> bytes:
    return signing.sign(pack_doc(**kwargs), key)


def withdrawal(key: Ed25519PrivateKey, tool: str, created: str, author: str = "Priya") -> bytes:
    doc = documents.withdrawal_document(author, tool)
    doc["created"] = created
    return signing.sign(doc, key)


def usage(key: Ed25519PrivateKey, created: str, counts: list[dict[str, Any]]) -> bytes:
    doc = documents.usage_document("someone", counts)
    doc["created"] = created
    return signing.sign(doc, key)


def shared(kind: folder.Kind, data: bytes) -> SharedFile:
    return folder.read_file(kind, folder.content_name(data, kind), data)


def scan_of(*files: SharedFile) -> FolderScan:
    return FolderScan(Path("team"), reachable=True, files=list(files))


def view_of(
    *files: SharedFile,
    mine: str = PUB_C,
    trusted: dict[str, str] | None = None,
    installed: list[inbox.Installed] | None = None,
    declined: set[str] | None = None,
    **more: Any,
) -> inbox.TeamView:
    return inbox.team_view(
        scan_of(*files),
        inbox.Decisions(
            mine=mine,
            trusted=trusted or {},
            installed=tuple(installed or []),
            declined=frozenset(declined or set()),
            **more,
        ),
    )


def only_tool(view: inbox.TeamView) -> inbox.TeamTool:
    assert view.reachable
    assert len(view.tools) == 1, view.tools
    return view.tools[0]


# --- signing: every byte counts ---------------------------------------------------------------


def test_signed_pack_verifies_with_its_key():
    checked = signing.check(SIGNED)
    assert checked.verdict == "signed"
    assert checked.key == PUB_A
    assert KEY_ID.match(checked.key_id), checked.key_id
    assert checked.key_id == signing.key_id(PUB_A)
    assert checked.key_id != signing.key_id(PUB_B)
    assert checked.document is not None
    assert checked.document["authorKey"] == PUB_A
    assert re.fullmatch(r"[0-9a-f]{128}", checked.document["signature"])
    assert {k: v for k, v in checked.document.items() if k not in ("authorKey", "signature")} == (
        PACK
    )
    # The file is stored in exactly its canonical form.
    assert signing.canonical(checked.document) == SIGNED
    # Signing is deterministic (Ed25519) and the same document signs to the same bytes.
    assert signing.sign(PACK, KEY_A) == SIGNED


def test_importer_accepts_a_signed_pack():
    pack = parse_pack(SIGNED, "signed.understudy-pack.json")
    assert pack["authorKey"] == PUB_A
    assert pack["signature"] == json.loads(SIGNED)["signature"]
    assert [t["name"] for t in pack["tools"]] == ["assign_refund"]


def test_key_id_is_four_groups_and_the_fingerprint_sixteen():
    for public in (PUB_A, PUB_B, PUB_C):
        assert KEY_ID.match(signing.key_id(public))
        assert FINGERPRINT.match(signing.fingerprint(public))
        # The short id is the start of the fingerprint: one is a part of the other.
        assert signing.fingerprint(public).startswith(signing.key_id(public))
    assert len({signing.key_id(p) for p in (PUB_A, PUB_B, PUB_C)}) == 3
    assert signing.Checked("unsigned", None).key_id == ""


def _swapcase(byte: int) -> int:
    return bytes([byte]).swapcase()[0]


# A replacement byte: any other value (as a nonzero step), or the same letter in the other case
# (the one single-byte change that could keep the meaning: hex written in capitals).
REPLACEMENT = st.one_of(st.integers(1, 255), st.just("swapcase"))


@FUZZ
@given(position=st.integers(0, len(SIGNED) - 1), how=REPLACEMENT)
def test_no_single_byte_can_change_and_still_verify(position, how):
    changed = bytearray(SIGNED)
    if how == "swapcase":
        changed[position] = _swapcase(changed[position])
    else:
        changed[position] = (changed[position] + how) % 256
    if changed[position] == SIGNED[position]:
        return  # not a letter: swapping its case changes nothing
    assert signing.check(bytes(changed)).verdict != "signed"


def test_no_letter_can_change_case_and_still_verify():
    """Exhaustively, the case of every letter of the file (the hex of the key and signature
    among them)."""
    letters = [i for i, b in enumerate(SIGNED) if _swapcase(b) != b]
    assert len(letters) > 192  # at least the hex of the key and signature
    for position in letters:
        changed = bytearray(SIGNED)
        changed[position] = _swapcase(changed[position])
        assert signing.check(bytes(changed)).verdict != "signed", position


@FUZZ
@given(
    position=st.integers(0, len(SIGNED)),
    byte=st.integers(0, 255),
    insert=st.booleans(),
)
def test_no_byte_can_be_deleted_or_inserted_and_still_verify(position, byte, insert):
    if insert:
        changed = SIGNED[:position] + bytes([byte]) + SIGNED[position:]
    else:
        position = min(position, len(SIGNED) - 1)
        changed = SIGNED[:position] + SIGNED[position + 1 :]
    assert len(changed) != len(SIGNED)
    assert signing.check(changed).verdict != "signed"


def test_uppercase_signature_is_changed():
    doc = json.loads(SIGNED)
    doc["signature"] = doc["signature"].upper()
    assert doc["signature"] != json.loads(SIGNED)["signature"]
    assert signing.check(signing.canonical(doc)).verdict == "changed"


def test_uppercase_author_key_is_changed():
    doc = json.loads(SIGNED)
    doc["authorKey"] = doc["authorKey"].upper()
    assert signing.check(signing.canonical(doc)).verdict == "changed"


@pytest.mark.parametrize(
    "spelling",
    [
        pytest.param(lambda b: b"\xef\xbb\xbf" + b, id="bom"),
        pytest.param(lambda b: b + b"\n", id="trailing-newline"),
        pytest.param(lambda b: b + b"\r\n", id="trailing-crlf"),
        pytest.param(lambda b: b" " + b, id="leading-space"),
        pytest.param(lambda b: json.dumps(json.loads(b), indent=2).encode(), id="indented"),
        pytest.param(
            lambda b: json.dumps(
                dict(reversed(list(json.loads(b).items()))), separators=(",", ":")
            ).encode(),
            id="reordered",
        ),
        pytest.param(
            lambda b: json.dumps(json.loads(b), sort_keys=True, indent=1).encode(), id="sorted"
        ),
        pytest.param(lambda b: b.replace(b"Assign", b"\\u0041ssign"), id="escaped-letter"),
        pytest.param(lambda b: b.replace(b'"packVersion":1', b'"packVersion":1.0'), id="1.0"),
    ],
)
def test_another_spelling_of_the_same_document_is_changed(spelling):
    respelled = spelling(SIGNED)
    assert respelled != SIGNED
    assert json.loads(respelled.decode("utf-8-sig")) == json.loads(SIGNED)
    assert signing.check(respelled).verdict == "changed"


def test_document_without_signature_is_unsigned():
    checked = signing.check(signing.canonical(PACK))
    assert checked.verdict == "unsigned"
    assert checked.document == PACK
    assert checked.key == ""
    assert checked.key_id == ""
    # An author key alone does not make a signature.
    assert signing.check(signing.canonical({**PACK, "authorKey": PUB_A})).verdict == "unsigned"
    # The indented sample file itself is simply unsigned.
    assert signing.check(GOOD.read_bytes()).verdict == "unsigned"


@pytest.mark.parametrize(
    ("data", "verdict"),
    [
        (b"", "unsigned"),
        (b"[]", "unsigned"),
        (b'"signature"', "unsigned"),  # JSON, but not an object
        (b"null", "unsigned"),
        (b"\xff\xfe", "unsigned"),
        (b"{", "unsigned"),
        (b'{"signature": ', "changed"),  # broken, and says it was signed
        (SIGNED[:-1], "changed"),
        (SIGNED.replace(b'"test"', b'"t\xffst"'), "changed"),  # not UTF-8 any more
    ],
    ids=[
        "empty",
        "array",
        "string",
        "null",
        "not-utf8",
        "truncated",
        "truncated-signed",
        "signed-truncated",
        "signed-not-utf8",
    ],
)
def test_check_never_raises_on_junk(data, verdict):
    checked = signing.check(data)
    assert checked.verdict == verdict
    assert checked.key == ""


def test_check_never_raises_on_deep_nesting():
    data = b'{"signature":"' + b"a" * 128 + b'","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert signing.check(data).verdict == "changed"


def test_author_key_swapped_to_another_key_is_changed():
    doc = json.loads(SIGNED)
    doc["authorKey"] = PUB_B
    assert signing.check(signing.canonical(doc)).verdict == "changed"


def test_signature_from_another_document_is_changed():
    other = json.loads(signed_pack(created="2027-01-01T00:00:00Z"))
    doc = json.loads(SIGNED)
    doc["signature"] = other["signature"]
    assert signing.check(signing.canonical(doc)).verdict == "changed"


def test_edited_content_is_changed_and_resigning_names_the_new_key():
    doc = json.loads(SIGNED)
    doc["tools"][0]["steps"][1]["args"]["assignee"]["value"] = "mallory"
    assert signing.check(signing.canonical(doc)).verdict == "changed"
    resigned = signing.check(signing.sign(doc, KEY_B))
    assert resigned.verdict == "signed"
    assert resigned.key == PUB_B


# --- the team folder ----------------------------------------------------------------------------


def test_written_file_is_found_signed(tmp_path):
    path = folder.write_shared(tmp_path, "tools", SIGNED)
    assert path == tmp_path / "tools" / folder.content_name(SIGNED, "tools")
    assert path.read_bytes() == SIGNED
    assert (tmp_path / folder.README).is_file()
    scan = FolderReader().scan(tmp_path)
    assert scan.reachable
    assert scan.skipped == 0
    [found] = scan.files
    assert found.kind == "tools"
    assert found.name == path.name
    assert found.verdict == "signed"
    assert found.key == PUB_A
    assert found.author == "test"
    assert found.created == "2026-11-30T10:00:00Z"
    assert folder.load(tmp_path, found) == SIGNED  # read again when needed, not kept
    assert scan.of("tools") == [found]
    assert scan.of("usage") == []


def test_sync_copies_and_temporary_files_are_skipped(tmp_path):
    path = folder.write_shared(tmp_path, "tools", SIGNED)
    digest = path.name.split(".")[0]
    copies = [
        f"{digest} (1).understudy-pack.json",
        f"{digest} (conflicted copy 2026-12-01).understudy-pack.json",
        f"{digest}-LAPTOP.understudy-pack.json",
        f".{path.name}.x1y2z3.tmp",
        f"{path.name}.tmp",
        f"{digest.upper()}.understudy-pack.json",
        f"{digest}.understudy-usage.json",  # another kind's suffix, in tools/
    ]
    for name in copies:
        (tmp_path / "tools" / name).write_bytes(SIGNED)
    (tmp_path / "usage").mkdir()
    (tmp_path / "usage" / f"{digest} (1).understudy-usage.json").write_bytes(SIGNED)
    scan = FolderReader().scan(tmp_path)
    assert scan.skipped == len(copies) + 1
    assert [f.name for f in scan.files] == [path.name]
    assert scan.files[0].verdict == "signed"


def test_file_changed_under_its_hash_name_is_changed(tmp_path):
    path = folder.write_shared(tmp_path, "tools", SIGNED)
    tampered = SIGNED.replace(b'"priya"', b'"mallo"')
    assert tampered != SIGNED and len(tampered) == len(SIGNED)
    path.write_bytes(tampered)
    reader = FolderReader()
    first = reader.scan(tmp_path)  # just written: it may still be arriving
    assert first.files == [] and first.arriving == 1
    [found] = reader.scan(tmp_path).files  # it stayed as it is: changed
    assert found.verdict == "changed"
    assert found.key == ""


def test_validly_signed_file_under_another_files_name_is_changed(tmp_path):
    other = signed_pack(created="2027-01-01T00:00:00Z")
    (tmp_path / "tools").mkdir()
    path = tmp_path / "tools" / folder.content_name(other, "tools")
    path.write_bytes(SIGNED)
    os.utime(path, (0, 0))  # long since written: not still arriving
    [found] = FolderReader().scan(tmp_path).files
    assert signing.check(path.read_bytes()).verdict == "signed"  # the bytes alone verify...
    assert found.verdict == "changed"  # ...but are not the ones the file was named for
    assert found.key == ""


def test_two_documents_written_at_once_both_land(tmp_path):
    rounds = 10
    for i in range(rounds):
        docs = [signed_pack(created=f"2026-12-{i + 1:02d}T10:00:0{n}Z") for n in range(2)]
        barrier = threading.Barrier(2)
        errors: list[BaseException] = []

        def write(data: bytes, barrier: threading.Barrier = barrier, errors=errors) -> None:
            try:
                barrier.wait()
                folder.write_shared(tmp_path, "tools", data)
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=write, args=(d,)) for d in docs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == []
    scan = FolderReader().scan(tmp_path)
    assert len(scan.files) == 2 * rounds
    assert all(f.verdict == "signed" for f in scan.files)
    assert scan.skipped == 0  # no temporary file left behind


def test_the_same_bytes_written_at_once_leave_one_file(tmp_path):
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def write() -> None:
        try:
            barrier.wait()
            folder.write_shared(tmp_path, "tools", SIGNED)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=write) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert os.listdir(tmp_path / "tools") == [folder.content_name(SIGNED, "tools")]


def test_writing_the_same_bytes_twice_leaves_one_file(tmp_path):
    first = folder.write_shared(tmp_path, "tools", SIGNED)
    second = folder.write_shared(tmp_path, "tools", SIGNED)
    assert first == second
    assert os.listdir(tmp_path / "tools") == [first.name]
    assert first.read_bytes() == SIGNED
    assert stat.S_IMODE(first.stat().st_mode) == 0o644


def test_missing_folder_is_unreachable(tmp_path):
    scan = FolderReader().scan(tmp_path / "not-mounted")
    assert scan.reachable is False
    assert scan.files == []
    # An existing but empty folder is reachable, and empty.
    empty = FolderReader().scan(tmp_path)
    assert empty.reachable is True
    assert empty.files == []


def test_second_scan_of_an_unchanged_folder_reads_no_file(tmp_path, monkeypatch):
    folder.write_shared(tmp_path, "tools", SIGNED)
    folder.write_shared(tmp_path, "withdrawn", withdrawal(KEY_A, "assign_refund", "2027-01-01"))
    reads: list[str] = []
    real = folder.read_file

    def counting(kind, name, data):
        reads.append(name)
        return real(kind, name, data)

    monkeypatch.setattr(folder, "read_file", counting)
    reader = FolderReader()
    first = reader.scan(tmp_path)
    assert len(reads) == 2
    second = reader.scan(tmp_path)
    assert len(reads) == 2  # listed, not read again
    assert second.files == first.files
    # A new file is the only one read; a file that left the folder leaves the scan.
    new = folder.write_shared(tmp_path, "usage", usage(KEY_A, "2027-01-02", []))
    third = reader.scan(tmp_path)
    assert reads[2:] == [new.name]
    assert len(third.files) == 3
    new.unlink()
    assert [f.name for f in reader.scan(tmp_path).files] == [f.name for f in first.files]
    assert len(reads) == 3


# --- inbox: what the folder means for this person ---------------------------------------------


def test_new_tool_from_an_untrusted_author():
    file = shared("tools", signed_pack())
    tool = only_tool(view_of(file))
    assert tool.state == "untrusted"
    assert tool.offered
    assert tool.trusted is False
    assert tool.key == PUB_A
    assert tool.key_id == signing.key_id(PUB_A)
    assert tool.author == "Priya"
    assert tool.tool == "assign_refund"
    assert tool.impostor_of == ""
    assert tool.installed is None
    assert view_of(file).new_from_team == []  # not "from your team" until trusted


def test_new_tool_from_a_trusted_author():
    view = view_of(shared("tools", signed_pack()), trusted={PUB_A: "Priya"})
    tool = only_tool(view)
    assert tool.state == "new"
    assert tool.trusted is True
    assert tool.impostor_of == ""
    assert view.offered == [tool]
    assert view.new_from_team == [tool]


def test_latest_version_is_offered_as_an_update_of_the_installed_one():
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", old.digest, old.created)
    for order in ((old, new), (new, old)):
        tool = only_tool(view_of(*order, trusted={PUB_A: "Priya"}, installed=[installed]))
        assert tool.state == "update"
        assert tool.offered
        assert tool.file.digest == new.digest
        assert tool.installed == installed


def test_a_newer_version_from_an_author_no_longer_trusted_is_not_offered():
    """Accepted from Priya, then Priya distrusted: a newer version she signs is not an update
    this person is offered (its Accept would take her word again without asking)."""
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", old.digest, old.created)
    tool = only_tool(view_of(old, new, trusted={}, installed=[installed]))
    assert tool.state == "current" and not tool.offered
    assert tool.installed == installed and tool.file.digest == new.digest
    assert only_tool(view_of(old, new, trusted={PUB_A: "Priya"}, installed=[installed])).offered


def test_installed_latest_version_is_current():
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    installed = inbox.Installed("refunds", PUB_A, "assign_refund", new.digest, new.created)
    tool = only_tool(view_of(old, new, installed=[installed]))
    assert tool.state == "current"
    assert not tool.offered
    # Installed from the only version there is: current too.
    only = inbox.Installed("refunds", PUB_A, "assign_refund", old.digest, old.created)
    assert only_tool(view_of(old, installed=[only])).state == "current"


def test_a_version_older_than_the_installed_one_is_not_an_update():
    """The installed version's file is gone from the folder (deleted, or not synced yet) and
    an older one is there: taking it would take the tool back, so it is not offered."""
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", new.digest, new.created)
    tool = only_tool(view_of(old, trusted={PUB_A: "Priya"}, installed=[installed]))
    assert tool.state == "current" and not tool.offered


def test_a_version_accepted_once_is_not_offered_again_as_an_update():
    """Accepted before (under another name here, say) while this tool stayed as it was: the
    same version is not offered to it again."""
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", old.digest, old.created)
    trusted = {PUB_A: "Priya"}
    accepted = frozenset({new.digest})
    tool = only_tool(view_of(old, new, trusted=trusted, installed=[installed], accepted=accepted))
    assert tool.state == "current" and not tool.offered


def test_installed_tool_of_another_author_does_not_make_this_one_current():
    file = shared("tools", signed_pack())
    theirs = inbox.Installed("assign_refund", PUB_B, "assign_refund", file.digest, file.created)
    tool = only_tool(view_of(file, installed=[theirs]))
    assert tool.state == "untrusted"
    assert tool.installed is None


def test_declined_file_is_declined_until_a_newer_version():
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    tool = only_tool(view_of(old, declined={old.digest}))
    assert tool.state == "declined"
    assert not tool.offered
    new = shared("tools", signed_pack(created="2026-12-02T10:00:00Z"))
    assert only_tool(view_of(old, new, declined={old.digest})).state == "untrusted"


def test_own_tool_is_mine():
    tool = only_tool(view_of(shared("tools", signed_pack()), mine=PUB_A))
    assert tool.state == "mine"
    assert not tool.offered


@pytest.mark.parametrize(
    "data",
    [b"[1, 2]", b"not json", b'{"packVersion": 1, "tools": []}', b'{"tools": [5]}'],
)
def test_a_file_that_is_no_pack_offers_nothing(data):
    view = view_of(shared("tools", data))
    assert view.reachable and view.tools == [] and view.offered == []


def test_a_link_in_the_folder_is_not_read(tmp_path):
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_bytes(SIGNED)
    (tmp_path / "team" / "tools").mkdir(parents=True)
    link = tmp_path / "team" / "tools" / folder.content_name(SIGNED, "tools")
    link.symlink_to(elsewhere)
    scan = folder.FolderReader().scan(tmp_path / "team")
    assert scan.files == [] and scan.skipped == 1


def test_changed_file_is_shown_as_changed():
    data = signed_pack()
    tampered = data.replace(b'"priya"', b'"mallo"')
    file = shared("tools", tampered)  # named for its (tampered) bytes; the signature fails
    tool = only_tool(view_of(file, trusted={PUB_A: "Priya"}))
    assert tool.state == "changed"
    assert tool.key == ""
    assert not tool.offered


def test_unreachable_scan_has_no_tools():
    scan = FolderScan(Path("gone"), reachable=False, files=[shared("tools", signed_pack())])
    view = inbox.team_view(scan, inbox.Decisions(mine=PUB_C))
    assert view.reachable is False
    assert view.tools == []


def test_withdrawal_by_the_author_withdraws_the_installed_tool():
    file = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    stop = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    assert stop.verdict == "signed"
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", file.digest, file.created)
    view = view_of(file, stop, trusted={PUB_A: "Priya"}, installed=[installed])
    tool = only_tool(view)
    assert tool.state == "withdrawn"
    assert not tool.offered
    assert view.withdraw == [tool]
    # Not installed here: withdrawn, but nothing to take back.
    view = view_of(file, stop)
    assert only_tool(view).state == "withdrawn"
    assert view.withdraw == []


def test_own_withdrawn_tool_is_withdrawn_not_mine():
    file = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    stop = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    assert only_tool(view_of(file, stop, mine=PUB_A)).state == "withdrawn"
    assert only_tool(view_of(file, mine=PUB_A)).state == "mine"


def test_withdrawal_covers_only_versions_shared_before_it():
    old = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    stop = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    new = shared("tools", signed_pack(created="2026-12-06T10:00:00Z"))
    tool = only_tool(view_of(old, stop, new))
    assert tool.state == "untrusted"
    assert tool.file.digest == new.digest


def test_withdrawal_signed_by_another_key_is_ignored():
    file = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    # Someone else, even under the author's name, cannot withdraw the author's tool.
    forged = shared("withdrawn", withdrawal(KEY_B, "assign_refund", "2026-12-05T10:00:00Z"))
    assert forged.verdict == "signed"
    installed = inbox.Installed("assign_refund", PUB_A, "assign_refund", file.digest, file.created)
    view = view_of(file, forged, trusted={PUB_A: "Priya"}, installed=[installed])
    assert only_tool(view).state == "current"
    assert view.withdraw == []
    assert only_tool(view_of(file, forged)).state == "untrusted"


def test_unsigned_withdrawal_is_ignored():
    file = shared("tools", signed_pack(created="2026-12-01T10:00:00Z"))
    doc = documents.withdrawal_document("Priya", "assign_refund")
    doc.update(created="2026-12-05T10:00:00Z", authorKey=PUB_A)
    unsigned = shared("withdrawn", signing.canonical(doc))
    assert unsigned.verdict == "unsigned"
    assert only_tool(view_of(file, unsigned)).state == "untrusted"


def test_known_name_with_another_key_is_flagged():
    forged = shared("tools", signed_pack(KEY_B, author="Priya"))
    view = view_of(forged, trusted={PUB_A: "Priya"})
    tool = only_tool(view)
    assert tool.state == "untrusted"
    assert tool.trusted is False
    assert tool.key == PUB_B
    assert tool.impostor_of == signing.key_id(PUB_A)
    assert tool.impostor_of != tool.key_id
    assert view.offered == [tool] and view.new_from_team == []
    # The same key under another name is not an impostor; a trusted key never is.
    assert only_tool(view_of(forged, trusted={PUB_A: "Sam"})).impostor_of == ""
    assert only_tool(view_of(forged, trusted={PUB_A: "Priya", PUB_B: "Priya"})).impostor_of == ""


def _counts(runs: int, failures: int, last: str, tool: str = "assign_refund") -> dict[str, Any]:
    return {"sharedBy": PUB_A, "tool": tool, "runs": runs, "failures": failures, "lastUsed": last}


@pytest.mark.parametrize("older_first", [True, False])
def test_usage_sums_each_persons_latest_counts(older_first):
    pack = shared("tools", signed_pack())
    b_old = shared("usage", usage(KEY_B, "2026-12-03T10:00:00Z", [_counts(40, 30, "2026-12-03")]))
    b_new = shared("usage", usage(KEY_B, "2026-12-04T10:00:00Z", [_counts(5, 1, "2026-12-04")]))
    c_new = shared(
        "usage",
        usage(
            KEY_C,
            "2026-12-02T10:00:00Z",
            [_counts(2, 0, "2026-12-06"), _counts(9, 9, "2026-12-09", tool="other_tool")],
        ),
    )
    # Not signed: never counted.
    forged_doc = documents.usage_document("x", [_counts(1000, 1000, "2026-12-31")])
    forged = shared("usage", signing.canonical({**forged_doc, "authorKey": PUB_A}))
    # Someone who never ran it is not one of the people who use it.
    idle = shared("usage", usage(KEY_A, "2026-12-05T10:00:00Z", [_counts(0, 0, "")]))
    files = [b_old, b_new] if older_first else [b_new, b_old]
    # Only the people this person trusts count, one person per key: B and C, not A.
    view = view_of(
        pack, *files, c_new, forged, idle, mine="0" * 64, trusted={PUB_B: "B", PUB_C: "C"}
    )
    tool = only_tool(view)
    assert tool.usage == inbox.TeamUsage(runs=7, failures=1, people=2, last_used="2026-12-06")
    assert view.usage_ignored == 1  # A's counts, left out and said to be


def test_no_usage_is_zero():
    tool = only_tool(view_of(shared("tools", signed_pack())))
    assert tool.usage == inbox.TeamUsage(0, 0, 0, "")


def test_documents_are_typed_or_ignored():
    stop = json.loads(withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    assert documents.as_withdrawal(stop) is not None
    assert documents.as_withdrawal({**stop, "extra": 1}) is None
    assert documents.as_withdrawal({**stop, "authorKey": PUB_A.upper()}) is None
    counts = json.loads(usage(KEY_A, "2026-12-05", [_counts(1, 0, "2026-12-05")]))
    assert documents.as_usage(counts) is not None
    assert documents.as_usage({**counts, "tools": [{**_counts(1, 0, ""), "ticket": "x"}]}) is None
    assert documents.as_usage({**counts, "tools": [_counts(-1, 0, "")]}) is None
    assert documents.as_usage(None) is None
    assert documents.when("not a time") < documents.when("2026-12-01")
    assert documents.when("2026-12-01T10:00:00Z") == documents.when("2026-12-01T10:00:00+00:00")


# --- provenance: the words before an import -----------------------------------------------------


def test_provenance_signed_and_trusted():
    source = provenance.provenance_of(signing.check(SIGNED), "test", {PUB_A: "test"})
    assert source.verdict == "signed"
    assert source.trusted is True
    assert source.asks_trust is False
    assert source.warning() == ""
    assert source.trust_line() == ""
    assert source.signature_line() == f"Signed by test (key {signing.key_id(PUB_A)})"


def test_provenance_signed_but_untrusted_asks_for_trust():
    source = provenance.provenance_of(signing.check(SIGNED), "test", {PUB_B: "someone else"})
    assert source.verdict == "signed"
    assert source.trusted is False
    assert source.asks_trust is True
    assert source.new_key_for_known_name is False
    assert source.trust_line() != ""
    assert "test" in source.trust_line()
    assert source.warning() == ""
    assert signing.key_id(PUB_A) in source.signature_line()


def test_provenance_known_name_with_a_new_key_warns():
    source = provenance.provenance_of(signing.check(SIGNED), "test", {PUB_B: "test"})
    assert source.new_key_for_known_name is True
    assert source.trusted_key_for_name == PUB_B
    warning = source.warning()
    assert warning != ""
    assert signing.key_id(PUB_A) in warning  # the key it was signed with
    assert signing.key_id(PUB_B) in warning  # the key trusted for that name
    assert "test" in warning
    assert source.trust_line() == ""  # the warning, not the usual first-time words


def test_provenance_unsigned():
    source = provenance.provenance_of(signing.check(GOOD.read_bytes()), "test", {PUB_A: "test"})
    assert source.verdict == "unsigned"
    assert source.signature_line().startswith("Not signed")
    assert source.trusted is False
    assert source.asks_trust is False
    assert source.warning() == ""
    assert source.trust_line() == ""
    assert source.key_id == ""


# --- the signing key --------------------------------------------------------------------------


@pytest.fixture
def no_keyring(monkeypatch):
    """use_keyring=False must never reach the keyring."""
    import keyring

    def refuse(*_args, **_kwargs):
        raise AssertionError("the keyring was used")

    for name in ("get_keyring", "get_password", "set_password"):
        monkeypatch.setattr(keyring, name, refuse)


def test_keystore_makes_a_private_key_file_and_keeps_it(tmp_path, no_keyring):
    store = keys.KeyStore(tmp_path, use_keyring=False)
    assert store.where == ""
    key = store.load_or_create()
    path = tmp_path / keys.KEY_FILE
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert store.where == "file"
    assert path.read_text(encoding="ascii") == key.private_bytes_raw().hex()
    again = keys.KeyStore(tmp_path, use_keyring=False)
    assert signing.public_hex(again.load_or_create()) == signing.public_hex(key)
    assert again.where == "file"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    # Another data folder, another person: another key.
    other = tmp_path / "other"
    other.mkdir()
    assert signing.public_hex(keys.KeyStore(other, use_keyring=False).load_or_create()) != (
        signing.public_hex(key)
    )


def test_keystore_reads_a_key_file_with_a_trailing_newline(tmp_path, no_keyring):
    (tmp_path / keys.KEY_FILE).write_text(KEY_A.private_bytes_raw().hex() + "\n")
    key = keys.KeyStore(tmp_path, use_keyring=False).load_or_create()
    assert signing.public_hex(key) == PUB_A


@pytest.mark.parametrize("corrupt", ["not a key", "ab" * 31, "", "zz" * 32])
def test_keystore_replaces_a_corrupt_key_file(tmp_path, no_keyring, corrupt):
    """A key file that does not read as a key signs nothing: a new key replaces it (0600),
    and the next load returns that same key."""
    path = tmp_path / keys.KEY_FILE
    path.write_text(corrupt, encoding="ascii")
    store = keys.KeyStore(tmp_path, use_keyring=False)
    key = store.load_or_create()
    assert store.where == "file"
    assert path.read_text(encoding="ascii") == key.private_bytes_raw().hex()
    assert path.stat().st_mode & 0o777 == 0o600
    assert signing.check(signing.sign(PACK, key)).verdict == "signed"


def test_keystore_key_made_beside_a_corrupt_key_file_is_the_one_loaded_next(tmp_path, no_keyring):
    (tmp_path / keys.KEY_FILE).write_text("not a key", encoding="ascii")
    first = keys.KeyStore(tmp_path, use_keyring=False).load_or_create()
    second = keys.KeyStore(tmp_path, use_keyring=False).load_or_create()
    assert signing.public_hex(first) == signing.public_hex(second)


def _read_then_edited_in_place(tmp_path: Path) -> tuple[Path, folder.FolderReader, list[float]]:
    """A shared file a reader has seen signed, then changed by one byte under its name."""
    path = folder.write_shared(tmp_path, "tools", SIGNED)
    now = [time.time() + 10]
    reader = folder.FolderReader(clock=lambda: now[0])
    assert reader.scan(tmp_path).files[0].verdict == "signed"
    data = bytearray(path.read_bytes())
    data[data.index(b"priya")] = ord("q")
    path.write_bytes(bytes(data))
    return path, reader, now


def test_a_file_edited_in_place_at_the_same_size_is_read_again(tmp_path):
    before = folder.write_shared(tmp_path, "tools", SIGNED).stat().st_mtime_ns
    path, reader, now = _read_then_edited_in_place(tmp_path)
    os.utime(path, ns=(before + 2_000_000_000, before + 2_000_000_000))
    # The folder's own time did not change: it is listed again within a minute.
    now[0] += folder.RELIST_S + 1
    assert reader.scan(tmp_path).arriving == 1  # modified lately: it may still be arriving
    now[0] += folder.ARRIVING_S + 1
    assert reader.scan(tmp_path).files[0].verdict == "changed"


def test_an_edit_in_place_is_not_taken_for_an_unchanged_folder(tmp_path):
    path, reader, now = _read_then_edited_in_place(tmp_path)
    os.utime(path, (0, 0))  # an old time: not a file still arriving
    now[0] += folder.RELIST_S + 1
    judged = reader.scan(tmp_path)
    assert judged.files[0].verdict == "changed"
    assert not judged.same_as_before  # the app works the view out again


def test_a_pack_nested_too_deeply_is_refused_in_words():
    with pytest.raises(PackError, match="nested far too deeply"):
        parse_pack(b"[" * 100_000 + b"]" * 100_000, "deep.understudy-pack.json")


def test_a_tool_listed_twice_in_one_persons_counts_is_counted_once():
    """One person's file counts a tool once: listing it again (a tampered or careless file)
    neither doubles its runs nor makes its author two people who use it."""
    pack = shared("tools", signed_pack())
    twice = [_counts(5, 1, "2026-12-04"), _counts(500, 0, "2026-12-09")]
    counts = shared("usage", usage(KEY_B, "2026-12-04T10:00:00Z", twice))
    tool = only_tool(view_of(pack, counts, mine="0" * 64, trusted={PUB_B: "B"}))
    assert tool.usage == inbox.TeamUsage(runs=5, failures=1, people=1, last_used="2026-12-04")


def test_a_trusted_person_who_never_ran_a_tool_is_not_one_of_its_people():
    pack = shared("tools", signed_pack())
    ran = shared("usage", usage(KEY_B, "2026-12-04T10:00:00Z", [_counts(3, 0, "2026-12-04")]))
    idle = shared("usage", usage(KEY_C, "2026-12-04T10:00:00Z", [_counts(0, 0, "")]))
    tool = only_tool(view_of(pack, ran, idle, mine="0" * 64, trusted={PUB_B: "B", PUB_C: "C"}))
    assert tool.usage == inbox.TeamUsage(runs=3, failures=0, people=1, last_used="2026-12-04")


@pytest.mark.parametrize("later_first", [True, False])
def test_the_latest_withdrawal_covers_a_version_shared_between_two(later_first):
    """Withdrawn, shared again, withdrawn again: the later withdrawal covers the version
    shared in between, whichever order the folder lists them in."""
    first = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    again = shared("tools", signed_pack(created="2026-12-06T10:00:00Z"))
    later = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-07T10:00:00Z"))
    stops = [later, first] if later_first else [first, later]
    assert only_tool(view_of(again, *stops)).state == "withdrawn"


def test_a_withdrawal_made_the_second_a_version_was_shared_covers_it():
    file = shared("tools", signed_pack(created="2026-12-05T10:00:00Z"))
    stop = shared("withdrawn", withdrawal(KEY_A, "assign_refund", "2026-12-05T10:00:00Z"))
    assert only_tool(view_of(file, stop)).state == "withdrawn"
