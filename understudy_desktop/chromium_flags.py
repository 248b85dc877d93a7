"""Command-line switches for the embedded Chromium, fixed before QtWebEngine starts."""

from __future__ import annotations

import os

FLAGS_ENV = "QTWEBENGINE_CHROMIUM_FLAGS"
SANDBOX_ENV = "QTWEBENGINE_DISABLE_SANDBOX"


def running_as_root() -> bool:
    geteuid = getattr(os, "geteuid", None)  # absent on Windows
    return bool(geteuid and geteuid() == 0)


def chromium_switches(as_root: bool) -> list[str]:
    # WebMCP is always requested, so the day QtWebEngine ships a Chromium that has it, the page
    # gets the native API and our shim steps aside. Chromium refuses to start its sandbox as
    # root, so only then is it switched off; a normal user keeps it.
    switches = ["--enable-features=WebMCP"]
    if as_root:
        switches.append("--no-sandbox")
    return switches


def apply_chromium_flags(environ: dict[str, str] | None = None) -> list[str]:
    """Merge our switches into the environment Chromium reads at start-up; return them."""
    env = os.environ if environ is None else environ
    as_root = running_as_root()
    ours = chromium_switches(as_root)
    existing = env.get(FLAGS_ENV, "").split()
    merged = existing + [s for s in ours if s not in existing]
    env[FLAGS_ENV] = " ".join(merged)
    if as_root:
        env[SANDBOX_ENV] = "1"
    return merged
