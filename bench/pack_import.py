"""Import time of Tool Packs in the running app: a pack with 16 tools, and a 1 MB pack.

Import = read and parse the file, JSON Schema and catalogue checks, the lint, approval
records, and publishing every tool in the page. Median of 5 imports each, into a fresh
console every time. Usage: .venv/bin/python bench/pack_import.py
"""

from __future__ import annotations

import copy
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from harness import application, start_console, wait

ROOT = Path(__file__).resolve().parent.parent
GOOD = json.loads((ROOT / "tests/fixtures/packs/good.understudy-pack.json").read_text())
RUNS = 5


def pack_of(tools: int, enum_size: int) -> dict:
    pack = copy.deepcopy(GOOD)
    base = pack["tools"][0]
    pack["tools"] = []
    for i in range(tools):
        tool = copy.deepcopy(base)
        tool["name"] = f"tool_{i:02d}"
        if enum_size:
            # A long list of allowed ticket ids makes a big, valid schema.
            tool["inputSchema"]["properties"]["ticket_id"]["enum"] = [
                f"T-{n:06d}" for n in range(enum_size)
            ]
        pack["tools"].append(tool)
    return pack


def main() -> int:
    app = application()
    cases = {"16 tools": pack_of(16, 0), "1 MB": pack_of(16, 5200)}
    rows = []
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        for label, pack in cases.items():
            path = Path(tmp) / f"{label.replace(' ', '_')}.understudy-pack.json"
            path.write_text(json.dumps(pack), encoding="utf-8")
            times = []
            for run in range(RUNS):
                session = start_console(app, Path(tmp) / f"data-{label}-{run}")
                packs = session.window.packs
                assert packs is not None
                done: list[list[str]] = []
                packs.imported.connect(done.append)
                packs.import_failed.connect(lambda m: (_ for _ in ()).throw(RuntimeError(m)))
                t0 = time.perf_counter()
                packs.import_pack(path, confirm=False)
                wait(app, lambda d=done: bool(d), 120)
                times.append(time.perf_counter() - t0)
                assert len(done[0]) == 16
                session.close()
            rows.append((label, path.stat().st_size, statistics.median(times)))
    print()
    print("Tool Pack import (offscreen, this machine; median of 5, fresh console each)")
    print(f"{'pack':<10} | {'size':>10} | {'import (ms)':>11}")
    print("-" * 38)
    for label, size, seconds in rows:
        print(f"{label:<10} | {size / 1024:>7.0f} KB | {seconds * 1000:>11.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
