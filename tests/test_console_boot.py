"""The app boots the console through understudy://app and serves nothing outside web_assets."""

from __future__ import annotations

from pathlib import Path

import pytest

from understudy_desktop.paths import web_assets_dir
from understudy_desktop.web.scheme import resolve_asset


def test_console_loads_through_the_scheme(console):
    assert console.page.url().toString() == "understudy://app/index.html"
    summary = console.api_json("summary")
    assert summary["tickets"] == 40
    assert summary["webmcp"] == "bridged"  # Chromium 140 has no WebMCP: our shim supplies it
    assert console.js("document.title") == "Understudy — Triage console"
    assert console.js("document.querySelectorAll('#queue-list .row').length") > 5


def test_served_files_have_correct_mime_types(console):
    script = """
      (async () => {
        const out = {};
        for (const p of ['index.html', 'css/console.css', 'js/main.js', 'data/default_queue.json',
                         'img/understudy.svg']) {
          const r = await fetch(p);
          out[p] = r.headers.get('content-type');
        }
        window.__mime = out;
      })(); true
    """
    console.js(script)
    console.qtbot.waitUntil(lambda: console.js("Boolean(window.__mime)"))
    mime = console.value("window.__mime")
    assert mime["index.html"].startswith("text/html")
    assert mime["css/console.css"].startswith("text/css")
    assert mime["js/main.js"].startswith("text/javascript")
    assert mime["data/default_queue.json"] == "application/json"
    assert mime["img/understudy.svg"] == "image/svg+xml"


TRAVERSALS = [
    "understudy://app/../pyproject.toml",
    "understudy://app/%2e%2e/pyproject.toml",
    "understudy://app/css/%2e%2e/%2e%2e/pyproject.toml",
    "understudy://app/%2e%2e%2fpyproject.toml",
    "understudy://app/..%5cpyproject.toml",
    "understudy://app//etc/passwd",
    "understudy://app/%2fetc%2fpasswd",
    "understudy://app/nothing-here.js",
]


def test_traversal_is_refused_from_the_page(console):
    urls = ",".join(f"'{u}'" for u in TRAVERSALS)
    script = f"""
      (async () => {{
        const out = {{}};
        for (const u of [{urls}]) {{
          try {{ const r = await fetch(u); out[u] = r.status; }}
          catch (e) {{ out[u] = 'refused'; }}
        }}
        window.__trav = out;
      }})(); true
    """
    console.js(script)
    console.qtbot.waitUntil(lambda: console.js("Boolean(window.__trav)"))
    answers = console.value("window.__trav")
    # Qt turns the handler's UrlNotFound into an HTTP 404 for fetch(); no body is ever sent.
    assert answers == {u: 404 for u in TRAVERSALS}


@pytest.mark.parametrize(
    "raw",
    [
        "/../pyproject.toml",
        "/%2e%2e/pyproject.toml",
        "/css/%2E%2E/%2E%2E/pyproject.toml",
        "/%2e%2e%2fpyproject.toml",
        "/..%5cpyproject.toml",
        "/css/..%00/x",
        "//etc/passwd",
        "/%2fetc%2fpasswd",
        "/~root/.bashrc",
        "/data",  # a directory is not a file
    ],
)
def test_resolve_asset_refuses_paths_outside_web_assets(raw):
    assert resolve_asset(web_assets_dir(), raw).status == 404


def test_resolve_asset_refuses_symlinks_that_leave_the_root(tmp_path: Path):
    root = tmp_path / "assets"
    root.mkdir()
    (tmp_path / "secret.txt").write_text("no")
    (root / "link.txt").symlink_to(tmp_path / "secret.txt")
    (root / "ok.txt").write_text("yes")
    assert resolve_asset(root, "/link.txt").status == 404
    ok = resolve_asset(root, "/ok.txt")
    assert ok.status == 200 and ok.mime.startswith("text/plain")


def test_resolve_asset_serves_index_for_the_root():
    answer = resolve_asset(web_assets_dir(), "/")
    assert answer.status == 200
    assert answer.path is not None and answer.path.name == "index.html"


def test_a_first_run_shows_a_dismissible_welcome_once(console_factory, tmp_path):
    first = console_factory(tmp_path / "d", keep_welcome=True)
    assert first.js("document.getElementById('welcome').hidden") is False
    text = first.js("document.getElementById('welcome').textContent")
    assert "Teach" in text and "library" in text and "Export pack" in text
    assert "Team library" in text and "Share with team" in text
    # Every menu item the welcome names is one the window has, in that menu.
    import re

    menus = {
        a.text().replace("&", ""): [
            i.text().replace("&", "").split("\t")[0] for i in a.menu().actions()
        ]
        for a in first.window.menuBar().actions()
    }
    named = re.findall(r"(File|Edit|View|Help) › ([^.;,]+?…?)(?=[.;,]| and | then |$)", text)
    assert len(named) >= 4, named
    assert [(m, i) for m, i in named if i.strip() not in menus.get(m, [])] == []
    first.js("document.getElementById('welcome-dismiss').click(); true")
    assert first.js("document.getElementById('welcome').hidden") is True
    first.flush()
    first.session.close()
    again = console_factory(tmp_path / "d", keep_welcome=True)
    assert again.js("document.getElementById('welcome').hidden") is True


def _loads(console, url: str) -> bool:
    """Whether a page of the console's own profile loads `url` (what the scheme answered)."""
    import shiboken6
    from PySide6.QtCore import QUrl
    from PySide6.QtWebEngineCore import QWebEnginePage

    page = QWebEnginePage(console.page.profile())
    try:
        with console.qtbot.waitSignal(page.loadFinished) as finished:
            page.load(QUrl(url))
        return bool(finished.args[0])
    finally:
        # Gone before the console's profile is released (Qt warns of "troubles" otherwise).
        shiboken6.delete(page)


def test_the_scheme_serves_its_own_host_only(console):
    """understudy:// serves web_assets/ to the console's host alone: the same file asked for
    under any other host is refused, not served."""
    assert _loads(console, "understudy://app/index.html") is True
    for host in ("evil", "app.evil", "APP2"):
        assert _loads(console, f"understudy://{host}/index.html") is False, host
    # Its own host is read only: a page script cannot send it anything.
    console.js(
        "(async () => { try { const r = await fetch('index.html', {method: 'POST', body: 'x'});"
        " window.__post = String(r.status); } catch (e) { window.__post = 'refused'; } })(); true"
    )
    console.qtbot.waitUntil(lambda: console.js("Boolean(window.__post)"))
    assert console.value("window.__post") == "403"  # Qt answers a denied request so


def test_each_file_type_has_one_type_on_every_platform():
    """The page's own kinds of file are typed from the app's table, not the platform's (where
    a module script may be text/plain, which Chromium refuses); others as guessed, or bytes."""
    from understudy_desktop.web.scheme import mime_type_for

    assert mime_type_for(Path("js/main.js")) == "text/javascript; charset=utf-8"
    assert mime_type_for(Path("LIB.MJS")) == "text/javascript; charset=utf-8"
    assert mime_type_for(Path("guide.pdf")) == "application/pdf"
    assert mime_type_for(Path("blob.no-such-type")) == "application/octet-stream"
