"""Which shared libraries the frozen app takes from the system instead of carrying its own.

A library that the desktop itself loads into our process must be the system's copy: Debian
13's graphics drivers (Mesa, LLVM) need a newer libstdc++ (GLIBCXX_3.4.32) than Debian 12's,
and a process that already holds the copy we carried aborts ("Could not initialize GLX").
The same holds for anything those drivers and the X, font, D-Bus, Kerberos and systemd
libraries pull in. The usual reference is AppImage's exclude list; this is that idea for
what our bundle holds, by family. Each is a stable, versioned ABI (its file name carries
the version), present on every desktop; the package declares them in Depends (computed by
dpkg-shlibdeps from the binaries, so a newer release's package that provides the name
satisfies it).

What the app does carry: Qt and PySide6 (from their wheels), ICU, and the Python runtime.
"""

from __future__ import annotations

import re

# File-name prefixes (before ".so"), by family.
SYSTEM_FAMILIES: dict[str, tuple[str, ...]] = {
    "C and C++ runtime": ("libstdc++", "libgcc_s"),
    "OpenGL, EGL and the kernel's graphics": (
        "libGL", "libGLX", "libEGL", "libGLdispatch", "libOpenGL", "libGLESv2", "libgbm",
        "libdrm", "libglapi", "libepoxy",
    ),
    "X11 and xcb": (
        "libX11", "libX11-xcb", "libXau", "libXdmcp", "libXext", "libXfixes", "libXrender",
        "libXrandr", "libXcomposite", "libXdamage", "libXtst", "libXi", "libXinerama",
        "libXcursor", "libxcb", "libxcb-*", "libxkbcommon", "libxkbcommon-x11", "libxkbfile",
        "libxshmfence", "libICE", "libSM", "libwayland-*",
    ),
    "GLib and GTK (the desktop's look and dialogs)": (
        "libglib-2.0", "libgobject-2.0", "libgio-2.0", "libgmodule-2.0", "libgthread-2.0",
        "libgtk-3", "libgdk-3", "libgdk_pixbuf-2.0", "libatk-1.0", "libatk-bridge-2.0",
        "libatspi", "libcairo", "libcairo-gobject", "libpango-1.0", "libpangocairo-1.0",
        "libpangoft2-1.0", "libpixman-1", "libfribidi", "libthai", "libdatrie",
    ),
    "fonts and images": (
        "libfontconfig", "libfreetype", "libharfbuzz", "libgraphite2", "libpng16",
        "libbrotli*", "libjpeg",
    ),
    "compression and base libraries": (
        "libz", "libzstd", "liblzma", "liblz4", "libbz2", "libexpat", "libffi", "libuuid",
        "libmount", "libblkid", "libselinux", "libpcre2-8", "libbsd", "libmd", "libcap",
        "libgcrypt", "libgpg-error", "libtinfo", "libncursesw", "libreadline", "libsqlite3",
        "libcrypto", "libssl",
    ),
    "D-Bus, systemd and udev": ("libdbus-1", "libsystemd", "libudev"),
    "Kerberos": (
        "libgssapi_krb5", "libkrb5", "libk5crypto", "libkrb5support", "libcom_err",
        "libkeyutils",
    ),
    "NSS (certificates) and sound": (
        "libnss3", "libnssutil3", "libsmime3", "libsoftokn3", "libnssckbi", "libnssdbm3",
        "libfreebl3", "libfreeblpriv3", "libnspr4", "libplc4", "libplds4", "libasound",
    ),
}  # fmt: skip
# Qt's printing plugin (CUPS), which the app never uses, and what only it needs: left out,
# so that neither the bundle carries them nor the package asks for them.
UNUSED = (
    "libcupsprintersupport", "libcups", "libavahi-*", "libgnutls", "libgmp", "libnettle",
    "libhogweed", "libidn2", "libunistring", "libtasn1", "libp11-kit",
)  # fmt: skip

_NAME = re.compile(r"^(?P<stem>.+?)\.so(?:\.[0-9.]+)?$")


def _matches(stem: str, names: tuple[str, ...] | set[str]) -> bool:
    return any(stem == n or (n.endswith("*") and stem.startswith(n[:-1])) for n in names)


_SYSTEM = {n for family in SYSTEM_FAMILIES.values() for n in family}


def is_system_library(file_name: str) -> bool:
    """True for a library the system provides (by its file name, without folders)."""
    match = _NAME.match(file_name)
    return match is not None and _matches(match.group("stem"), _SYSTEM)


def keep_in_bundle(dest_name: str) -> bool:
    """PyInstaller's binaries list: False for what the system provides or nothing uses."""
    name = dest_name.replace("\\", "/").rsplit("/", 1)[-1]
    match = _NAME.match(name)
    if match is None:
        return True
    return not (is_system_library(name) or _matches(match.group("stem"), UNUSED))
