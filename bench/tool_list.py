"""What an agent reads before it does anything: the bytes of `tools/list`, tool by tool and
field by field, on the app the cheap-path benchmark uses (the built-in tools, the taught
routines, and the single-command tools of its catalogue arm).

Every agent reads this list at the start of every session, so each byte is paid many times.
Usage: .venv/bin/python bench/tool_list.py
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE / "cheap_path"), str(HERE)]

import httpx2  # noqa: E402
from arms import ROUTINES, start_app  # noqa: E402
from harness import application, wait  # noqa: E402

BUILTIN_BUDGET = 1200  # bytes, the built-in tools together (issue 36)
TAUGHT_BUDGET = 350  # bytes, a taught tool on average (issue 36)
FIELDS = ("name", "title", "description", "inputSchema", "annotations", "_meta")


def compact(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode())


def fetch_list(url: str, token: str) -> dict[str, Any]:
    """tools/list over plain HTTP, as any client receives it (protocol 2025-11-25)."""
    base = {
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "Authorization": f"Bearer {token}",
    }
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "bench", "version": "0"},
        },
    }
    with httpx2.Client(timeout=30) as http:
        answer = http.post(url, json=init, headers=base)
        headers = {
            **base,
            "Mcp-Session-Id": answer.headers["mcp-session-id"],
            "Mcp-Protocol-Version": "2025-11-25",
        }
        note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
        http.post(url, json=note, headers=headers)
        listed = http.post(
            url, json={"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, headers=headers
        )
        result: dict[str, Any] = listed.json()["result"]
        return result


def kind_of(name: str) -> str:
    if name.startswith("understudy_"):
        return "built-in"
    return "taught" if name in ROUTINES else "catalogue"


def main() -> int:
    app = application()
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:
        session = start_app(app, Path(tmp) / "data")
        wait(app, lambda: session.agent is not None and session.agent.url)
        assert session.agent is not None
        result = fetch_list(session.agent.url, session.agent.token)
        session.close()
    tools = result["tools"]
    print(f"tools/list: {len(tools)} tools, {compact(result):,} B in all\n")
    print("| tool | kind | " + " | ".join(FIELDS) + " | total |")
    print("|---|---|" + "---:|" * (len(FIELDS) + 1))
    by_kind: dict[str, list[int]] = {}
    for tool in tools:
        sizes = [compact(tool[f]) if f in tool else 0 for f in FIELDS]
        total = compact(tool)
        by_kind.setdefault(kind_of(tool["name"]), []).append(total)
        cells = " | ".join(str(s) if s else "" for s in sizes)
        print(f"| {tool['name']} | {kind_of(tool['name'])} | {cells} | {total} |")
    builtins = compact({"tools": [t for t in tools if kind_of(t["name"]) == "built-in"]})
    taught = by_kind.get("taught", [])
    mean_taught = sum(taught) / len(taught) if taught else 0.0
    print("\n| target | measured | met |")
    print("|---|---:|---|")
    print(
        f"| built-in tools together, at most {BUILTIN_BUDGET:,} B | {builtins:,} B | "
        f"{'yes' if builtins <= BUILTIN_BUDGET else 'no'} |"
    )
    print(
        f"| a taught tool on average, at most {TAUGHT_BUDGET} B | {mean_taught:.0f} B "
        f"({len(taught)} tools) | {'yes' if mean_taught <= TAUGHT_BUDGET else 'no'} |"
    )
    catalogue = by_kind.get("catalogue", [])
    if catalogue:
        print(
            f"| (catalogue arm's one-command tools, on average) | "
            f"{sum(catalogue) / len(catalogue):.0f} B ({len(catalogue)} tools) | |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
