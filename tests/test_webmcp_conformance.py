"""Differential conformance: our shim in QtWebEngine against native WebMCP in Chromium 156.

The same script (web_assets/js/webmcp/conformance.js) runs in both; the reports must match,
comparing error names (not messages, which are worded per implementation).
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from understudy_desktop.paths import web_assets_dir

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--enable-features=WebMCP",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def ensure_chromium() -> str:
    """Debian's Chromium 156 is the reference implementation; install it if it is missing."""
    if not shutil.which("chromium") and not os.path.exists(CHROMIUM):
        sudo = [] if os.geteuid() == 0 else ["sudo", "-n"]
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        subprocess.run([*sudo, "apt-get", "update", "-qq"], check=True, env=env)
        subprocess.run([*sudo, "apt-get", "install", "-y", "-qq", "chromium"], check=True, env=env)
    return CHROMIUM


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def asset_server() -> Iterator[str]:
    handler = functools.partial(_QuietHandler, directory=str(web_assets_dir()))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.fixture(scope="module")
def native_report(asset_server: str) -> dict[str, Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=ensure_chromium(), headless=True, args=CHROMIUM_ARGS
        )
        page = browser.new_page()
        page.goto(f"{asset_server}/probe.html")
        page.wait_for_function("window.runConformance !== undefined")
        report: dict[str, Any] = page.evaluate("window.runConformance()")
        browser.close()
    return report


def shim_report(console) -> dict[str, Any]:
    console.page.load("understudy://app/probe.html")
    console.qtbot.waitUntil(
        lambda: console.js("typeof window.runConformance") == "function", timeout=10_000
    )
    console.js("window.runConformance().then((r) => { window.__report = JSON.stringify(r); }); 1")
    console.qtbot.waitUntil(
        lambda: console.js("typeof window.__report") == "string", timeout=20_000
    )
    return json.loads(console.js("window.__report"))


def comparable(value: Any) -> Any:
    """Error messages are implementation wording; names, values and shapes must agree."""
    if isinstance(value, dict):
        return {k: comparable(v) for k, v in value.items() if k != "message"}
    if isinstance(value, list):
        return [comparable(v) for v in value]
    return value


@pytest.mark.slow
@pytest.mark.js_errors_expected  # the conformance run makes tools throw on purpose
def test_shim_matches_native_chromium_156(native_report, console):
    assert native_report["present"] is True, "Chromium did not expose native WebMCP"
    ours = shim_report(console)
    assert comparable(ours) == comparable(native_report)


def test_native_reference_behaviours_we_rely_on(native_report):
    # A few facts the rest of the app depends on, stated plainly.
    assert native_report["absent"] == ["unregisterTool", "provideContext", "clearContext"]
    assert native_report["registerDuplicate"]["error"] == "InvalidStateError"
    assert native_report["executeNonObject"]["number"]["error"] == "TypeError"
    assert native_report["executeThrows"]["error"] == "UnknownError"
    assert native_report["executeAborted"]["error"] == "AbortError"
    assert native_report["eventsAfterAbort"] == ["toolchange"]


def test_the_probe_page_reports_webmcp_missing_without_a_shim(asset_server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=ensure_chromium(),
            headless=True,
            args=[a for a in CHROMIUM_ARGS if not a.startswith("--enable-features")],
        )
        # Playwright's polling evaluates strings, which the console's CSP rightly forbids.
        page = browser.new_page(bypass_csp=True)
        page.goto(f"{asset_server}/index.html")
        page.wait_for_function("document.documentElement.dataset.consoleReady === 'true'")
        mode = page.evaluate("window.understudyShell.api.summary().webmcp")
        # The console still works for a person: filter and read a ticket.
        out = page.evaluate(
            "window.understudyShell.api.dispatch('filter_tickets', {text: 'refund'}, 'test')"
        )
        browser.close()
    assert mode == "degraded"
    assert out["ok"] and out["result"]["matched"] > 0
