"""What the team folder means here, worked out on the team's thread (team/background.py) so
the window never waits on it: the view of thousands of files (team/inbox.py), the documents
to keep (team/trust.py), what to write back because someone deleted it, and whether the
lead's app owes the team a new confirmation (team/confirming.py). The service
(library_service.py) takes a `Job` on the Qt thread and shows the `Worked` it gets back."""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path

from understudy_desktop.team.confirming import (
    Wanted,
    due,
    newest_own,
    next_due_s,
    outdated_own,
    wanted,
)
from understudy_desktop.team.folder import FolderScan, SharedFile, load, write_file
from understudy_desktop.team.freshness import confirmations, newest_by_signer, until_it_changes
from understudy_desktop.team.inbox import Decisions, TeamView, team_view, with_kept
from understudy_desktop.team.trust import KEPT_KINDS, TeamDecisions

log = logging.getLogger(__name__)
KEEP_AT_ONCE = 500  # documents read into the database, or written back, per view


@dataclass(frozen=True)
class Job:
    """What a view is worked out from: taken on the Qt thread, read on the team's thread."""

    generation: int  # one more than the job before
    scan: FolderScan
    kept: list[SharedFile]
    decisions: Decisions
    folder: Path | None
    expect_layout: bool
    keep_from: set[str]
    lead_key: str  # this person's key, when they are the lead ('' otherwise)
    # The names the last scan found in the folder itself (`scan` adds this app's own files
    # that no scan has shown yet): what is missing, and so written back, is judged by these.
    on_disk: frozenset[str] = frozenset()


@dataclass(frozen=True)
class LeadPlan:
    """The lead's confirmation as it stands (team/confirming.py)."""

    want: Wanted
    due: bool
    sequence: int  # the next number
    outdated: list[str]  # this person's confirmations to remove (names)
    next_s: float  # seconds until the next one is due


@dataclass(frozen=True)
class Worked:
    generation: int
    folder: Path | None
    view: TeamView
    restored: list[SharedFile]  # written back into the folder
    # When the clock alone may change the view (Unix time, by the clock the job was worked
    # out with: a view shown a while after it was asked for is looked at again no later).
    next_look_at: float
    lead: LeadPlan | None


def work_out(job: Job, decisions: TeamDecisions) -> Worked:
    """On the team's thread: the view, the documents to keep, and what to write back."""
    full = with_kept(job.scan, job.kept)
    view = team_view(full, job.decisions)
    now = job.decisions.now or time.time()
    restored: list[SharedFile] = []
    lead: LeadPlan | None = None
    if view.reachable and job.folder is not None:
        decisions.note_seen({f.name: f.seen for f in job.scan.files})
        _keep(job, view, decisions)
        restored = _write_back(job, decisions)
        if job.lead_key:
            lead = _lead_plan(full, view, job, now)
    look = until_it_changes(view.freshness, full, now)
    if lead is not None:
        look = min(look, lead.next_s)
    return Worked(job.generation, job.folder, view, restored, now + look, lead)


def _keep(job: Job, view: TeamView, decisions: TeamDecisions) -> None:
    """Keep the signed documents that decide something here, the first time they are seen."""
    assert job.folder is not None
    counts = (
        job.keep_from
        | set(view.vouched)
        | set(view.chain)
        | ({view.policy.authorKey} if view.policy is not None else set())
    )
    kept = {f.name for f in job.kept}
    todo = [
        f
        for f in job.scan.files
        if f.kind in KEPT_KINDS and f.verdict == "signed" and f.key in counts and f.name not in kept
    ]
    # Of confirmations, only each signer's newest counts (an older one confirms nothing more).
    newest = newest_by_signer(confirmations(job.scan, counts))
    todo = [f for f in todo if f.kind != "confirmed" or newest.get(f.key) is f][:KEEP_AT_ONCE]
    loaded = [(f.kind, f.name, data) for f in todo if (data := load(job.folder, f)) is not None]
    if loaded:
        decisions.keep(loaded, {f.name: f.seen for f in todo})


def _write_back(job: Job, decisions: TeamDecisions) -> list[SharedFile]:
    """Write back the kept documents that are missing from the folder: a rule, a withdrawal,
    a hand-over, a review or a confirmation deleted as it landed is back at the next scan of
    any app that saw it. Only into a folder that holds something of its signer's still (not
    into another team's folder this person moved to)."""
    assert job.folder is not None
    present = job.on_disk
    signers = {f.key for f in job.scan.files if f.key}
    newest_here: dict[str, int] = {}
    for f in confirmations(job.scan, signers):
        newest_here.setdefault(f.key, f.info.sequence)
    missing = [
        f
        for f in job.kept
        if f.name not in present
        and f.kind in KEPT_KINDS
        and f.key in signers
        and not (f.kind == "confirmed" and newest_here.get(f.key, 0) >= f.info.sequence)
    ][:KEEP_AT_ONCE]
    if not missing:
        return []
    written: set[str] = set()
    for kind, name, data in decisions.kept_data([f.name for f in missing]):
        try:
            _path, created = write_file(job.folder, kind, data, expect_layout=job.expect_layout)
        except OSError as exc:
            log.info("a kept %s could not be written back: %s", kind, exc)
            continue
        if created:  # not merely missing from a scan that began before it was written
            written.add(name)
    if written:
        log.warning("wrote back %d file(s) missing from the team folder", len(written))
    return [f for f in missing if f.name in written]


def _lead_plan(full: FolderScan, view: TeamView, job: Job, now: float) -> LeadPlan:
    mine = {job.lead_key}
    counted = set(job.decisions.trusted) | mine | set(view.vouched)
    want = wanted(full, view.policy, view.policies, counted)
    newest = newest_own(full, mine)
    sequence = newest.info.sequence + 1 if newest is not None else 1
    return LeadPlan(
        want=want,
        due=due(newest, want, now),
        sequence=sequence,
        outdated=[f.name for f in outdated_own(job.scan, mine)],
        next_s=next_due_s(newest, want, now),
    )
