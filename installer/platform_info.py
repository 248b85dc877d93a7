"""What the Windows and macOS packages say about the app, from the app's own constants: the
bundle id (the AppStream id), the Tool Pack file type and the version. The PyInstaller spec
reads this for the macOS Info.plist; installer/windows/build.ps1 passes the same values to
Inno Setup. Run as a script it prints them as `NAME=value` lines for the build scripts."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from understudy_desktop import __version__
from understudy_desktop.packs.export import PACK_SUFFIX

APP_ID = "io.understudy.desktop"  # the AppStream id, and the macOS bundle id
APP_NAME = "Understudy"
PACK_TYPE = "io.understudy.desktop.pack"  # the macOS type identifier of a Tool Pack
PACK_MIME = "application/x-understudy-pack+json"
PACK_EXTENSION = PACK_SUFFIX.lstrip(".")  # understudy-pack.json
# The oldest macOS every locked package has a wheel for (pyicu-wheels 2.15.2 is built for
# macOS 15 only); tests/test_platform_recipes.py checks it against the registry.
MAC_MINIMUM = "15.0"


def mac_info_plist() -> dict[str, Any]:
    """Info.plist entries of Understudy.app: it opens Tool Packs (a double-click in Finder
    arrives as a file-open event, handled in shell/file_open.py)."""
    return {
        "CFBundleName": APP_NAME,
        "CFBundleDisplayName": APP_NAME,
        "CFBundleIdentifier": APP_ID,
        "CFBundleShortVersionString": __version__,
        "CFBundleVersion": __version__,
        "LSMinimumSystemVersion": MAC_MINIMUM,
        "NSHighResolutionCapable": True,
        "NSRequiresAquaSystemAppearance": False,  # the dark theme follows the system
        "CFBundleDocumentTypes": [
            {
                "CFBundleTypeName": "Understudy Tool Pack",
                "CFBundleTypeRole": "Editor",
                "LSHandlerRank": "Owner",
                "LSItemContentTypes": [PACK_TYPE],
            }
        ],
        "UTExportedTypeDeclarations": [
            {
                "UTTypeIdentifier": PACK_TYPE,
                "UTTypeDescription": "Understudy Tool Pack",
                "UTTypeConformsTo": ["public.json", "public.data"],
                "UTTypeTagSpecification": {
                    "public.filename-extension": [PACK_EXTENSION],
                    "public.mime-type": [PACK_MIME],
                },
            }
        ],
    }


def build_values() -> dict[str, str]:
    return {
        "APP_ID": APP_ID,
        "APP_NAME": APP_NAME,
        "APP_VERSION": __version__,
        "PACK_EXTENSION": PACK_EXTENSION,
        "PACK_MIME": PACK_MIME,
        "MAC_MINIMUM": MAC_MINIMUM,
    }


if __name__ == "__main__":
    for key, value in build_values().items():
        print(f"{key}={value}")
