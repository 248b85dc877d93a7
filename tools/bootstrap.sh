#!/usr/bin/env bash
# Installs what Understudy Desktop needs on a Debian machine, idempotently:
#   system libraries (apt-get, only those missing, in one go), a virtualenv in .venv with the
#   locked Python packages, and the page's npm packages in web_assets/node_modules (plus, for
#   the tests, a pinned Node.js in tools/node and their npm tools in node_modules).
# npm packages are put in place by tools/locked_npm.py from the lock files (fetched, checked
# against their integrity hashes, unpacked): no distribution's npm or Node is used, because
# they differ between releases (Debian 12's npm 9.2 loses the node binary it installs).
# Sourced by ./run-app and ./run-tests; safe to run again (it skips what is already there).
set -euo pipefail

UNDERSTUDY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$UNDERSTUDY_ROOT/.venv"

say() { printf 'understudy setup: %s\n' "$*" >&2; }

# How this user can run a command as root, in ROOT_WAY: "root", "sudo" (no password asked,
# or asked on this terminal and accepted), or "" when only an administrator can.
ROOT_WAY=""
ROOT_WAY_KNOWN=0
find_root_way() {
  if [ "$ROOT_WAY_KNOWN" -eq 0 ]; then
    ROOT_WAY_KNOWN=1
    if [ "$(id -u)" -eq 0 ]; then
      ROOT_WAY=root
    elif command -v sudo >/dev/null 2>&1; then
      if sudo -n true >/dev/null 2>&1; then
        ROOT_WAY=sudo
      elif [ -t 0 ] && [ -t 2 ]; then
        # sudo asks for the password on the terminal; its own refusal ("not in the sudoers
        # file") is not shown: the message below says what to do instead.
        say "installing system packages needs administrator rights; sudo asks for your password"
        if sudo -v 2>/dev/null; then ROOT_WAY=sudo; fi
      fi
    fi
  fi
}

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# The one line an administrator runs for a user who cannot, and what the user does after.
admin_line() {
  echo "sudo apt-get update && sudo apt-get install -y --no-install-recommends $*"
}
need_administrator() {
  say "Understudy needs these system packages first: $*"
  say "Installing them needs an administrator. Ask one to run this line, then run ./$(basename "$0") again:"
  printf '\n    %s\n\n' "$(admin_line "$@")" >&2
  exit 1
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Debian 13 and Ubuntu 24.04 renamed some libraries for 64-bit time (libglib2.0-0t64); take
# whichever name this release has: installed first, then known to apt, else the first name.
first_known_pkg() {
  local p
  for p in "$@"; do
    if pkg_installed "$p"; then echo "$p"; return; fi
  done
  for p in "$@"; do
    if apt-cache show "$p" >/dev/null 2>&1; then echo "$p"; return; fi
  done
  echo "$1"
}

# The version apt would install ("" when it has none).
apt_candidate() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'
}

APT_UPDATED=0
ensure_apt() {
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  find_root_way
  if [ -z "$ROOT_WAY" ]; then need_administrator "${missing[@]}"; fi
  if [ "$APT_UPDATED" -eq 0 ]; then
    say "updating the package list"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  say "installing system packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# PyInstaller (the installer's build, which the tests run) needs the shared library of the
# Python the virtualenv is made from; a fresh Debian has only the interpreter. Asked for by
# the version apt's python3 brings when there is no python3 yet, so that it joins the rest.
python_shared_library() {
  local v=""
  if command -v python3 >/dev/null 2>&1; then
    v="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
  elif command -v apt-cache >/dev/null 2>&1; then
    v="$(apt-cache depends python3 2>/dev/null | grep -o 'python3\.[0-9][0-9]*' | head -n1)"
    v="${v#python}"
  fi
  if [ -n "$v" ]; then first_known_pkg "libpython${v}t64" "libpython${v}"; fi
}

# Libraries QtWebEngine (Chromium) and Qt's xcb/offscreen platforms load at run time: every
# package the locked PySide6's libraries and platform plugins ask for (tests/test_bootstrap.py
# reads them from the installed Qt and fails when one is missing here; a fresh Debian 13 has
# no Kerberos library unless it is asked for).
runtime_packages() {
  if ! command -v apt-cache >/dev/null 2>&1; then return; fi
  local asound glib
  asound="$(first_known_pkg libasound2t64 libasound2)"
  glib="$(first_known_pkg libglib2.0-0t64 libglib2.0-0)"
  # fonts-noto-cjk: Chinese, Japanese and Korean text in tickets renders as text, not boxes.
  echo ca-certificates python3 python3-venv fonts-dejavu-core fonts-noto-cjk \
    libnss3 libnspr4 libgbm1 libgl1 libegl1 libx11-6 libx11-xcb1 libxcomposite1 libxdamage1 \
    libxext6 libxfixes3 libxrandr2 libxtst6 libxshmfence1 libxkbfile1 libxkbcommon0 \
    libxkbcommon-x11-0 libxcb1 libxcb-dri3-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 \
    libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxcb-randr0 libxcb-glx0 \
    libxcb-render0 libxcb-shm0 libxcb-sync1 libxcb-util1 libxcb-xfixes0 \
    libdbus-1-3 libfontconfig1 libfreetype6 libexpat1 libbrotli1 libgssapi-krb5-2 libudev1 \
    libzstd1 zlib1g libstdc++6 libgcc-s1 libdrm2 libwayland-client0 libwayland-cursor0 \
    "$glib" "$asound"
}

# Node.js for the tests only (the page's unit tests, ESLint, TypeScript, chrome-devtools-mcp):
# the pinned build from the npm registry (tools/node/package-lock.json), for this CPU, on
# every release. The app itself needs no Node.
PROJECT_NODE_BIN="$UNDERSTUDY_ROOT/tools/node/node_modules/.bin"
ensure_node() {
  locked_npm "$UNDERSTUDY_ROOT/tools/node" "Node.js for the tests"
  export PATH="$PROJECT_NODE_BIN:$PATH"
}

# Where a lock's packages are missing or out of date, put them in place (tools/locked_npm.py,
# run by the system's Python: nothing else is needed yet).
locked_npm() {
  if python3 "$UNDERSTUDY_ROOT/tools/locked_npm.py" --check "$1"; then return; fi
  say "installing $2 (npm packages, checked against their lock)"
  python3 "$UNDERSTUDY_ROOT/tools/locked_npm.py" "$1"
}

# Debian's Chromium 156 is what the native-WebMCP tests compare with. Ubuntu ships Chromium
# only as a snap: its /snap/bin/chromium is used where present; otherwise those tests are
# skipped, and this says so.
ensure_chromium() {
  if pkg_installed chromium || [ -n "$(apt_candidate chromium)" ]; then
    ensure_apt chromium
    export UNDERSTUDY_CHROMIUM=/usr/bin/chromium
  elif [ -x /snap/bin/chromium ]; then
    export UNDERSTUDY_CHROMIUM=/snap/bin/chromium
  else
    say "Chromium is not packaged for this release: the tests that compare with native Chromium are skipped"
    export UNDERSTUDY_CHROMIUM=""
  fi
}

ensure_system() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "not a Debian-like system: skipping system packages (install Qt's runtime libraries yourself)"
    return
  fi
  local wanted=() p chromium=0
  for p in "$@"; do
    if [ -z "$p" ]; then continue; fi
    if [ "$p" = chromium ]; then chromium=1; else wanted+=("$p"); fi
  done
  # shellcheck disable=SC2046
  ensure_apt $(runtime_packages) "${wanted[@]}"
  if [ "$chromium" -eq 1 ]; then ensure_chromium; fi
}

ensure_venv() {
  local stamp="$VENV/.understudy-stamp" want
  want="$(cat "$UNDERSTUDY_ROOT/pyproject.toml" "$UNDERSTUDY_ROOT/requirements.lock" | sha256sum | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$VENV/bin/python" ]; then return; fi
  # A changed lock gets a new virtualenv: installing over an old one leaves packages behind
  # that the lock no longer names (Qt splits its wheels differently between releases).
  rm -rf "$VENV"
  say "creating the virtualenv in .venv"
  python3 -m venv "$VENV"
  say "installing Python packages (first time: about 300 MB, a few minutes)"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check -r "$UNDERSTUDY_ROOT/requirements.lock"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check --no-deps -e "$UNDERSTUDY_ROOT"
  echo "$want" >"$stamp"
}

# The page's two libraries (web_assets/package-lock.json).
ensure_npm() {
  locked_npm "$UNDERSTUDY_ROOT/web_assets" "the console's page libraries"
}

# Tools only the tests and benchmarks drive (ESLint, TypeScript, chrome-devtools-mcp), on the
# pinned Node: never shipped with the app.
ensure_dev_npm() {
  ensure_node
  locked_npm "$UNDERSTUDY_ROOT" "the test tools"
}

# Root cannot use Chromium's sandbox; a normal user keeps it.
export_runtime_env() {
  if [ "$(id -u)" -eq 0 ]; then export QTWEBENGINE_DISABLE_SANDBOX=1; fi
  export PATH="$VENV/bin:$PATH"
}

# Request Tracker 5 from Debian, for the helpdesk tests (tests/rt_server.py runs it on loopback
# with a database of its own). The answers below keep its packaging from creating a system
# database, cron jobs or a site configuration: the tests bring their own.
ensure_request_tracker() {
  if pkg_installed request-tracker5 && pkg_installed rt5-db-sqlite && pkg_installed rt5-standalone; then
    return
  fi
  if ! command -v debconf-set-selections >/dev/null 2>&1; then ensure_apt debconf; fi
  as_root debconf-set-selections <<'ANSWERS'
request-tracker5 request-tracker5/dbconfig-install boolean false
request-tracker5 request-tracker5/install-cronjobs boolean false
request-tracker5 request-tracker5/handle-siteconfig-permissions boolean false
ANSWERS
  say "installing Request Tracker 5 for the helpdesk tests (first time: about 70 MB)"
  ensure_apt request-tracker5 rt5-db-sqlite rt5-standalone
}

bootstrap() {
  ensure_system "$@"
  ensure_venv
  ensure_npm
  export_runtime_env
}
