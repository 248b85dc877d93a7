"""Scripts the shell injects into every console document: named, world-scoped, at creation.

- understudy-webmcp-shim (main world, every frame): document.modelContext where the engine
  lacks it. Native WebMCP gives each document its own, iframes included, so the shim runs in
  subframes too. Qt runs these scripts a task after a navigation commits, which is too late
  for a frame's about:blank document (it commits none): the parent's shim installs itself
  there (js/webmcp/shim.js says how).
- understudy-webmcp-relay (main world, main frame): answers the bridge using the page's
  WebMCP API.
- understudy-bridge (isolated world, main frame): QWebChannel to Python; invisible to page
  scripts. Only the main frame talks to the shell.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from PySide6.QtCore import QFile, QIODevice
from PySide6.QtWebEngineCore import QWebEngineScript, QWebEngineScriptCollection

from understudy_desktop.paths import web_assets_dir

# Our isolated world. The page's scripts run in MainWorld (0) and cannot reach objects here.
BRIDGE_WORLD = int(QWebEngineScript.ScriptWorldId.ApplicationWorld)
MAIN_WORLD = int(QWebEngineScript.ScriptWorldId.MainWorld)


@dataclass(frozen=True)
class InjectedScript:
    name: str
    world: int
    source: str
    subframes: bool = False


def _qwebchannel_source() -> str:
    """Qt ships qwebchannel.js as a resource; using it keeps client and server in step."""
    resource = QFile(":/qtwebchannel/qwebchannel.js")
    if not resource.open(QIODevice.OpenModeFlag.ReadOnly):
        raise RuntimeError("Qt's qwebchannel.js resource is missing")
    try:
        return bytes(resource.readAll().data()).decode("utf-8")
    finally:
        resource.close()


def _asset(relative: str) -> str:
    return (web_assets_dir() / Path(relative)).read_text(encoding="utf-8")


def bridge_scripts(with_shim: bool = True) -> list[InjectedScript]:
    scripts = []
    if with_shim:
        scripts.append(
            InjectedScript(
                "understudy-webmcp-shim", MAIN_WORLD, _asset("js/webmcp/shim.js"), subframes=True
            )
        )
    scripts.append(
        InjectedScript("understudy-webmcp-relay", MAIN_WORLD, _asset("js/webmcp/relay.js"))
    )
    scripts.append(
        InjectedScript(
            "understudy-bridge",
            BRIDGE_WORLD,
            _qwebchannel_source() + "\n;\n" + _asset("js/webmcp/bridge.js"),
        )
    )
    return scripts


def install(collection: QWebEngineScriptCollection, scripts: list[InjectedScript]) -> None:
    """Add each script once (by name), at document creation; subframes only where asked."""
    for item in scripts:
        for old in collection.find(item.name):
            collection.remove(old)
        script = QWebEngineScript()
        script.setName(item.name)
        script.setWorldId(item.world)
        script.setInjectionPoint(QWebEngineScript.InjectionPoint.DocumentCreation)
        script.setRunsOnSubFrames(item.subframes)
        script.setSourceCode(item.source)
        collection.insert(script)
