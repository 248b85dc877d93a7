"""The persistent browser profile that holds the console's IndexedDB between runs."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWebEngineCore import QWebEngineProfile, QWebEngineProfileBuilder

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
    # Built with its paths, not given them after: a profile made by name first creates its
    # default folder in the user's own data folder (~/.local/share/…/QtWebEngine), outside
    # a --data-dir the person chose.
    builder = QWebEngineProfileBuilder()
    builder.setPersistentStoragePath(str(paths.profile))
    builder.setCachePath(str(paths.cache))
    builder.setHttpCacheType(QWebEngineProfile.HttpCacheType.NoCache)
    profile = builder.createProfile(PROFILE_NAME, parent)
    handler = AssetSchemeHandler(web_assets_dir(), handoff, profile)
    profile.installUrlSchemeHandler(SCHEME.encode(), handler)
    return profile
