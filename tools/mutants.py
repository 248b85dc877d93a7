"""The mutation gate over the security core: each kept mutant breaks one rule on a copy of the
project, runs the tests that must catch it, and the gate fails if any mutant survives.

A rule is real only if a test fails without it. The review that found nine survivors made its
mutants by hand; these are kept here so every run of ./run-tests makes them again. A new rule
in consent/, library/, agent/calls.py, the runner, team signing, trust, sharing and the inbox,
the queue store, the helpdesk outbox and sync, undo and redo, the caps on set-based changes,
the console's scheme, the approval's warnings, or a limit read from rules.json gets a mutant
here with the tests that catch it.

Usage: .venv/bin/python tools/mutants.py [--check-list] [--jobs N] [NAME ...]
  --check-list  only check that each mutant's text is found exactly once (fast; a test runs it)
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
REFUSALS = "tests/test_refusals.py"


@dataclass(frozen=True)
class Mutant:
    name: str
    file: str
    old: str  # found exactly once in `file`
    new: str
    tests: tuple[str, ...]  # pytest arguments that must fail once it is applied


def refusals(*selectors: str) -> tuple[str, ...]:
    return (REFUSALS, "-k", " or ".join(selectors)) if selectors else (REFUSALS,)


MAY_RUN = "understudy_desktop/library/may_run.py"
LIBRARY = "understudy_desktop/library/library.py"
CALLS = "understudy_desktop/agent/calls.py"
RUNNER = "understudy_desktop/library/runner.py"
INBOX = "understudy_desktop/team/inbox.py"
OUTBOX = "understudy_desktop/helpdesk/outbox.py"
SAID = "tests/test_refusals_said.py"
TABLES = "understudy_desktop/helpdesk/tables.py"
TRIGGERS = "understudy_desktop/store/helpdesk_tables.py"
SYNC = "understudy_desktop/helpdesk/sync.py"
HISTORY = "understudy_desktop/model/history.py"
SCHEME = "understudy_desktop/web/scheme.py"
WORDING = "understudy_desktop/approval/wording.py"
CHECKS = "understudy_desktop/library/checks.py"
PACK_ACTIONS = "understudy_desktop/shell/pack_actions.py"
TEAM_SERVICE = "understudy_desktop/team/library_service.py"
FAKES = "tests/test_helpdesk_outbox_fakes.py"
SYNC_RULES = "tests/test_helpdesk_sync_rules.py"
UNDO = "tests/test_undo_history.py"
CAPS = "tests/test_set_caps.py"
WORDS = "tests/test_approval_wording.py"
LIMITS = ("tests/test_limits_from_rules.py",)
HOSTILE = "tests/test_hostile_page.py"
TRUST = "tests/test_team_trust.py"
FRESH = "understudy_desktop/team/freshness.py"
CONFIRMING = "understudy_desktop/team/confirming.py"
HISTORY_FILE = "understudy_desktop/team/history.py"
FRESH_TESTS = "tests/test_team_freshness.py"
OVER_TIME = "tests/test_team_over_time.py"
MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "revoked tool runs",
        MAY_RUN,
        "    if state is None:\n",
        "    if False:\n",
        refusals("may_not_run"),
    ),
    Mutant(
        "withdrawn tool told it changed",
        MAY_RUN,
        'state.held == "withdrawn"',
        'state.held == "gone"',
        refusals("may_not_run"),
    ),
    Mutant(
        "team-off tool told it changed",
        MAY_RUN,
        'state.held == "team_off"',
        'state.held == "off"',
        refusals("may_not_run"),
    ),
    Mutant(
        "changed definition runs",
        MAY_RUN,
        " or state.digest != approved",
        "",
        refusals("may_not_run"),
    ),
    Mutant(
        "turned-off tool runs",
        MAY_RUN,
        'if state.status != "active":',
        "if False:",
        refusals("may_not_run"),
    ),
    Mutant(
        "deadline off by one",
        MAY_RUN,
        "now > deadline",
        "now >= deadline",
        refusals("until_its_deadline"),
    ),
    Mutant(
        "change without a covering grant",
        LIBRARY,
        "isinstance(grant, Grant) and grant.covers(action.name, args)",
        "isinstance(grant, Grant)",
        refusals("covers_exactly"),
    ),
    Mutant(
        "cap at publish one late",
        LIBRARY,
        "active + adding > cap",
        "active + adding > cap + 1",
        refusals("cap_on_active"),
    ),
    Mutant(
        "cap at publish one early",
        LIBRARY,
        "active + adding > cap",
        "active + adding >= cap",
        refusals("cap_on_active"),
    ),
    Mutant(
        "cap at turn on one late",
        LIBRARY,
        "if active >= cap:",
        "if active > cap:",
        refusals("cap_on_active"),
    ),
    Mutant(
        "name in use replaced",
        LIBRARY,
        "        if taken:\n",
        "        if False:\n",
        refusals("name_in_use"),
    ),
    Mutant(
        "team lead's switch bypassed",
        LIBRARY,
        'if tool.held != "team_off":',
        "if True:",
        refusals("team_lead"),
    ),
    Mutant(
        "turned-off tool callable",
        "understudy_desktop/library/model.py",
        'return self.status == "active" and self.intact',
        "return self.intact",
        refusals("cannot_be_called", "cap_on_active"),
    ),
    Mutant(
        "tampered tool callable",
        "understudy_desktop/library/model.py",
        "return definition_hash(self.definition) == self.digest",
        "return True",
        refusals("no_longer_hashes"),
    ),
    Mutant(
        "tool need not follow its recording",
        "understudy_desktop/library/checks.py",
        "    if [s.command for s in definition.steps] != taught:\n",
        "    if False:\n",
        refusals("recorded_doing"),
    ),
    Mutant(
        "a reserved tool name approved",
        CHECKS,
        "    if name.startswith(policy.reservedPrefix):\n",
        "    if False:\n",
        ("tests/test_packs.py",),
    ),
    Mutant(
        "an unknown command approved",
        CHECKS,
        'return [f"Step {index + 1} uses a command this console does not have."]\n',
        "return []\n",
        refusals(),
    ),
    Mutant(
        "a step's needed field left out",
        CHECKS,
        "        if needed not in step.args:\n",
        "        if False:\n",
        ("tests/test_packs.py",),
    ),
    Mutant(
        "a step reads a question not asked",
        CHECKS,
        "        if isinstance(spec, ParamArg) and spec.name not in properties:\n",
        "        if False:\n",
        ("tests/test_packs.py",),
    ),
    Mutant(
        "a step reads itself",
        CHECKS,
        "not spec.step < index",
        "not spec.step <= index",
        ("tests/test_packs.py",),
    ),
    Mutant(
        "a fixed value the command refuses",
        CHECKS,
        "            if not validator.is_valid(spec.value):\n",
        "            if False:\n",
        refusals(),
    ),
    Mutant(
        "annotations taken from the author",
        CHECKS,
        "        annotations=catalogue.annotations(steps),\n",
        "        annotations=catalogue.annotations([]),\n",
        ("tests/test_packs.py",),
    ),
    Mutant(
        "a definition's own keys kept",
        CHECKS,
        "    known = {k: raw[k] for k in FIELDS if k in raw} if isinstance(raw, dict) else raw\n",
        "    known = raw\n",
        ("tests/test_pack_schema.py",),
    ),
    Mutant(
        "a made-up key named in an error",
        CHECKS,
        '    return str(part) if isinstance(part, int) or part in _FORMAT_WORDS else "…"\n',
        "    return str(part)\n",
        ("tests/test_pack_schema.py",),
    ),
    Mutant(
        "pydantic's message in an error",
        CHECKS,
        "        if kind.startswith(prefix):\n            return words\n",
        "        if kind.startswith(prefix):\n            return str(error.get('msg'))\n",
        ("tests/test_pack_schema.py",),
    ),
    Mutant(
        "repair may change other steps",
        "understudy_desktop/library/checks.py",
        "if i != index and a != b:",
        "if False:",
        refusals("redone"),
    ),
    Mutant(
        "repair freezes what the tool asked",
        "understudy_desktop/library/repair_compiler.py",
        'before.get("from") in ("param", "step")',
        'before.get("from") in ("step",)',
        ("tests/test_publish_compiled.py", "-k", "made_by_the_shell"),
    ),
    Mutant(
        "repair of the step the page names",
        "understudy_desktop/shell/console_asks.py",
        " or ask.repairStep != redoing[0]:",
        ":",
        ("tests/test_publish_compiled.py", "-k", "made_by_the_shell"),
    ),
    Mutant(
        "result not cut",
        "understudy_desktop/agent/results.py",
        "    if len(text) <= budget:\n",
        "    if True:\n",
        refusals("cut_to_the_budget"),
    ),
    Mutant(
        "result cut past the budget",
        "understudy_desktop/agent/results.py",
        "text[: budget - len(notice)]",
        "text[:budget]",
        refusals("cut_to_the_budget"),
    ),
    Mutant(
        "command outside the catalogue",
        "understudy_desktop/model/commands.py",
        "    if command is None or handler is None:\n",
        "    if False:\n",
        refusals("does_not_have"),
    ),
    Mutant(
        "grant for other arguments",
        "understudy_desktop/consent/ledger.py",
        "return action == self.action and consent_key(action, args) == self.key",
        "return action == self.action",
        refusals("covers_exactly"),
    ),
    Mutant(
        "consent replays",
        "understudy_desktop/consent/ledger.py",
        "self._granted.pop(key",
        "self._granted.get(key",
        ("tests/test_consent.py", "-k", "does_not_replay"),
    ),
    Mutant(
        "signature not checked",
        "understudy_desktop/team/signing.py",
        ".verify(signature, canonical(body))\n",
        "\n",
        ("tests/test_team_signing.py", "-k", "another_document or no_letter"),
    ),
    Mutant(
        "second review skipped",
        INBOX,
        "        and c.policy.secondReview\n",
        "        and False\n",
        ("tests/test_team_trust.py", "-k", "second_review"),
    ),
    Mutant(
        "arguments not checked",
        CALLS,
        "(tool.input_schema, arguments)\n        if problems:\n",
        "(tool.input_schema, arguments)\n        if False:\n",
        (SAID, "-k", "cannot_be_made"),
    ),
    Mutant(
        "ask every time skipped",
        CALLS,
        "        if tool.ask_every_time:\n",
        "        if False:\n",
        (SAID, "-k", "did_not_approve"),
    ),
    Mutant(
        "denied run runs",
        CALLS,
        "                if approved:\n",
        "                if True:\n",
        (SAID, "-k", "did_not_approve"),
    ),
    Mutant(
        "run not checked in its transaction",
        RUNNER,
        "            refusal = may_run(name, state, approved, deadline, time.monotonic())",
        "            refusal = None",
        (HOSTILE, "-k", "in_the_database_meanwhile"),
    ),
    Mutant(
        "turning off leaves its runs waiting",
        RUNNER,
        "            if job.tool.name != name:\n                continue",
        "            if True:\n                continue",
        (HOSTILE, "-k", "waiting_runs_end"),
    ),
    Mutant(
        "stopped run starts",
        RUNNER,
        "                if refusal is None and job.stop.is_set():",
        "                if False:",
        (SAID, "-k", "cancelled_before_it_began"),
    ),
    Mutant(
        "consent never expires",
        "understudy_desktop/consent/ledger.py",
        "if expiry is None or self._clock() >= expiry:",
        "if expiry is None:",
        ("tests/test_consent.py", "-k", "expiry"),
    ),
    Mutant(
        "grant made outside the ledger",
        "understudy_desktop/consent/ledger.py",
        "        if self._seal is not _SEAL:",
        "        if False:",
        ("tests/test_consent.py", "-k", "made_only_by_the_ledger"),
    ),
    Mutant(
        "approval from elsewhere trusted",
        LIBRARY,
        "        if not self._seal.verify(tool.name, tool.digest, tool.seal):",
        "        if False:",
        ("tests/test_consent_e2e.py", "-k", "forged_in_the_data_folder"),
    ),
    Mutant(
        "tampered tool kept active on load",
        LIBRARY,
        "        if not tool.intact:\n            if tool.status",
        "        if False:\n            if tool.status",
        ("tests/test_consent_e2e.py", "-k", "edited_on_disk"),
    ),
    Mutant(
        "breaking change not held back",
        LIBRARY,
        "        if is_breaking(changes):",
        "        if False:",
        ("tests/test_drift.py", "-k", "holds_a_stored_tool_back"),
    ),
    Mutant(
        "older version offered",
        INBOX,
        "    if key and latest.version < seen_version:",
        "    if False:",
        (TRUST, "-k", "older_version"),
    ),
    Mutant(
        "withdrawn tool offered",
        INBOX,
        "    if stopped is not None and when(stopped) >= when(latest.created):",
        "    if False:",
        (TRUST, "-k", "withdraw"),
    ),
    Mutant(
        "team-off tool offered",
        INBOX,
        "        (key and (key, name) in c.off)\n",
        "        False\n",
        (TRUST, "-k", "turned_off_for_the_team"),
    ),
    Mutant(
        "own tool offered as a colleague's",
        INBOX,
        '    if key and key in c.me:\n        return "mine"\n',
        "",
        (TRUST,),
    ),
    Mutant(
        "disputed key's tool offered",
        INBOX,
        "    if key and key in c.disputed and here is None:\n",
        "    if False:\n",
        ("tests/test_team_adversary.py",),
    ),
    Mutant(
        "declined tool offered again",
        INBOX,
        "    if latest.digest in d.declined or latest.digest in d.accepted:\n",
        "    if latest.digest in d.accepted:\n",
        ("tests/test_team_signing.py", "-k", "declined"),
    ),
    Mutant(
        "accepted tool offered again",
        INBOX,
        "    if latest.digest in d.declined or latest.digest in d.accepted:\n",
        "    if latest.digest in d.declined:\n",
        (TRUST,),
    ),
    Mutant(
        "tool here already offered",
        INBOX,
        '    if d.have.get(latest.definition):\n        return "current"\n',
        "",
        (TRUST,),
    ),
    Mutant(
        "unsigned tool shown as a stranger's",
        INBOX,
        '    if not key:\n        return "unsigned"\n',
        "",
        (TRUST,),
    ),
    Mutant(
        "accepted version offered as update",
        INBOX,
        "            and latest.digest not in d.accepted\n",
        "",
        ("tests/test_team_signing.py", "-k", "accepted_once_is_not"),
    ),
    Mutant(
        "older version offered as update",
        INBOX,
        "            and (latest.version, when(latest.created)) > _installed_order(here, files)\n",
        "",
        ("tests/test_team_signing.py", "-k", "older_than_the_installed"),
    ),
    Mutant(
        "publisher not allowed offered",
        INBOX,
        "    if c.publishers is not None and key not in c.publishers:",
        "    if False:",
        (TRUST, "-k", "listed_publishers"),
    ),
    Mutant(
        "update from an untrusted key offered",
        INBOX,
        'return "update" if newer and is_trusted else "current"',
        'return "update" if newer else "current"',
        ("tests/test_team_signing.py", "-k", "no_longer_trusted"),
    ),
    Mutant(
        "untrusted signer offered as trusted",
        INBOX,
        '    return "new" if is_trusted else "untrusted"',
        '    return "new"',
        (TRUST, "-k", "look_alike or listed_publishers"),
    ),
    Mutant(
        "signed bytes need not be canonical",
        "understudy_desktop/team/signing.py",
        "        if canonical(document) != data:\n",
        "        if False:\n",
        ("tests/test_team_signing.py", "-k", "another_spelling"),
    ),
    Mutant(
        "arrived change sent again",
        OUTBOX,
        "            if theirs == ours:\n",
        "            if False:\n",
        ("tests/test_helpdesk_outbox_fakes.py", "-k", "sent_once"),
    ),
    Mutant(
        "run cancelled in its last step kept",
        "understudy_desktop/model/runs.py",
        "(library/runner.py records that).\n    if stopped():\n",
        "(library/runner.py records that).\n    if False:\n",
        ("tests/test_model.py", "-k", "during_its_last_step"),
    ),
    Mutant(
        "page's Run… skips ask-every-time",
        "understudy_desktop/shell/console_asks.py",
        "        if not tool.ask_every_time:\n",
        "        if True:\n",
        ("tests/test_hostile_page.py", "-k", "run_form"),
    ),
    Mutant(
        "page asks at any pace",
        "understudy_desktop/bridge/page_bridge.py",
        "        admitted = self.pace.admit(ask, size)\n",
        '        admitted = "now"\n',
        ("tests/test_page_pace.py", "-k", "flooding"),
    ),
    Mutant(
        "script's click asks to open",
        "understudy_desktop/web/page.py",
        "        if self.person_input is None or not self.person_input.recent():\n",
        "        if False:\n",
        ("tests/test_page_stays.py", "-k", "unasked"),
    ),
    Mutant(
        "reply being typed overwritten",
        "understudy_desktop/model/commands.py",
        "    if ctx.reply_typed != ticket.id:\n        return False\n",
        "    if True:\n        return False\n",
        ("tests/test_reply_typed.py",),
    ),
    Mutant(
        "hand-over not countersigned",
        INBOX,
        "            and countersigned(info)\n",
        "",
        ("tests/test_team_adversary.py", "-k", "countersign or leads_key"),
    ),
    Mutant(
        "copied old key still shares",
        INBOX,
        "    if key and key in c.revoked and here is None:\n",
        "    if False:\n",
        ("tests/test_team_adversary.py", "-k", "copied_old_key"),
    ),
    Mutant(
        "review makes up a version",
        INBOX,
        "        out[pair] = max(out.get(pair, 0), named[2])\n",
        "        out[pair] = max(out.get(pair, 0), info.version or named[2])\n",
        ("tests/test_team_adversary.py", "-k", "does_not_exist"),
    ),
    Mutant(
        "deleted rules come back",
        INBOX,
        "    extra = [f for f in kept if f.name not in present]\n",
        "    extra: list[SharedFile] = []\n",
        ("tests/test_team_adversary.py", "-k", "deleting"),
    ),
    Mutant(
        "turned off, back under a new name",
        INBOX,
        "        or (latest.steps and latest.steps in c.off_steps)\n"
        "        or (latest.does and latest.does in c.off_steps)\n",
        "",
        ("tests/test_team_adversary.py", "-k", "another_name"),
    ),
    Mutant(
        "any member is the second review",
        INBOX,
        '        reviewers = (publishers if publishers is not None else set()) | ({lead} - {""})\n',
        "        reviewers = publishers if publishers is not None else counted\n",
        ("tests/test_team_adversary.py", "-k", "second_person"),
    ),
    Mutant(
        "a FIFO blocks the folder's read",
        "understudy_desktop/team/no_links.py",
        "os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd",
        "os.O_RDONLY | _NOFOLLOW, dir_fd",
        ("tests/test_team_adversary.py", "-k", "fifo"),
    ),
    Mutant(
        "look-alike blanks pass",
        "understudy_desktop/team/names.py",
        '_BLANK = icu.UnicodeSet("[[:White_Space:][\\u2800\\u3164\\uffa0\\u115f\\u1160]]")',
        '_BLANK = icu.UnicodeSet("[[:White_Space:]]")',
        ("tests/test_team_adversary.py", "-k", "look_alikes"),
    ),
    Mutant(
        "an agent's typo counts against the tool",
        "understudy_desktop/library/runner.py",
        '        elif answer.get("badInput") is True:\n',
        "        elif False:\n",
        ("tests/test_refusals_said.py", "-k", "typo"),
    ),
    Mutant(
        "helpdesk change overwritten",
        OUTBOX,
        "            if theirs not in bases and not _on_its_way("
        "out.field, theirs, [*bases, ours]):\n",
        "            if False:\n",
        ("tests/test_helpdesk_outbox_fakes.py", "-k", "not_overwritten"),
    ),
    Mutant(
        "endpoint open without its token",
        "understudy_desktop/agent/http_host.py",
        '        if not authorized(headers.get(b"authorization", b""), expected):',
        "        if False:",
        ("tests/test_agent_endpoint.py", "-k", "wrong_token"),
    ),
    Mutant(
        "endpoint answers any origin",
        "understudy_desktop/agent/server.py",
        "enable_dns_rebinding_protection=True",
        "enable_dns_rebinding_protection=False",
        ("tests/test_agent_endpoint.py", "-k", "wrong_token"),
    ),
    Mutant(
        "value outside its field stored",
        "understudy_desktop/model/commands.py",
        "    if problems:\n        raise CommandError(ErrorCode.INVALID_PAYLOAD",
        "    if False:\n        raise CommandError(ErrorCode.INVALID_PAYLOAD",
        ("tests/test_model.py", "-k", "does_not_fit_is_refused"),
    ),
    # --- the helpdesk outbox and sync: coalescing, order, tags, unchanged values ------------
    Mutant(
        "oldest waiting value sent",
        TABLES,
        "value=json.loads(rows[-1][1]),",
        "value=json.loads(rows[0][1]),",
        (FAKES, "-k", "newest_of_several"),
    ),
    Mutant(
        "outbox sends the newest change first",
        TABLES,
        '" ORDER BY seq LIMIT 1",',
        '" ORDER BY seq DESC LIMIT 1",',
        (FAKES, "-k", "newest_of_several"),
    ),
    Mutant(
        "outbox compares tags in order",
        OUTBOX,
        '    if field == "tags":\n        return sorted(set(value or ()))\n',
        '    if field == "tags":\n        return list(value or ())\n',
        (FAKES, "-k", "helpdesks_own_order"),
    ),
    Mutant(
        "outbox counts a tag held twice",
        OUTBOX,
        "        return sorted(set(value or ()))\n",
        "        return sorted(value or ())\n",
        (FAKES, "-k", "helpdesks_own_order"),
    ),
    Mutant(
        "outbox ignores a tag's case",
        OUTBOX,
        '    if field == "tags":\n        return sorted(set(value or ()))\n',
        '    if field == "tags":\n        return sorted({str(t).lower() for t in value or ()})\n',
        (FAKES, "-k", "case_someone_changed"),
    ),
    Mutant(
        "a helpdesk linked without the outbox's triggers",
        TABLES,
        " cursor),\n    )\n    watch_changes(conn)\n",
        " cursor),\n    )\n",
        ("tests/test_outbox_triggers.py",),
    ),
    Mutant(
        "the outbox's triggers kept with no helpdesk",
        TRIGGERS,
        "        elif not linked and name in there:",
        "        elif False:",
        ("tests/test_outbox_triggers.py",),
    ),
    Mutant(
        "unchanged value put in the outbox",
        TRIGGERS,
        "WHEN NEW.{field} IS NOT OLD.{field} AND EXISTS (",
        "WHEN EXISTS (",
        (FAKES, "-k", "written_over_itself"),
    ),
    Mutant(
        "sync overwrites our change on its way",
        SYNC,
        "        if name in busy:\n            continue\n",
        "        if False:\n            continue\n",
        (FAKES, "-k", "sync_leaves_a_field"),
    ),
    Mutant(
        "sync keeps the helpdesk's tag order",
        SYNC,
        '    return sorted(value or ()) if name == "tags" else value\n',
        '    return list(value or ()) if name == "tags" else value\n',
        (FAKES, "-k", "kept_sorted"),
    ),
    Mutant(
        "sync's writes sent back",
        SYNC,
        "    hd.set_quiet(conn, True)\n",
        "    hd.set_quiet(conn, False)\n",
        (FAKES, "-k", "do_not_go_back"),
    ),
    Mutant(
        "stopped sender still sends",
        OUTBOX,
        "            if self._stop.is_set():\n                return None\n",
        "            if False:\n                return None\n",
        (FAKES, "-k", "stopped_sender"),
    ),
    Mutant(
        "change to an unlinked ticket sent",
        OUTBOX,
        "        if remote is None:\n            return self._settle(",
        "        if False:\n            return self._settle(",
        (FAKES, "-k", "not_linked"),
    ),
    Mutant(
        "sign-in trouble refuses the change",
        OUTBOX,
        'return self._retry(out, UnreachableError(str(exc), BACKOFF_S[-1], "sign-in"))',
        'return self._settle(out, "refused", str(exc))',
        (FAKES, "-k", "sign_in_trouble"),
    ),
    Mutant(
        "deleted ticket's change refused, ticket kept",
        OUTBOX,
        "        except GoneError as exc:\n            return self._gone(out, exc)\n",
        "",
        (FAKES, "-k", "was_deleted_there"),
    ),
    Mutant(
        "unreadable answer refuses the change",
        OUTBOX,
        'return self._retry(out, UnreachableError(words, why="trouble"))',
        'return self._settle(out, "refused", words)',
        (FAKES, "-k", "cannot_be_read"),
    ),
    Mutant(
        "helpdesk back, status not told",
        OUTBOX,
        "        self._went_online()\n        if outcome == ",
        "        if outcome == ",
        (FAKES, "-k", "going_away"),
    ),
    Mutant(
        "helpdesk back after a refusal, not told",
        OUTBOX,
        "mark_refused(conn, out, words))\n        self._went_online()\n",
        "mark_refused(conn, out, words))\n",
        (FAKES, "-k", "helpdesk_refuses"),
    ),
    Mutant(
        "helpdesk away, status not told",
        OUTBOX,
        "            self._offline(self.offline_since)\n",
        "            pass\n",
        (FAKES, "-k", "going_away"),
    ),
    Mutant(
        "outcome not told to the shell",
        OUTBOX,
        "            self._changed(result)\n",
        "            pass\n",
        (FAKES, "-k", "going_away"),
    ),
    Mutant(
        "first pause five minutes long",
        OUTBOX,
        "BACKOFF_S[min(out.attempts, len(BACKOFF_S) - 1)]",
        "BACKOFF_S[max(out.attempts, len(BACKOFF_S) - 1)]",
        (FAKES, "-k", "pauses_grow"),
    ),
    Mutant(
        "pauses capped short of five minutes",
        OUTBOX,
        "min(step, BACKOFF_S[-1])",
        "min(step, BACKOFF_S[-2])",
        (FAKES, "-k", "pauses_grow"),
    ),
    Mutant(
        "moved-on ticket not read again",
        OUTBOX,
        "                continue  # someone changed the ticket",
        "                break  # someone changed the ticket",
        (FAKES, "-k", "between_our_read"),
    ),
    Mutant(
        "our earlier change taken for someone's",
        OUTBOX,
        "        bases += [",
        "        _ = [",
        (FAKES, "-k", "earlier_change_of_ours"),
    ),
    Mutant(
        "half-sent tags held as a conflict",
        OUTBOX,
        "if theirs not in bases and not _on_its_way(out.field, theirs, [*bases, ours]):",
        "if theirs not in bases:",
        (FAKES, "-k", "halfway"),
    ),
    Mutant(
        "tag someone removed overwritten",
        OUTBOX,
        "old, new = set(before or ()), set(after or ())",
        "old, new = set(), set(after or ())",
        (FAKES, "-k", "someone_removed"),
    ),
    Mutant(
        "unknown person sent as nobody",
        OUTBOX,
        "        if value is not None and person is None:\n",
        "        if False:\n",
        (FAKES, "-k", "unknown_person"),
    ),
    Mutant(
        "creation time's offset dropped",
        SYNC,
        "    if moment.tzinfo is None:\n",
        "    if True:\n",
        (SYNC_RULES, "-k", "with_an_offset"),
    ),
    Mutant(
        "first sync's progress untold",
        SYNC,
        "        if progress is not None:\n",
        "        if False:\n",
        (SYNC_RULES, "-k", "read_so_far"),
    ),
    Mutant(
        "rate limit waited past its patience",
        SYNC,
        'if exc.why != "busy" or waited >= patience_s:',
        'if exc.why != "busy" or waited > patience_s:',
        ("tests/test_helpdesk_rate_limits.py", "-k", "never_stops"),
    ),
    Mutant(
        "unlisted owner not among the people",
        SYNC,
        "        if ticket.assignee is not None and ticket.assignee not in known:\n",
        "        if False:\n",
        (SYNC_RULES, "-k", "missing_from_the_people"),
    ),
    Mutant(
        "first sync drops the owner",
        SYNC,
        "    assignee = person_id(kind, ticket.assignee) if ticket.assignee is not None else",
        "    assignee = None if ticket.assignee is not None else",
        (SYNC_RULES, "-k", "keeps_its_owner"),
    ),
    Mutant(
        "first sync keeps the helpdesk's tag order",
        SYNC,
        "ticket_tables.tags_text(sorted(ticket.tags))",
        "ticket_tables.tags_text(list(ticket.tags))",
        (SYNC_RULES, "-k", "keeps_its_owner"),
    ),
    Mutant(
        "empty template offered",
        SYNC,
        "            if t.body.strip()\n",
        "",
        (SYNC_RULES, "-k", "no_reply_text"),
    ),
    Mutant(
        "sync after forgetting writes",
        SYNC,
        "    if link is None:\n        return Applied()\n",
        "",
        (FAKES, "-k", "forgotten"),
    ),
    Mutant(
        "sync's cursor not kept",
        SYNC,
        "        hd.set_cursor(conn, cursor)\n",
        "",
        (FAKES, "-k", "counts_the_tickets"),
    ),
    Mutant(
        "sync leaves the link quiet",
        SYNC,
        "        hd.set_quiet(conn, False)\n",
        "        pass\n",
        (FAKES, "-k", "after_a_sync"),
    ),
    Mutant(
        "arrived ticket not linked",
        SYNC,
        '        hd.map_ids(conn, "ticket", [(console, ticket.remote_id)])\n',
        "",
        (FAKES, "-k", "arrived_in_a_sync"),
    ),
    Mutant(
        "arrived ticket's base not kept",
        SYNC,
        "        hd.write_seen(conn, console, ticket)\n        applied.arrived += 1\n",
        "        applied.arrived += 1\n",
        (FAKES, "-k", "arrived_in_a_sync"),
    ),
    Mutant(
        "arrival not counted",
        SYNC,
        "        applied.arrived += 1\n",
        "",
        (FAKES, "-k", "counts_the_tickets"),
    ),
    Mutant(
        "helpdesk's owner stored as its own id",
        SYNC,
        'theirs: Any = assignee if name == "assignee" else ticket.value(name)',
        "theirs: Any = ticket.value(name)",
        (FAKES, "-k", "owner_set"),
    ),
    Mutant(
        "zendesk's solved overwrites closed",
        SYNC,
        "same = _plain(name, reads_back(name, mine)) == _plain(name, theirs)",
        "same = _plain(name, mine) == _plain(name, theirs)",
        (FAKES, "-k", "zendesk_calls"),
    ),
    Mutant(
        "roll call reads past its checks",
        SYNC,
        "key=lambda r: (len(r), r))[:checks]",
        "key=lambda r: (len(r), r))",
        (SYNC_RULES, "-k", "roll_call"),
    ),
    Mutant(
        "roll call reads the highest numbers first",
        SYNC,
        "key=lambda r: (len(r), r))[:checks]",
        "key=lambda r: r)[:checks]",
        (SYNC_RULES, "-k", "roll_call"),
    ),
    Mutant(
        "ticket hidden from the sign-in kept",
        SYNC,
        'gone.append(Departure(remote, "moved"))  # into a queue',
        "pass  # into a queue",
        (SYNC_RULES, "-k", "roll_call"),
    ),
    Mutant(
        "sign-in refused drops the ticket",
        SYNC,
        "        except SignInError:\n            raise\n",
        '        except SignInError:\n            gone.append(Departure(remote, "moved"))\n',
        (SYNC_RULES, "-k", "roll_call"),
    ),
    Mutant(
        "helpdesk's new subject not taken",
        SYNC,
        "        _retext(conn, console, ticket)\n",
        "",
        (FAKES, "-k", "counts_the_tickets"),
    ),
    Mutant(
        "synced value not the next change's base",
        SYNC,
        "    if not busy:\n        hd.write_seen(conn, console, ticket)\n",
        "",
        (FAKES, "-k", "brought_in"),
    ),
    Mutant(
        "new subject not searchable",
        SYNC,
        '        "UPDATE ticket_hay SET hay = ? WHERE n = ?",',
        '        "SELECT ?, ?",',
        (FAKES, "-k", "counts_the_tickets"),
    ),
    Mutant(
        "owner new to the queue not among its people",
        SYNC,
        '        assignees.append({"id": console, "name": remote})\n',
        "",
        (FAKES, "-k", "new_to_the_queue"),
    ),
    Mutant(
        "text change not counted",
        SYNC,
        "        applied.retext += 1\n",
        "",
        (FAKES, "-k", "counts_the_tickets"),
    ),
    # --- the person's undo and redo, and a change that changes nothing ---------------------
    Mutant(
        "undo first change first",
        HISTORY,
        "order = list(reversed(range(len(entry.changes))))",
        "order = list(range(len(entry.changes)))",
        (UNDO, "-k", "last_step_first"),
    ),
    Mutant(
        "redo in undo's order",
        HISTORY,
        "entry.undone_changes = [entry.changes[i] for i in sorted(applied)]",
        "entry.undone_changes = [entry.changes[i] for i in applied]",
        (UNDO, "-k", "last_step_first"),
    ),
    Mutant(
        "a new change keeps the redo",
        HISTORY,
        "        self._undone.clear()\n",
        "",
        (UNDO, "-k", "ends_the_redo"),
    ),
    Mutant(
        "toast's Undo takes the last change",
        HISTORY,
        "                return self._done.pop(i)\n",
        "                return self._done.pop()\n",
        (UNDO, "-k", "toasts_undo"),
    ),
    Mutant(
        "toast's Undo takes the oldest change",
        HISTORY,
        "            if entry.seq == seq:\n",
        "            if True:\n",
        (UNDO, "-k", "from_among_several"),
    ),
    Mutant(
        "undo of nothing hides the redo",
        HISTORY,
        "        if entry.undone_changes:\n",
        "        if True:\n",
        (UNDO, "-k", "takes_nothing_back"),
    ),
    Mutant(
        "redo of nothing hides the undo",
        HISTORY,
        "        if entry.changes:\n",
        "        if True:\n",
        (UNDO, "-k", "puts_nothing_back"),
    ),
    Mutant(
        "a tag's undo takes the tag for the value",
        "understudy_desktop/model/commands.py",
        '        if self.op == "set":\n',
        "        if True:\n",
        (UNDO, "-k", "tag_on_every"),
    ),
    Mutant(
        "unassigning refused",
        "understudy_desktop/model/commands.py",
        "    if person is None:\n        return None\n    if not any(",
        "    if not any(",
        ("tests/test_model.py", "-k", "say_who"),
    ),
    Mutant(
        "only a queue of one person can be assigned",
        "understudy_desktop/model/commands.py",
        '    if not any(a.get("id") == person for a in ctx.people.assignees):',
        '    if not all(a.get("id") == person for a in ctx.people.assignees):',
        ("tests/test_model.py", "-k", "say_who"),
    ),
    Mutant(
        "filter answers nothing",
        "understudy_desktop/model/commands.py",
        "    if not ctx.want_result:\n        return Applied(None)\n    matched, ids",
        "    if True:\n        return Applied(None)\n    matched, ids",
        ("tests/test_model.py", "-k", "first_twenty"),
    ),
    Mutant(
        "filter answers one match more",
        "understudy_desktop/model/commands.py",
        "tables.first_matching(ctx.conn, ctx.view.filter, 20, ctx.searches)",
        "tables.first_matching(ctx.conn, ctx.view.filter, 21, ctx.searches)",
        ("tests/test_model.py", "-k", "first_twenty"),
    ),
    Mutant(
        "filter's more goes below nothing",
        "understudy_desktop/model/commands.py",
        '"more": max(0, matched - 20)',
        '"more": matched - 20',
        ("tests/test_model.py", "-k", "first_twenty"),
    ),
    Mutant(
        "tag a ticket has added again",
        "understudy_desktop/model/commands.py",
        '    if p["tag"] in ticket.tags:\n',
        "    if False:\n",
        ("tests/test_model.py", "-k", "tag_a_ticket_has"),
    ),
    Mutant(
        "removing a tag takes the others",
        "understudy_desktop/model/commands.py",
        'tags = [t for t in ticket.tags if t != p["tag"]]',
        'tags = [t for t in ticket.tags if t == p["tag"]]',
        ("tests/test_model.py", "-k", "that_tag_alone"),
    ),
    Mutant(
        "every template refused",
        "understudy_desktop/model/commands.py",
        "    if template is None:\n",
        "    if True:\n",
        ("tests/test_model.py", "-k", "becomes_the_reply"),
    ),
    Mutant(
        "every match given to a stranger",
        "understudy_desktop/model/commands.py",
        'value = _assignee(ctx, p[name]) if name == "assignee" else p[name]',
        "value = p[name]",
        ("tests/test_model.py", "-k", "not_on_the_queue"),
    ),
    Mutant(
        "set-based change of nothing written",
        "understudy_desktop/model/commands.py",
        'writes = [Write(name, value, ids, "set", before)] if ids else []',
        'writes = [Write(name, value, ids, "set", before)]',
        ("tests/test_model.py", "-k", "what_every_match"),
    ),
    Mutant(
        "page told to remove a tag added",
        "understudy_desktop/model/commands.py",
        'op: WriteOp = "add_tag" if add else "remove_tag"',
        'op: WriteOp = "remove_tag"',
        ("tests/test_model.py", "-k", "tells_the_page"),
    ),
    Mutant(
        "tag on no ticket written",
        "understudy_desktop/model/commands.py",
        '        if not ids:\n            return Applied({"matched": matched, "changed": 0})\n',
        "",
        ("tests/test_model.py", "-k", "what_every_match"),
    ),
    Mutant(
        "undo keeps one change more",
        HISTORY,
        "del self._done[:-KEEP]",
        "del self._done[: -KEEP - 1]",
        (UNDO, "-k", "step_back_through"),
    ),
    Mutant(
        "undo keeps one change fewer",
        HISTORY,
        "del self._done[:-KEEP]",
        "del self._done[: -KEEP + 1]",
        (UNDO, "-k", "step_back_through"),
    ),
    Mutant(
        "no change noted for undo",
        HISTORY,
        "        if not changes:\n            return\n",
        "        if False:\n            return\n",
        (UNDO, "-k", "changes_nothing"),
    ),
    Mutant(
        "unchanged value is a change",
        "understudy_desktop/model/commands.py",
        "    if before == value:\n        return []\n",
        "    if False:\n        return []\n",
        (UNDO, "-k", "changes_nothing"),
    ),
    Mutant(
        "set-based change rewrites equal values",
        "understudy_desktop/model/tables.py",
        'differs = f"ticket_fields.{field} IS NOT ?"',
        'differs = "? IS NOT NULL"',
        (UNDO, "-k", "only_the_tickets_it_changes"),
    ),
    Mutant(
        "set-based tag added where it is",
        "understudy_desktop/model/tables.py",
        'f"UPDATE ticket_fields SET tags = {_ADD_TAG} WHERE NOT {has}"',
        'f"UPDATE ticket_fields SET tags = {_ADD_TAG} WHERE 1"',
        (UNDO, "-k", "only_the_tickets_it_changes"),
    ),
    # --- the caps on set-based changes --------------------------------------------------------
    Mutant(
        "set-based tag past a full ticket",
        "understudy_desktop/model/tables.py",
        "json_array_length(ticket_fields.tags) < {MAX_TAGS}",
        "json_array_length(ticket_fields.tags) <= {MAX_TAGS}",
        (CAPS, "-k", "full_ticket"),
    ),
    Mutant(
        "one more tag on a full ticket",
        "understudy_desktop/model/commands.py",
        "if len(ticket.tags) >= tables.MAX_TAGS:",
        "if len(ticket.tags) > tables.MAX_TAGS:",
        (CAPS, "-k", "one_more_tag"),
    ),
    Mutant(
        "selection takes one ticket more",
        "understudy_desktop/bridge/protocol.py",
        "max_length=rules().limits.selectionTickets",
        "max_length=rules().limits.selectionTickets + 1",
        (CAPS, "-k", "selection"),
    ),
    # --- the team: the rules in force, version numbers, the review gate, trust kept ------
    Mutant(
        "team rules ordered by their date",
        "understudy_desktop/team/leads.py",
        "    for sequence in sorted({f.info.sequence for f in signed}):\n"
        "        versions = [b for b in bodies.values() if b[0].info.sequence == sequence]\n",
        "    for sequence in sorted({when(f.created).timestamp() for f in signed}):\n"
        "        versions = [b for b in bodies.values() if when(b[0].created).timestamp() == "
        "sequence]\n",
        (TRUST, "-k", "rules_number"),
    ),
    Mutant(
        "oldest team rules in force",
        "understudy_desktop/team/leads.py",
        "    for sequence in sorted({f.info.sequence for f in signed}):\n",
        "    for sequence in sorted({f.info.sequence for f in signed}, reverse=True):\n",
        (TRUST, "-k", "rules_number"),
    ),
    Mutant(
        "moved lead's old key still rules",
        "understudy_desktop/team/leads.py",
        "    root = next((k for k in reversed(chain) if k in signers), chain[-1])",
        "    root = next((k for k in chain if k in signers), chain[-1])",
        ("tests/test_team_adversary.py", "-k", "lead_who_moved"),
    ),
    Mutant(
        "lead's second move not followed",
        INBOX,
        "    while chain and chain[-1] in successor",
        "    if chain and chain[-1] in successor",
        ("tests/test_team_adversary.py", "-k", "moved_twice"),
    ),
    Mutant(
        "tool listed twice counted twice",
        INBOX,
        "            if (c.sharedBy, c.tool) in seen:\n",
        "            if False:\n",
        ("tests/test_team_signing.py", "-k", "listed_twice"),
    ),
    Mutant(
        "someone who never ran it counted",
        INBOX,
        "before.people + (1 if c.runs else 0)",
        "before.people + 1",
        ("tests/test_team_signing.py", "-k", "never_ran"),
    ),
    Mutant(
        "first withdrawal kept over a later one",
        INBOX,
        "if pair not in out or when(info.created) > when(out[pair]):",
        "if pair not in out:",
        ("tests/test_team_signing.py", "-k", "latest_withdrawal"),
    ),
    Mutant(
        "withdrawal in the same second misses",
        INBOX,
        "when(stopped) >= when(latest.created)",
        "when(stopped) > when(latest.created)",
        ("tests/test_team_signing.py", "-k", "second_a_version"),
    ),
    Mutant(
        "review of another version counts",
        INBOX,
        "for k in reviewed.get(file.digest, set()) if",
        "for k in set().union(*reviewed.values()) if",
        (TRUST, "-k", "one_version"),
    ),
    Mutant(
        "shared version forgets what was seen",
        "understudy_desktop/team/library_service.py",
        'pack["teamVersion"] = max(version, seen) + 1',
        'pack["teamVersion"] = version + 1',
        ("tests/test_team_library.py", "-k", "after_the_file_was_deleted"),
    ),
    Mutant(
        "shared version not numbered up",
        "understudy_desktop/team/library_service.py",
        'pack["teamVersion"] = max(version, seen) + 1',
        'pack["teamVersion"] = max(version, seen, 1)',
        ("tests/test_team_library.py", "-k", "after_the_file_was_deleted"),
    ),
    Mutant(
        "an accept's trust not written",
        "understudy_desktop/shell/pack_actions.py",
        "                TeamDecisions.write_trust(conn, trusting.key, trusting.author)\n",
        "                pass\n",
        ("tests/test_team_library.py", "-k", "records_its_trust"),
    ),
    Mutant(
        "an accept's version not noted",
        "understudy_desktop/shell/pack_actions.py",
        "            if shared is not None:\n                # Accepted, in the same transaction",
        "            if False:\n                # Accepted, in the same transaction",
        ("tests/test_team_library.py", "-k", "records_its_trust"),
    ),
    Mutant(
        "an import without its approval",
        PACK_ACTIONS,
        "        if granted is None:\n",
        "        if False:\n",
        ("tests/test_packs_in_app.py", "-k", "granted_nothing"),
    ),
    Mutant(
        "a pack past the cap imported",
        PACK_ACTIONS,
        "        if problem:\n            self._fail",
        "        if False:\n            self._fail",
        ("tests/test_packs_in_app.py", "-k", "pass_the_cap"),
    ),
    Mutant(
        "a --yes import trusts its signer",
        PACK_ACTIONS,
        "            trust = provenance if provenance.team_file else None\n",
        "            trust = provenance\n",
        ("tests/test_packs_in_app.py", "-k", "command_line_trusts"),
    ),
    Mutant(
        "a refused import said as done",
        PACK_ACTIONS,
        "            if err is not None:\n                self._fail",
        "            if False:\n                self._fail",
        ("tests/test_packs_in_app.py", "-k", "library_refuses"),
    ),
    Mutant(
        "the pack author's name uncut",
        PACK_ACTIONS,
        "            self._settings.set(AUTHOR_NAME, name.strip()[: rules().limits.authorName])\n",
        "            self._settings.set(AUTHOR_NAME, name.strip())\n",
        ("tests/test_packs_in_app.py", "-k", "kept_to_its_limit"),
    ),
    Mutant(
        "a tool not offered can be taken",
        TEAM_SERVICE,
        '        if not (item.offered or item.state == "declined"):\n            return\n',
        "",
        ("tests/test_team_library.py", "-k", "withdrawal_propagates"),
    ),
    Mutant(
        "an update takes another tool's place",
        PACK_ACTIONS,
        '            pack["tools"][0]["name"] = provenance.update_of\n',
        "            pass\n",
        ("tests/test_team_library.py", "-k", "no_other_of_its_name"),
    ),
    Mutant(
        "a withdrawn tool stays on here",
        TEAM_SERVICE,
        "        self._library.hold_back(here.local_name, reason, lambda _err: None, held=why)\n",
        "        pass\n",
        ("tests/test_team_library.py", "-k", "withdrawal_propagates"),
    ),
    Mutant(
        "a distrusted author's tools stay on",
        TEAM_SERVICE,
        "        for tool in off:\n            self._library.disable(tool, lambda _e: None)\n",
        "",
        ("tests/test_team_library.py", "-k", "stop_trusting"),
    ),
    Mutant(
        "distrust leaves the person's other key",
        TEAM_SERVICE,
        "        for one in sorted(keys - {key}):\n            self.decisions.distrust(one)\n",
        "",
        ("tests/test_team_lead.py", "-k", "vouched"),
    ),
    Mutant(
        "a tool turned back on runs unreviewed",
        TEAM_SERVICE,
        "            self._library.hold_back(\n                here.local_name,\n"
        '                "your team lead turned it back on',
        "            (\n                here.local_name,\n"
        '                "your team lead turned it back on',
        ("tests/test_team_lead.py", "-k", "leads_rules"),
    ),
    Mutant(
        "a sent change not marked sent",
        OUTBOX,
        "lambda conn: hd.mark_sent(conn, out, out.ticket, after)",
        "lambda conn: None",
        (FAKES, "-k", "sent_once"),
    ),
    Mutant(
        "a conflict not marked",
        OUTBOX,
        "lambda conn: hd.mark_conflict(conn, out, theirs, after, out.ticket)",
        "lambda conn: None",
        (FAKES, "-k", "meanwhile_is_not_overwritten"),
    ),
    Mutant(
        "a sync reads its first page forever",
        SYNC,
        "        cursor = page.cursor\n        if progress",
        "        if progress",
        (FAKES, "-k", "queue_comes_from"),
    ),
    Mutant(
        "a sync never sees its last page",
        SYNC,
        "        if not page.more:\n            break\n    return first_from",
        "    return first_from",
        (FAKES, "-k", "queue_comes_from"),
    ),
    Mutant(
        "trust not kept past a restart",
        "understudy_desktop/team/trust.py",
        "        self._write(lambda conn: self.write_trust(conn, key, name, vouched), apply, done)",
        "        self._write(lambda conn: None, apply, done)",
        (TRUST, "-k", "trusted_key_is_kept"),
    ),
    Mutant(
        "trusted name kept uncut",
        "understudy_desktop/team/trust.py",
        '            (key, name[:AUTHOR], time.time(), "vouched" if vouched else "direct"),\n',
        '            (key, name, time.time(), "vouched" if vouched else "direct"),\n',
        (TRUST, "-k", "trusted_key_is_kept"),
    ),
    Mutant(
        "an edited kept file believed",
        "understudy_desktop/team/trust.py",
        '            if found.verdict == "signed":\n                self._kept',
        "            if True:\n                self._kept",
        ("tests/test_team_adversary.py", "-k", "kept_documents"),
    ),
    Mutant(
        "an unsigned file kept",
        "understudy_desktop/team/trust.py",
        '            if f.verdict == "signed"\n        ]',
        "        ]",
        ("tests/test_team_adversary.py", "-k", "kept_documents"),
    ),
    Mutant(
        "kept files without a ceiling",
        "understudy_desktop/team/trust.py",
        "            room = KEEP_MOST - len(self._kept)\n",
        "            room = len(files)\n",
        ("tests/test_team_adversary.py", "-k", "flooded"),
    ),
    Mutant(
        "a kept row of any kind read back",
        "understudy_desktop/team/trust.py",
        "            if kind not in KEPT_KINDS:\n",
        "            if False:\n",
        ("tests/test_team_adversary.py", "-k", "flooded"),
    ),
    # --- the lead's word over time (issue 48) -------------------------------------------------
    Mutant(
        "a confirmation never runs out",
        FRESH,
        "    live = [f for f in newest.values() if runs_out(f.info) >= moment]",
        "    live = list(newest.values())",
        (FRESH_TESTS, "-k", "ran_out"),
    ),
    Mutant(
        "a confirmation lasts as long as it says",
        FRESH,
        "    return min(when(info.expires), when(info.created) + timedelta(seconds=_FRESH."
        "maxSeconds))",
        "    return when(info.expires)",
        (FRESH_TESTS, "-k", "lasts_no_longer"),
    ),
    Mutant(
        "rules kept from a copy go unnoticed",
        FRESH,
        "        if info.rules and info.rules not in present:\n",
        "        if False:\n",
        (FRESH_TESTS, "-k", "rules_named_but_kept"),
    ),
    Mutant(
        "a withdrawal kept from a copy goes unnoticed",
        FRESH,
        "        missing_other += sum(1 for d in info.named if d not in present and d != "
        "info.rules)",
        "        missing_other += 0",
        (FRESH_TESTS, "-k", "withdrawal_named"),
    ),
    Mutant(
        "no time for named files to arrive",
        FRESH,
        "        if now - (file.seen or now) < _FRESH.arrivalGraceSeconds:\n",
        "        if False:\n",
        (FRESH_TESTS, "-k", "rules_named_but_kept"),
    ),
    Mutant(
        "anyone's confirmation counts",
        FRESH,
        "        and f.key in signers\n",
        "",
        (FRESH_TESTS, "-k", "only_the_leads_key"),
    ),
    Mutant(
        "the oldest confirmation counts",
        FRESH,
        "    found.sort(key=lambda f: (f.info.sequence, when(f.created), f.name), reverse=True)",
        "    found.sort(key=lambda f: (f.info.sequence, when(f.created), f.name))",
        (FRESH_TESTS, "-k", "only_the_leads_key"),
    ),
    Mutant(
        "a lead who never confirms is never said",
        FRESH,
        "        if heard and now - min(heard) < _FRESH.arrivalGraceSeconds:",
        "        if True:",
        (FRESH_TESTS, "-k", "never_confirmed"),
    ),
    Mutant(
        "the lead's choice to pause ignored",
        FRESH,
        '    pause = policy is not None and policy.whenUnconfirmed == "pause"',
        "    pause = False",
        (FRESH_TESTS, "-k", "decide_whether_team_tools_pause"),
    ),
    Mutant(
        "the lead warned of their own word",
        FRESH,
        "    if leads & me:\n",
        "    if False:\n",
        (FRESH_TESTS, "-k", "not_warned_about_their_own"),
    ),
    Mutant(
        "a change not confirmed until the schedule",
        CONFIRMING,
        "    if (info.rules, tuple(sorted(info.named))) != (want.rules, want.named):\n",
        "    if False:\n",
        (FRESH_TESTS, "-k", "confirms_again"),
    ),
    Mutant(
        "never confirmed again on a schedule",
        CONFIRMING,
        "    return now - signed >= want.lifetime_s / _FRESH.renewDivisor",
        "    return False",
        (FRESH_TESTS, "-k", "confirms_again"),
    ),
    Mutant(
        "a throwaway key's withdrawals swell each confirmation",
        CONFIRMING,
        "    keys = counted | authors\n",
        "    keys = {f.key for f in scan.files}\n",
        (FRESH_TESTS, "-k", "confirms_again"),
    ),
    Mutant(
        "every old confirmation left in the folder",
        CONFIRMING,
        "    return confirmations(scan, mine)[_FRESH.keptPerSigner :]",
        "    return []",
        (FRESH_TESTS, "-k", "keeps_only_its_newest"),
    ),
    Mutant(
        "a reworded question is another tool",
        "understudy_desktop/team/fingerprint.py",
        '                fields[field] = {"answer": place, "kind": _kind(properties.get(name))}',
        '                fields[field] = {"answer": name, "kind": _kind(properties.get(name))}',
        (FRESH_TESTS, "-k", "ignores_its_wording"),
    ),
    Mutant(
        "a question's kind left out of what a tool does",
        "understudy_desktop/team/fingerprint.py",
        '                fields[field] = {"answer": place, "kind": _kind(properties.get(name))}',
        '                fields[field] = {"answer": place}',
        (FRESH_TESTS, "-k", "ignores_its_wording"),
    ),
    Mutant(
        "a reworded copy of a turned-off tool offered",
        INBOX,
        "        or (latest.does and latest.does in c.off_steps)\n",
        "",
        (FRESH_TESTS, "-k", "stays_off_reworded"),
    ),
    Mutant(
        "the lead's revocation settles no dispute",
        INBOX,
        "        left = news - lead_revoked\n",
        "        left = set(news)\n",
        (FRESH_TESTS, "-k", "until_the_lead_settles"),
    ),
    Mutant(
        "a member's own trust settles no dispute",
        INBOX,
        "        if len(left) > 1 and len(left & direct) == 1:\n",
        "        if False:\n",
        (FRESH_TESTS, "-k", "trusts_the_new_key_directly"),
    ),
    Mutant(
        "a vouched key settles a dispute",
        INBOX,
        "    direct = d.direct & frozenset(d.trusted)\n",
        "    direct = frozenset(d.trusted)\n",
        (FRESH_TESTS, "-k", "trusts_the_new_key_directly"),
    ),
    Mutant(
        "a revoked key's accepted tool still current",
        INBOX,
        '    if key and key in c.lead_revoked:\n        return "lead_revoked"',
        '    if False:\n        return "lead_revoked"',
        (FRESH_TESTS, "-k", "revokes_stops"),
    ),
    Mutant(
        "a revoked key's tools run on",
        INBOX,
        'i for i in d.keyed if i.key in c.lead_revoked and i.held != "key_revoked"]',
        "i for i in d.keyed if False]",
        (FRESH_TESTS, "-k", "revokes_stops"),
    ),
    Mutant(
        "the lead's tools not the team's under their list",
        INBOX,
        "        publishers |= set(chain)\n",
        "        publishers |= set()\n",
        (FRESH_TESTS, "-k", "leads_own_tools"),
    ),
    Mutant(
        "a hand-over nobody countersigned in the history",
        HISTORY_FILE,
        "        if info.authorKey != file.key or not countersigned(info) or file.key in "
        "s.lead_revoked:",
        "        if info.authorKey != file.key or file.key in s.lead_revoked:",
        (FRESH_TESTS, "-k", "never_countersigned"),
    ),
    Mutant(
        "an old key's acts said as its owner's",
        HISTORY_FILE,
        "        if since is not None and not settled and not (file.seen and since and "
        "file.seen < since):",
        "        if False:",
        (FRESH_TESTS, "-k", "after_its_hand_over"),
    ),
    Mutant(
        "a paused team tool runs",
        MAY_RUN,
        "    if state.paused:\n",
        "    if False:\n",
        (FRESH_TESTS, "-k", "refused_in_words"),
    ),
    Mutant(
        "a revoked key's tool told it changed",
        MAY_RUN,
        'state.held == "key_revoked"',
        'state.held == "revoked"',
        (FRESH_TESTS, "-k", "refused_in_words"),
    ),
    Mutant(
        "an invitation code read only as written",
        "understudy_desktop/team/invitation.py",
        '    text = "".join(typed.split()).replace("-", "").upper().translate(_READ_AS)',
        '    text = typed.replace("-", "")',
        (FRESH_TESTS, "-k", "however_it_was_typed"),
    ),
    Mutant(
        "an invitation for another key believed",
        "understudy_desktop/team/invitation.py",
        '    if re.fullmatch(HEX_KEY, key) is None or document.get("code") != code_of(key):',
        "    if re.fullmatch(HEX_KEY, key) is None:",
        (FRESH_TESTS, "-k", "edited_one_is_refused"),
    ),
    Mutant(
        "several keys with one name not warned",
        "understudy_desktop/team/lead_choice.py",
        "            others=sum(1 for k, n in shown.items() if k != key and n and "
        "names.alike(n, name)),",
        "            others=0,",
        (FRESH_TESTS, "-k", "newcomers_list"),
    ),
    Mutant(
        "a rule deleted as it lands stays deleted",
        "understudy_desktop/team/view_work.py",
        "        if f.name not in present\n",
        "        if False\n",
        (OVER_TIME, "-k", "deleted_as_it_lands"),
    ),
    Mutant(
        "an agent not told the rules are unconfirmed",
        CALLS,
        '        warning = self.library.team_warning if tool.origin.by == "team" else ""',
        '        warning = ""',
        (OVER_TIME, "-k", "letting_tools_run"),
    ),
    Mutant(
        "one lead's signature enough when two are needed",
        "understudy_desktop/team/leads.py",
        "            if len(by) >= threshold:\n",
        "            if by:\n",
        (FRESH_TESTS, "-k", "once_both_signed"),
    ),
    Mutant(
        "a stranger's signature counts toward the leads'",
        "understudy_desktop/team/leads.py",
        "            by = {f.key for f in version} & leads\n",
        "            by = {f.key for f in version}\n",
        (FRESH_TESTS, "-k", "once_both_signed"),
    ),
    Mutant(
        "only the first lead's confirmations count",
        INBOX,
        "set(view.rules.leads), c.me",
        "set(view.chain[-1:]), c.me",
        (FRESH_TESTS, "-k", "while_one_lead_is_away"),
    ),
    Mutant(
        "a team tool accepted without the preview trusts nobody",
        PACK_ACTIONS,
        "            trust = provenance if provenance.team_file else None\n",
        "            trust = None\n",
        (OVER_TIME, "-k", "without_the_preview"),
    ),
    Mutant(
        "the lead's schedule waits for the folder to change",
        TEAM_SERVICE,
        "        return self._clock() >= self._next_look\n",
        "        return False\n",
        (OVER_TIME, "-k", "folder_stays_still"),
    ),
    # --- the console's scheme ----------------------------------------------------------------
    Mutant(
        "file types from the platform's table",
        SCHEME,
        "    if known:\n        return known\n",
        "",
        ("tests/test_console_boot.py", "-k", "one_type_on_every"),
    ),
    Mutant(
        "unknown file type served as nothing",
        SCHEME,
        'return guessed or "application/octet-stream"',
        "return guessed",
        ("tests/test_console_boot.py", "-k", "one_type_on_every"),
    ),
    Mutant(
        "scheme serves any host",
        SCHEME,
        'if url.host() != HOST or method not in ("GET", "HEAD"):',
        'if method not in ("GET", "HEAD"):',
        ("tests/test_console_boot.py", "-k", "own_host"),
    ),
    Mutant(
        "scheme takes any method",
        SCHEME,
        'if url.host() != HOST or method not in ("GET", "HEAD"):',
        "if url.host() != HOST:",
        ("tests/test_console_boot.py", "-k", "own_host"),
    ),
    Mutant(
        "scheme follows a link out",
        SCHEME,
        "if not resolved.is_relative_to(root.resolve()) or not resolved.is_file():",
        "if not resolved.is_file():",
        ("tests/test_console_boot.py", "-k", "symlinks_that_leave"),
    ),
    # --- the approval's warnings -------------------------------------------------------------
    Mutant(
        "many tickets at once unsaid",
        WORDING,
        "    if many:\n",
        "    if False:\n",
        (WORDS, "-k", "many_tickets"),
    ),
    Mutant(
        "a read said to change tickets",
        WORDING,
        "if info is not None and info.mutates and info.title not in titles:",
        "if info is not None and info.title not in titles:",
        (WORDS, "-k", "only_reads"),
    ),
    Mutant(
        "optional question not said so",
        WORDING,
        'out.append(f"• {text}" + ("" if name in required else " (optional)"))',
        'out.append(f"• {text}")',
        (WORDS, "-k", "left_out"),
    ),
    Mutant(
        "changed step shown unchanged",
        WORDING,
        'lines.append(f"{a}" if a == b else f"{a}\\n   → now: {b.split(\'. \', 1)[-1]}")',
        'lines.append(f"{a}")',
        (WORDS, "-k", "before_and_now"),
    ),
    Mutant(
        "changed description not shown",
        WORDING,
        "    if was != new.description:\n",
        "    if False:\n",
        (WORDS, "-k", "before_and_now"),
    ),
    Mutant(
        "a carried value worded as asked",
        WORDING,
        '        return words.get("same", f"the same {field}")\n',
        '        return words.get("asked", f"the {field} you choose")\n',
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "an asked value worded as fixed",
        WORDING,
        "    if spec is None or isinstance(spec, ParamArg):\n",
        "    if spec is None:\n",
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "a long fixed value shown whole",
        WORDING,
        '        shown = text if len(text) <= 60 else text[:60] + "…"\n',
        "        shown = text\n",
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "an empty fixed filter worded",
        WORDING,
        'if isinstance(spec, ConstArg) and spec.value in ("", None):\n            continue\n',
        "if False:\n            continue\n",
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "a search's asks worded one by one",
        WORDING,
        "    grouped = len(asked) > 1\n",
        "    grouped = False\n",
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "nobody worded as an id",
        WORDING,
        '    elif value is None or value == UNASSIGNED:\n        shown = "nobody"\n',
        "",
        (WORDS, "-k", "asked_carried_or_fixed"),
    ),
    Mutant(
        "a run's person shown by id",
        WORDING,
        '        ref = {"name": hit["name"]} if hit is not None and hit["name"] else None\n',
        "        ref = None\n",
        (WORDS, "-k", "said_by_name"),
    ),
    Mutant(
        "an unreadable tool worded as empty",
        WORDING,
        '    if definition is None:\n        return (("What it does", UNREADABLE),)\n',
        "",
        (WORDS, "-k", "does_not_read"),
    ),
    Mutant(
        "a removed step not shown going",
        WORDING,
        '        b = after[i] if i < len(after) else "(none)"\n',
        "        b = after[i] if i < len(after) else a\n",
        (WORDS, "-k", "removes"),
    ),
    Mutant(
        "an unchanged description not shown",
        WORDING,
        "    elif always_description:\n",
        "    elif False:\n",
        (WORDS, "-k", "before_and_now"),
    ),
    Mutant(
        "a consent granted without the dialog",
        "understudy_desktop/consent/ledger.py",
        "        if not isinstance(approval, DialogApproval):\n",
        "        if False:\n",
        ("tests/test_consent.py",),
    ),
    # --- every limit read from rules.json ---------------------------------------------------
    Mutant(
        "consent lifetime copied into code",
        "understudy_desktop/consent/ledger.py",
        "CONSENT_TTL_S = rules().consentTtlSeconds",
        "CONSENT_TTL_S = 120.0",
        LIMITS,
    ),
    Mutant(
        "output budget copied into code",
        "understudy_desktop/agent/results.py",
        "OUTPUT_BUDGET = rules().budgets.output",
        "OUTPUT_BUDGET = 1500",
        LIMITS,
    ),
    Mutant(
        "approval hold copied into code",
        CALLS,
        "self.approval_hold_s = float(rules().approvalHoldSeconds)",
        "self.approval_hold_s = 45.0",
        LIMITS,
    ),
    Mutant(
        "recording length copied into code",
        "understudy_desktop/model/teaching.py",
        "MAX_STEPS = rules().limits.recordingSteps",
        "MAX_STEPS = 200",
        LIMITS,
    ),
    Mutant(
        "cap at publish copied into code",
        LIBRARY,
        "        cap = rules().maxTaughtTools\n        if adding and",
        "        cap = 16\n        if adding and",
        LIMITS,
    ),
    Mutant(
        "cap at turn on copied into code",
        LIBRARY,
        "        cap = rules().maxTaughtTools\n\n        def write(",
        "        cap = 16\n\n        def write(",
        LIMITS,
    ),
    Mutant(
        "cap on import copied into code",
        "understudy_desktop/packs/adding.py",
        "    cap = rules().maxTaughtTools\n",
        "    cap = 16\n",
        LIMITS,
    ),
)


def check_list(mutants: tuple[Mutant, ...]) -> list[str]:
    """Problems with the list itself: a mutant whose text is not found exactly once would
    change nothing (or the wrong place), and so prove nothing."""
    problems = []
    for m in mutants:
        found = (ROOT / m.file).read_text(encoding="utf-8").count(m.old)
        if found != 1:
            problems.append(f"{m.name}: its text is found {found} times in {m.file}")
        if m.old == m.new:
            problems.append(f"{m.name}: changes nothing")
    return problems


def copy_project(into: Path) -> Path:
    """The tracked files (and the page's npm packages, which tests may read) in `into`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for raw in listed:
        if not raw:
            continue
        rel = Path(os.fsdecode(raw))
        source = ROOT / rel
        if not source.is_file():
            continue
        (into / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, into / rel)
    # The page imports its npm packages at run time (tests that start the app need them).
    modules = ROOT / "web_assets" / "node_modules"
    if modules.is_dir():
        shutil.copytree(modules, into / "web_assets" / "node_modules", symlinks=True)
    return into


class Worker:
    """A warm pytest (tools/warm_pytest.py) in one copy of the project: it imports Qt and the
    other libraries once and forks a fresh pytest for each run (a run costs about 1 s, where a
    new process costs 3), the project imported anew each time from the files on disk."""

    def __init__(self, where: Path) -> None:
        env = dict(os.environ, PYTHONPATH=str(where), QT_QPA_PLATFORM="offscreen")
        self._process = subprocess.Popen(
            [sys.executable, str(where / "tools" / "warm_pytest.py")],
            cwd=where,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._lock = threading.Lock()

    def run(self, args: tuple[str, ...]) -> tuple[int, str]:
        assert self._process.stdin is not None and self._process.stdout is not None
        with self._lock:  # one run at a time per worker (one copy of the project)
            self._process.stdin.write(json.dumps(list(args)) + "\n")
            self._process.stdin.flush()
            line = self._process.stdout.readline()
        if not line:
            return 70, "the gate's worker ended"
        answer = json.loads(line)
        return int(answer["code"]), str(answer["output"])

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait(timeout=60)


_WORKERS: dict[Path, Worker] = {}


def run_tests(where: Path, args: tuple[str, ...]) -> tuple[bool, str]:
    worker = _WORKERS.get(where)
    if worker is None:
        worker = _WORKERS[where] = Worker(where)
    # The worker imported pytest's plugins before pytest could rewrite their asserts: said
    # once per run, and of no matter (the tests' own files are imported, and rewritten, anew).
    quiet = ("-W", "ignore::pytest.PytestAssertRewriteWarning")
    code, output = worker.run(("-x", "-q", "-p", "no:cacheprovider", *quiet, *args))
    lines = output.strip().splitlines()
    if code == -9:
        lines.append("its tests did not end in time (killed)")
    done_ok = code == 0
    # The failing tests by name (pytest's short summary), then its closing line.
    named = [line for line in lines if line.startswith(("FAILED ", "ERROR "))]
    return done_ok, "\n".join([*named, lines[-1]] if lines else named)


Result = tuple[Mutant, bool, str, float]  # the mutant, it survived, the last line, seconds


def try_mutant(where: Path, m: Mutant) -> Result:
    """Apply `m` in the copy `where`, run its tests, put the file back. True: it survived."""
    target = where / m.file
    original = target.read_text(encoding="utf-8")
    started = time.monotonic()
    target.write_text(original.replace(m.old, m.new, 1), encoding="utf-8")
    try:
        passed, last = run_tests(where, m.tests)
    finally:
        target.write_text(original, encoding="utf-8")
    return m, passed, last, time.monotonic() - started


def unmutated_runs(mutants: tuple[Mutant, ...]) -> list[tuple[str, ...]]:
    """At most two pytest runs covering every test any mutant runs: the files mutants run
    whole, and the others narrowed to what some mutant selects (-k expressions or-ed: a
    superset of each mutant's own selection, which is all the check needs)."""
    whole: dict[str, None] = {}
    narrowed: dict[str, list[str]] = {}
    for m in mutants:
        files = [a for a in m.tests if a.endswith(".py")]
        if "-k" in m.tests:
            expression = m.tests[m.tests.index("-k") + 1]
            for f in files:
                narrowed.setdefault(f, []).append(expression)
        else:
            whole.update(dict.fromkeys(files))
    runs = [tuple(whole)] if whole else []
    rest = {f: e for f, e in narrowed.items() if f not in whole}
    if rest:
        expressions = dict.fromkeys(e for exprs in rest.values() for e in exprs)
        runs.append((*rest, "-k", " or ".join(f"({e})" for e in expressions)))
    return runs


def gate(mutants: tuple[Mutant, ...], jobs: int) -> int:
    problems = check_list(mutants)
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="understudy-mutants-") as tmp:
        copies = [copy_project(Path(tmp) / f"copy{i}") for i in range(jobs)]
        try:
            return _gate_in(copies, mutants, jobs)
        finally:
            for copy in copies:
                worker = _WORKERS.pop(copy, None)
                if worker is not None:
                    worker.close()


def _gate_in(copies: list[Path], mutants: tuple[Mutant, ...], jobs: int) -> int:
    # The tests pass on the copy as it is: otherwise a failure would prove nothing.
    with ThreadPoolExecutor(jobs) as pool:
        checked = list(pool.map(run_tests, copies * 2, unmutated_runs(mutants)))
    for ok, last in checked:
        if not ok:
            print(f"the gate's tests fail without any mutant: {last}", file=sys.stderr)
            return 1
    lanes = [mutants[i::jobs] for i in range(jobs)]

    def run_lane(where: Path, lane: tuple[Mutant, ...]) -> list[Result]:
        return [try_mutant(where, m) for m in lane]

    with ThreadPoolExecutor(jobs) as pool:
        results = [r for lane in pool.map(run_lane, copies, lanes) for r in lane]
    survivors = [r for r in results if r[1]]
    print(f"{'mutant':<38} {'caught':<7} {'s':>5}  tests")
    for m, survived, _last, seconds in results:
        print(f"{m.name:<38} {'no' if survived else 'yes':<7} {seconds:5.1f}  {' '.join(m.tests)}")
    print(f"{len(results) - len(survivors)} of {len(results)} mutants caught")
    for m, _s, last, _t in survivors:
        print(f"SURVIVED: {m.name} ({m.file}): {last}", file=sys.stderr)
    return 1 if survivors else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", help="only these mutants (default: all)")
    parser.add_argument("--check-list", action="store_true", help="only check the list")
    parser.add_argument("--jobs", type=int, default=min(2, os.cpu_count() or 1))
    args = parser.parse_args()
    chosen = tuple(m for m in MUTANTS if not args.names or m.name in args.names)
    if args.names and len(chosen) != len(set(args.names)):
        print("no mutant by some of those names", file=sys.stderr)
        return 2
    if args.check_list:
        problems = check_list(chosen)
        print("\n".join(problems) or f"{len(chosen)} mutants, each found once")
        return 1 if problems else 0
    return gate(chosen, max(1, args.jobs))


if __name__ == "__main__":
    sys.exit(main())
