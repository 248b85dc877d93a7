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

can_be_root() { [ "$(id -u)" -eq 0 ] || command -v sudo >/dev/null 2>&1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
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

# The version apt would install ("" when it has none), and its upstream part (1:20.19.2+dfsg-1
# -> 20.19.2).
apt_candidate() {
  apt-cache policy "$1" 2>/dev/null | awk '/Candidate:/ { if ($2 != "(none)") print $2 }'
}
upstream_version() { local v="${1#*:}"; v="${v%%[-+~]*}"; echo "$v"; }
version_at_least() { [ "$(printf '%s\n%s\n' "$2" "$1" | sort -V | head -n1)" = "$2" ]; }

APT_UPDATED=0
ensure_apt() {
  local missing=() p
  for p in "$@"; do pkg_installed "$p" || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! can_be_root; then
    say "these system packages are missing, and installing them needs root: ${missing[*]}"
    say "ask an administrator to run: sudo apt-get install ${missing[*]}"
    exit 1
  fi
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
  if ! command -v apt-cache >/dev/null 2>&1; then return; fi
  local asound glib
  asound="$(first_known_pkg libasound2t64 libasound2)"
  glib="$(first_known_pkg libglib2.0-0t64 libglib2.0-0)"
  # fonts-noto-cjk: Chinese, Japanese and Korean text in tickets renders as text, not boxes.
  echo ca-certificates python3 python3-venv fonts-dejavu-core fonts-noto-cjk \
    libnss3 libnspr4 libgbm1 libgl1 libegl1 libx11-6 libx11-xcb1 libxcomposite1 libxdamage1 \
    libxext6 libxfixes3 libxrandr2 libxtst6 libxshmfence1 libxkbfile1 libxkbcommon0 \
    libxkbcommon-x11-0 libxcb1 libxcb-dri3-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 \
    libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xkb1 libxcb-randr0 \
    libdbus-1-3 libfontconfig1 libfreetype6 libexpat1 "$glib" "$asound"
}

# Node.js 20.19 or later: the page's tests use its newer built-ins (String.isWellFormed), and
# chrome-devtools-mcp refuses older ones. Where the distribution's is older (Debian 12,
# Ubuntu 24.04: 18.19), a pinned Node from the npm registry goes into tools/node.
NODE_MIN="20.19.0"
PROJECT_NODE_BIN="$UNDERSTUDY_ROOT/tools/node/node_modules/.bin"
node_ok() {
  local v
  v="$("$1" --version 2>/dev/null)" || return 1
  version_at_least "${v#v}" "$NODE_MIN"
}

# Which Node to use: "project" (tools/node, installed already), "system" (on PATH, new
# enough), "distribution" (apt's is new enough) or "registry" (install into tools/node).
node_plan() {
  if [ -x "$PROJECT_NODE_BIN/node" ] && node_ok "$PROJECT_NODE_BIN/node"; then echo project; return; fi
  if command -v node >/dev/null 2>&1 && node_ok node && command -v npm >/dev/null 2>&1; then
    echo system; return
  fi
  local candidate
  candidate="$(apt_candidate nodejs)"
  if [ -n "$candidate" ] && version_at_least "$(upstream_version "$candidate")" "$NODE_MIN"; then
    echo distribution; return
  fi
  echo registry
}

ensure_node() {
  case "$(node_plan)" in
    project) export PATH="$PROJECT_NODE_BIN:$PATH" ;;
    system) ;;
    distribution) ensure_apt nodejs npm ;;
    registry)
      # Any npm can fetch it (the distribution's runs on its own older Node).
      command -v npm >/dev/null 2>&1 || ensure_apt nodejs npm
      say "installing Node.js 20.20 from the npm registry into tools/node (this system's is older than $NODE_MIN)"
      (cd "$UNDERSTUDY_ROOT/tools/node" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
      if ! node_ok "$PROJECT_NODE_BIN/node"; then
        say "Node.js $NODE_MIN or later is needed, and none could be installed"
        exit 1
      fi
      export PATH="$PROJECT_NODE_BIN:$PATH"
      ;;
  esac
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
    if [ "$p" = chromium ]; then chromium=1; else wanted+=("$p"); fi
  done
  # shellcheck disable=SC2046
  ensure_apt $(runtime_packages) "${wanted[@]}"
  if [ "$chromium" -eq 1 ]; then ensure_chromium; fi
  ensure_node
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
