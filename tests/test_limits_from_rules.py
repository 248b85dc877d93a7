"""Every limit is read from rules.json: with other numbers in a copy of it, the app's limits
follow (how long an approval lasts, how long an agent waits for one, how much an agent is
handed, how many steps a recording keeps, how many tickets a selection takes, how long a
person's or a signer's name may be, how much of a ticket's text is kept, how many tools may
be active at import, at publish and at Turn on). A number copied from rules.json into the
code would still act on the old value here, and fail. tests/rules_probe.py measures each
one in a process of its own, since modules read the rules once, when they are imported."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from understudy_desktop.paths import web_assets_dir

PROBE = Path(__file__).with_name("rules_probe.py")

# Each limit set to a number nothing in the code has reason to hold.
CHANGED: dict[tuple[str, ...], int] = {
    ("consentTtlSeconds",): 77,
    ("approvalHoldSeconds",): 33,
    ("budgets", "output"): 1234,
    ("limits", "recordingSteps"): 7,
    ("limits", "selectionTickets"): 9,
    ("limits", "personName"): 17,
    ("limits", "ticketBody"): 50,
    ("limits", "authorName"): 19,
    ("maxTaughtTools",): 5,
}


def assets_with(tmp_path: Path, changed: dict[tuple[str, ...], int]) -> Path:
    """web_assets as it is (linked), but for a rules.json with `changed` numbers."""
    source = web_assets_dir()
    root = tmp_path / "web_assets"
    (root / "data").mkdir(parents=True)
    for entry in source.iterdir():
        if entry.name != "data":
            (root / entry.name).symlink_to(entry)
    for entry in (source / "data").iterdir():
        if entry.name != "rules.json":
            (root / "data" / entry.name).symlink_to(entry)
    data: dict[str, Any] = json.loads((source / "data" / "rules.json").read_text("utf-8"))
    for path, value in changed.items():
        node = data
        for key in path[:-1]:
            node = node[key]
        assert path[-1] in node, f"rules.json has no {'.'.join(path)}"
        assert node[path[-1]] != value, "the copy must differ from rules.json"
        node[path[-1]] = value
    (root / "data" / "rules.json").write_text(json.dumps(data), "utf-8")
    return root


def measured_with(assets: Path) -> dict[str, Any]:
    env = dict(os.environ, UNDERSTUDY_WEB_ASSETS=str(assets))
    done = subprocess.run(
        [sys.executable, str(PROBE)],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,  # a deadline that only reports a hang
        check=False,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_every_limit_follows_the_number_in_rules_json(tmp_path):
    measured = measured_with(assets_with(tmp_path, CHANGED))
    assert measured == {
        "consentTtlSeconds": CHANGED[("consentTtlSeconds",)] - 1.0,  # gone at the limit
        "approvalHoldSeconds": CHANGED[("approvalHoldSeconds",)],
        "output": CHANGED[("budgets", "output")],
        "recordingSteps": CHANGED[("limits", "recordingSteps")],
        "selectionTickets": CHANGED[("limits", "selectionTickets")],
        "personName": CHANGED[("limits", "personName")],
        "ticketBody": CHANGED[("limits", "ticketBody")],
        "authorName": CHANGED[("limits", "authorName")],
        "maxTaughtTools": [True, True],
        "activeTools": [CHANGED[("maxTaughtTools",)]] * 2,  # at publish, and at Turn on
    }
