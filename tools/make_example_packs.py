"""Make the example Tool Packs in packs/ with the app itself: teach each routine through the
console's controls, approve it in the consent dialog, export it.

Usage: .venv/bin/python tools/make_example_packs.py
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from harness import application, start_console, teach_and_publish, wait  # noqa: E402

ROUTINES = {
    "refund-desk": (
        "assign_refund",
        "Assign a refund request to Priya, make it high priority "
        "and fill the approved-refund reply. Use for duplicate or accidental charges.",
        ["ticket_id"],
        """
      document.getElementById('row-T-1006').click();
      for (const [id, v] of [['assignee-select', 'priya'], ['priority-select', 'high'],
                             ['template-select', 'refund_approved']]) {
        const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change'));
      }
      document.getElementById('template-apply').click();""",
    ),
    "bank-feed-triage": (
        "triage_bank_feeds",
        "Find tickets mentioning a phrase (a bank's "
        "name, say), tag them bank-feed and give them to Tomasz at high "
        "priority.",
        ["phrase"],
        """
      const f = document.getElementById('filter-text'); f.value = 'bank feed';
      f.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter'}));
      document.getElementById('bulk-tag-input').value = 'bank-feed';
      document.getElementById('bulk-tag-form').requestSubmit();
      for (const [id, v] of [['bulk-assign', 'tomasz'], ['bulk-priority', 'high']]) {
        const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event('change'));
      }""",
    ),
    "password-help": (
        "send_password_reset",
        "Reply to a login or password ticket with the "
        "password reset steps and set it to pending while the customer tries.",
        ["ticket_id"],
        """
      document.getElementById('row-T-1008').click();
      const t = document.getElementById('template-select'); t.value = 'password_reset';
      t.dispatchEvent(new Event('change'));
      document.getElementById('template-apply').click();
      const s = document.getElementById('status-select'); s.value = 'pending';
      s.dispatchEvent(new Event('change'));""",
    ),
}


def main() -> int:
    app = application()
    out = ROOT / "packs"
    out.mkdir(exist_ok=True)
    for pack_name, (tool, description, keep, routine) in ROUTINES.items():
        with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
            session = start_console(app, Path(tmp) / "data")
            window = session.window
            teach_and_publish(app, session, tool, routine, keep, description)
            target = out / f"{pack_name}.understudy-pack.json"
            done: list[str] = []
            assert window.packs is not None
            window.packs.exported.connect(done.append)
            window.packs.export_pack(target, [tool], author="Understudy examples")
            wait(app, lambda d=done: bool(d), 20)
            session.close()
            print(f"wrote {target.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
