"""Where the app keeps its data: platformdirs by default, movable for tests and portable use."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import platformdirs

from understudy_desktop import APP_NAME

DATA_DIR_ENV = "UNDERSTUDY_DATA_DIR"
KEY_DIR_ENV = "UNDERSTUDY_KEY_DIR"
PACKAGE_ROOT = Path(__file__).resolve().parent


def web_assets_dir() -> Path:
    """The console's files: inside the package when installed from a wheel, next to it in a
    checkout (and in the frozen app)."""
    override = os.environ.get("UNDERSTUDY_WEB_ASSETS")
    if override:
        return Path(override).resolve()
    inside = PACKAGE_ROOT / "web_assets"
    if (inside / "index.html").is_file():
        return inside.resolve()
    return (PACKAGE_ROOT.parent / "web_assets").resolve()


@dataclass(frozen=True)
class DataPaths:
    """Every on-disk location the app writes to, derived from one root."""

    root: Path

    @property
    def profile(self) -> Path:
        """Chromium profile: IndexedDB, local storage, HTTP cache of the page."""
        return self.root / "browser-profile"

    @property
    def cache(self) -> Path:
        return self.root / "cache"

    @property
    def logs(self) -> Path:
        return self.root / "logs"

    def ensure(self) -> None:
        for d in (self.root, self.profile, self.cache, self.logs):
            d.mkdir(parents=True, exist_ok=True)


def keep_private() -> None:
    """Every file either command writes is this person's alone (folders 0700, files 0600):
    the database, the logs and the relay's log hold customers' messages. Called first, before
    any file exists."""
    os.umask(0o077)


def key_dir() -> Path:
    """Where the user's keys live: outside every data folder, so that a copied or edited data
    folder cannot carry approvals this user did not give (consent/seal.py)."""
    override = os.environ.get(KEY_DIR_ENV)
    if override:
        return Path(override).expanduser().resolve()
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)).resolve()


def resolve_data_paths(cli_value: str | None = None) -> DataPaths:
    """--data-dir wins over UNDERSTUDY_DATA_DIR, which wins over the platform default."""
    chosen = cli_value or os.environ.get(DATA_DIR_ENV)
    root = (
        Path(chosen).expanduser()
        if chosen
        else Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))
    )
    return DataPaths(root.resolve())
