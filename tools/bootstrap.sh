#!/usr/bin/env bash
# Installs what Understudy Desktop needs on a Debian machine, idempotently:
#   system libraries (apt-get, only those missing), a virtualenv in .venv with the locked
#   Python packages, and the page's npm packages in web_assets/node_modules (plus, for the
#   tests, their own npm tools in node_modules: ensure_dev_npm).
# Sourced by ./run-app and ./run-tests; safe to run again (it skips what is already there).
set -euo pipefail

UNDERSTUDY_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="$UNDERSTUDY_ROOT/.venv"

say() { printf 'understudy setup: %s\n' "$*" >&2; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo "$@"
  else
    say "these system packages are missing and I cannot install them without root: $*"
    say "ask an administrator to run: apt-get install ${*: -1}"
    exit 1
  fi
}

pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# Debian 13 renamed some libraries (t64); take whichever name this release knows.
first_known_pkg() {
  local p
  for p in "$@"; do
    if pkg_installed "$p" || apt-cache show "$p" >/dev/null 2>&1; then echo "$p"; return; fi
  done
  echo "$1"
}

APT_UPDATED=0
ensure_apt() {
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ "$APT_UPDATED" -eq 0 ]; then
    say "updating the package list"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    APT_UPDATED=1
  fi
  say "installing system packages: ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# Libraries QtWebEngine (Chromium) and Qt's xcb/offscreen platforms load at run time.
runtime_packages() {
  local asound
  if ! command -v apt-cache >/dev/null 2>&1; then return; fi
  asound="$(first_known_pkg libasound2t64 libasound2)"
  # fonts-noto-cjk: Chinese, Japanese and Korean text in tickets renders as text, not boxes.
  echo ca-certificates python3 python3-venv fonts-dejavu-core fonts-noto-cjk \
    libnss3 libnspr4 libgbm1 libgl1 libegl1 libx11-6 libx11-xcb1 libxcomposite1 libxdamage1 \
    libxext6 libxfixes3 libxrandr2 libxtst6 libxshmfence1 libxkbfile1 libxkbcommon0 \
    libxkbcommon-x11-0 libxcb1 libxcb-dri3-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 \
    libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxcb-randr0 \
    libdbus-1-3 libfontconfig1 libfreetype6 libexpat1 libglib2.0-0 "$asound"
}

ensure_system() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    say "not a Debian-like system: skipping system packages (install Qt's runtime libraries yourself)"
    return
  fi
  # shellcheck disable=SC2046
  ensure_apt $(runtime_packages) "$@"
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    ensure_apt nodejs npm
  fi
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

ensure_npm() {
  local stamp="$UNDERSTUDY_ROOT/web_assets/node_modules/.understudy-stamp" want
  want="$(sha256sum "$UNDERSTUDY_ROOT/web_assets/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  say "installing the page's npm packages"
  (cd "$UNDERSTUDY_ROOT/web_assets" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
}

# Tools only the tests and benchmarks drive (chrome-devtools-mcp): never shipped with the app.
ensure_dev_npm() {
  local stamp="$UNDERSTUDY_ROOT/node_modules/.understudy-stamp" want
  want="$(sha256sum "$UNDERSTUDY_ROOT/package-lock.json" | cut -d' ' -f1)"
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return; fi
  say "installing the test tools' npm packages"
  (cd "$UNDERSTUDY_ROOT" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
  echo "$want" >"$stamp"
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
