"""The persistent browser profile that holds the console's IndexedDB between runs."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWebEngineCore import QWebEngineProfile

from understudy_desktop.paths import DataPaths, web_assets_dir
from understudy_desktop.web.handoff import Handoff
from understudy_desktop.web.scheme import SCHEME, AssetSchemeHandler

PROFILE_NAME = "understudy"


def make_profile(
    paths: DataPaths, handoff: Handoff, parent: QObject | None = None
) -> QWebEngineProfile:
    """A named (hence disk-backed) profile rooted in the data dir, serving our scheme.

    The caller owns it and must delete it only after every page using it is gone.
    """
    paths.ensure()
    profile = QWebEngineProfile(PROFILE_NAME, parent)
    profile.setPersistentStoragePath(str(paths.profile))
    profile.setCachePath(str(paths.cache))
    profile.setHttpCacheType(QWebEngineProfile.HttpCacheType.NoCache)
    handler = AssetSchemeHandler(web_assets_dir(), handoff, profile)
    profile.installUrlSchemeHandler(SCHEME.encode(), handler)
    return profile
