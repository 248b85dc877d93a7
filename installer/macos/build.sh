#!/usr/bin/env bash
# Builds Understudy.app and a disk image on macOS 15 or later (Apple chips or Intel), with the
# Python 3.11 from python.org or Homebrew. Not run on a Mac yet (README, "Not yet").
# Usage: installer/macos/build.sh [OUT_DIR]   (default: dist/)
#
# What it needs: python3.11 and Xcode's command-line tools (iconutil, codesign, hdiutil).
# macOS 15, because that is the oldest the locked ICU wheels (pyicu-wheels) are built for
# (installer/platform_info.py, MAC_MINIMUM; the app says so in its Info.plist).
set -euo pipefail
umask 022
root="$(cd "$(dirname "$0")/../.." && pwd)"
out="${1:-$root/dist}"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "== Python packages (from the lock file)"
python3.11 -m venv "$root/.venv"
"$root/.venv/bin/python" -m pip install --quiet -r "$root/requirements.lock"
"$root/.venv/bin/python" -m pip install --quiet --no-deps -e "$root"
echo "== the page's npm packages (by their lock; no Node needed)"
python3.11 "$root/tools/locked_npm.py" "$root/web_assets"

echo "== icon"
set_dir="$work/understudy.iconset"
mkdir -p "$set_dir"
for size in 16 32 128 256 512; do
  cp "$root/installer/icons/understudy-$size.png" "$set_dir/icon_${size}x${size}.png"
done
for size in 16 128 256; do
  cp "$root/installer/icons/understudy-$((size * 2)).png" "$set_dir/icon_${size}x${size}@2x.png"
done
cp "$root/installer/icons/understudy-64.png" "$set_dir/icon_32x32@2x.png"
iconutil -c icns "$set_dir" -o "$root/installer/icons/understudy.icns"

echo "== Understudy.app (PyInstaller)"
(cd "$root/installer" && "$root/.venv/bin/python" -m PyInstaller --noconfirm --log-level WARN \
  --distpath "$out/app" --workpath "$work/pyi" understudy.spec)
app="$out/app/Understudy.app"
# Signed ad hoc so Gatekeeper names the app; a team that distributes it signs it with its
# Developer ID and notarises it (codesign --sign "Developer ID Application: …").
codesign --force --deep --sign - "$app"

echo "== disk image"
eval "$("$root/.venv/bin/python" "$root/installer/platform_info.py")"
dmg="$out/Understudy-$APP_VERSION.dmg"
rm -f "$dmg"
hdiutil create -volname "$APP_NAME" -srcfolder "$app" -ov -format UDZO "$dmg" >/dev/null
echo "app:  $app"
echo "dmg:  $dmg ($(du -sh "$dmg" | cut -f1))"
# Agents reach it through its relay: the Connect dialog's Claude Desktop snippet names
# "$app/Contents/MacOS/understudy" with the argument mcp.
