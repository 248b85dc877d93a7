"""The project's build backend: setuptools, after putting the console's page libraries in
place, so that a wheel or sdist built from a fresh clone carries them.

A checkout keeps web_assets/node_modules out of git (third-party code is not committed); the
lock file says exactly which packages and which bytes. Without this, a wheel built from a
clone starts an app whose page cannot load its validator and never becomes ready. An sdist
carries the libraries (and their stamp), so a wheel built from it needs no network.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import (  # noqa: F401 (the hooks PEP 517 asks for, unchanged)
    get_requires_for_build_editable,
    get_requires_for_build_sdist,
    get_requires_for_build_wheel,
    prepare_metadata_for_build_editable,
    prepare_metadata_for_build_wheel,
)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import locked_npm

WEB_ASSETS = Path(__file__).resolve().parent.parent / "web_assets"


def page_libraries() -> None:
    if not (WEB_ASSETS / "package-lock.json").is_file():
        # An sdist: it carries the libraries themselves, and no lock to fetch them by.
        if not (WEB_ASSETS / "node_modules" / locked_npm.STAMP).is_file():
            raise SystemExit("the console's page libraries are missing, and there is no lock")
        return
    try:
        if locked_npm.install(WEB_ASSETS, say=False):
            print("fetched the console's page libraries from the npm registry", file=sys.stderr)
    except locked_npm.LockError as exc:
        raise SystemExit(f"the console's page libraries could not be put in place: {exc}") from exc


def build_wheel(
    wheel_directory: str,
    config_settings: dict[str, str | list[str]] | None = None,
    metadata_directory: str | None = None,
) -> str:
    page_libraries()
    return str(_setuptools.build_wheel(wheel_directory, config_settings, metadata_directory))


def build_sdist(
    sdist_directory: str, config_settings: dict[str, str | list[str]] | None = None
) -> str:
    page_libraries()
    return str(_setuptools.build_sdist(sdist_directory, config_settings))


def build_editable(
    wheel_directory: str,
    config_settings: dict[str, str | list[str]] | None = None,
    metadata_directory: str | None = None,
) -> str:
    # An editable install reads the page from the checkout, where ./run-app puts the
    # libraries; nothing to fetch here.
    return str(_setuptools.build_editable(wheel_directory, config_settings, metadata_directory))
