"""Entry point of the frozen app: the same `understudy` command, with web assets found
beside the executable (PyInstaller unpacks data next to it in _internal/)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

if getattr(sys, "frozen", False):
    base = Path(getattr(sys, "_MEIPASS", Path(sys.executable).parent))
    os.environ.setdefault("UNDERSTUDY_WEB_ASSETS", str(base / "web_assets"))
    # `understudy mcp` (Linux, macOS) or the console program understudy-mcp.exe (Windows).
    relay = Path(sys.executable).stem.lower() == "understudy-mcp"
    if relay:
        sys.argv.insert(1, "mcp")
    if len(sys.argv) > 1 and sys.argv[1] == "mcp":
        from understudy_desktop.agent.stdio_proxy import main as proxy

        sys.exit(proxy(sys.argv[2:]))

from understudy_desktop.cli import main

sys.exit(main())
