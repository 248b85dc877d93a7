"""The fresh-root check: both README commands, and the installed package, on really fresh
Debian 12 and Debian 13 systems.

Our own tests run on a machine that already has what they need; what a colleague meets is a
machine that has nothing. This makes that machine for real: a Debian root with debootstrap
(minbase, from this machine's configured Debian archive), entered with `unshare` and
`pivot_root` (Chromium's sandbox refuses a plain chroot, and the installed app keeps its
sandbox on), a clone of the project's committed state, and then, each in a root of its own:

- root-run-app    `./run-app --quit-after-load` as root
- root-run-tests  `./run-tests` as root (then `installer/build`, on the oldest release)
- user-sudo       `./run-app --quit-after-load` as a user who may use sudo
- user-no-sudo    the same as a user on a machine without sudo: the set-up names the one line
                  an administrator runs; after it, the user's second try starts the app
- user-not-sudoer the same with sudo installed but the user not allowed to use it
- deb-desktop     the .deb (built on the oldest release) installed with `apt install`, started
                  under Xvfb as a normal user with the sandbox on (a screenshot is kept), an
                  MCP SDK client through the installed `understudy-mcp`, a Tool Pack opened the
                  way a file manager does, then `apt purge`

It prints one table (and writes it, with every row's log and the screenshots, to the work
folder). Run it as root, from the project's virtualenv (`.venv/bin/python tools/fresh_roots.py`);
it takes about an hour and a half and downloads a few GB. It is not part of `./run-tests`.

This machine reaches the package registries through a proxy with its own certificate
authority: the host's CA certificates are copied into each root, and the variables that name
the bundle are passed in, so that pip and npm trust it as apt does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELEASES = {"12": "bookworm", "13": "trixie"}
ROWS = (
    "root-run-app",
    "root-run-tests",
    "user-sudo",
    "user-no-sudo",
    "user-not-sudoer",
    "deb-desktop",
)
USER = "tester"
UID = 1000
CA_BUNDLE = "/etc/ssl/certs/ca-certificates.crt"
# Variables that make Python, pip, curl and Node trust a given bundle (a real fresh machine
# needs none of them; this one's proxy does).
CA_VARIABLES = ("SSL_CERT_FILE", "PIP_CERT", "REQUESTS_CA_BUNDLE", "NODE_EXTRA_CA_CERTS")
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

# Entered as root of a new mount and PID namespace: the root becomes a mount of its own, gets
# /proc, /sys, /dev and a fresh /dev/shm, and replaces / (pivot_root, unlike chroot, lets a
# user inside create the namespaces Chromium's sandbox is built from).
ENTER = r"""
set -e
r="$1"; shift
mount --make-rprivate /
hostname "$(cat "$r/etc/hostname")"
mount --bind "$r" "$r"
mount -t proc proc "$r/proc"
mount --rbind /sys "$r/sys"
mount --rbind /dev "$r/dev"
mount -t tmpfs -o mode=1777 tmpfs "$r/dev/shm"
mkdir -p "$r/.host"
cd "$r"
pivot_root . .host
umount -l /.host
rmdir /.host
cd /
exec "$@"
"""


@dataclass
class Row:
    release: str
    name: str
    ok: bool = False
    seconds: float = 0.0
    note: str = ""
    extra: dict[str, str] = field(default_factory=dict)


class CheckFailedError(Exception):
    """A row's expectation did not hold; its words go into the table."""


def say(text: str) -> None:
    print(f"fresh-roots: {text}", file=sys.stderr, flush=True)


def configured_uris() -> list[str]:
    """The archive addresses this machine's apt uses (deb822 or one-line lists; comments
    skipped)."""
    uris = []
    sources = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    for source in sources:
        if source.suffix not in ("", ".list", ".sources") or not source.is_file():
            continue
        text = source.read_text(errors="replace")
        for match in re.finditer(r"(?m)^(?:URIs:\s*|deb\s+(?:\[[^\]]*\]\s+)?)(\S+)", text):
            uris.append(match.group(1).rstrip("/"))
    return uris


def debian_archive() -> str:
    """The Debian archive this machine's apt is configured with."""
    found = [u for u in configured_uris() if u.endswith("/debian")]
    return found[0] if found else "http://deb.debian.org/debian"


def security_archive() -> str:
    """The Debian security archive this machine's apt is configured with."""
    found = [u for u in configured_uris() if u.endswith("/debian-security")]
    return found[0] if found else "http://deb.debian.org/debian-security"


class Machine:
    """One fresh root: a copy of the release's debootstrap base, entered for each command."""

    def __init__(self, work: Path, release: str, name: str) -> None:
        self.release = release
        self.path = work / "roots" / f"{release}-{name}"
        self.log = work / "logs" / f"debian{release}-{name}.log"
        base = work / "base" / RELEASES[release]
        if self.path.exists():
            subprocess.run(["rm", "-rf", "--one-file-system", str(self.path)], check=True)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        self.log.write_text("")
        subprocess.run(["cp", "-a", str(base), str(self.path)], check=True)
        shutil.copy2("/etc/resolv.conf", self.path / "etc/resolv.conf")
        # As Debian's installer leaves it: the release, its updates and its security updates
        # (debootstrap lists the release alone; Debian 12's Chromium 156 is a security update).
        codename = RELEASES[release]
        (self.path / "etc/apt/sources.list").write_text(
            f"deb {debian_archive()} {codename} main\n"
            f"deb {debian_archive()} {codename}-updates main\n"
            f"deb {security_archive()} {codename}-security main\n"
        )
        # As the installer leaves it: a host name that resolves (sudo says so otherwise).
        (self.path / "etc/hostname").write_text(f"debian{release}\n")
        (self.path / "etc/hosts").write_text(
            f"127.0.0.1\tlocalhost\n127.0.1.1\tdebian{release}\n::1\tlocalhost ip6-localhost\n"
        )
        self._copy_ca_certificates()

    def _copy_ca_certificates(self) -> None:
        bundle = Path(CA_BUNDLE)
        if not bundle.is_file():
            return
        # As the bundle itself (trusted at once) and one file per certificate where
        # update-ca-certificates keeps local ones, so installing ca-certificates keeps them.
        target = self.path / CA_BUNDLE.lstrip("/")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(bundle, target)
        local = self.path / "usr/local/share/ca-certificates"
        local.mkdir(parents=True, exist_ok=True)
        pems = re.findall(
            r"-----BEGIN CERTIFICATE-----.+?-----END CERTIFICATE-----", bundle.read_text(), re.S
        )
        for n, pem in enumerate(pems):
            (local / f"host-{n:04d}.crt").write_text(pem + "\n")

    def env(self, user: bool, extra: dict[str, str] | None = None) -> list[str]:
        home = f"/home/{USER}" if user else "/root"
        pairs = {"PATH": PATH, "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb"}
        if user:
            pairs["USER"] = pairs["LOGNAME"] = USER
        for name in CA_VARIABLES:
            if os.environ.get(name):
                pairs[name] = CA_BUNDLE
        pairs.update(extra or {})
        return ["/usr/bin/env", "-i", *(f"{k}={v}" for k, v in pairs.items())]

    def command(
        self, script: str, user: bool = False, env: dict[str, str] | None = None
    ) -> list[str]:
        """The command line that runs `script` inside the root. Its processes live in a PID
        namespace of their own and end with it (--kill-child): nothing outlives a row."""
        inner = [*self.env(user, env), "/bin/bash", "-c", script]
        if user:
            inner = ["/usr/sbin/runuser", "-u", USER, "--", *inner]
        return [
            "unshare", "--mount", "--pid", "--fork", "--kill-child=SIGTERM", "--uts", "--ipc", "--",
            "/bin/sh", "-c", ENTER, "enter", str(self.path), *inner,
        ]  # fmt: skip

    def run(
        self,
        script: str,
        user: bool = False,
        env: dict[str, str] | None = None,
        check: bool = True,
        timeout: float | None = None,
    ) -> subprocess.CompletedProcess[str]:
        who = USER if user else "root"
        with self.log.open("a") as log:
            log.write(f"\n$ ({who}) {script}\n")
            log.flush()
            start = log.tell()
            # Written as it comes (a run of the tests takes half an hour), then read back.
            code = subprocess.run(
                self.command(script, user, env),
                stdout=log,
                stderr=subprocess.STDOUT,
                timeout=timeout,
                check=False,
            ).returncode
        with self.log.open("r", errors="replace") as log:
            log.seek(start)
            output = log.read()
        with self.log.open("a") as log:
            log.write(f"[exit {code}]\n")
        done = subprocess.CompletedProcess(script, code, output, "")
        if check and done.returncode != 0:
            raise CheckFailedError(f"`{script[:60]}` failed ({done.returncode}): {last(done)}")
        return done

    def add_user(self, sudo: str) -> None:
        """A normal user; `sudo` is "sudoer" (may use sudo, no password: nobody is there to
        type one), "not-sudoer" (sudo installed, not allowed) or "none"."""
        if sudo != "none":
            self.run("apt-get update -qq && apt-get install -y -qq sudo >/dev/null")
        self.run(f"useradd --create-home --uid {UID} --shell /bin/bash {USER}")
        if sudo == "sudoer":
            self.run(
                f"echo '{USER} ALL=(ALL:ALL) NOPASSWD: ALL' >/etc/sudoers.d/{USER} && "
                f"chmod 440 /etc/sudoers.d/{USER}"
            )

    def clone(self, home: str) -> str:
        target = self.path / home.lstrip("/") / "understudy"
        subprocess.run(
            ["git", "clone", "--quiet", "--no-hardlinks", str(ROOT), str(target)], check=True
        )
        if home.startswith("/home/"):
            subprocess.run(["chown", "-R", f"{UID}:{UID}", str(target)], check=True)
        return f"{home}/understudy"

    def remove(self) -> None:
        subprocess.run(["rm", "-rf", "--one-file-system", str(self.path)], check=False)


def last(done: subprocess.CompletedProcess[str], lines: int = 3) -> str:
    tail = [line for line in done.stdout.splitlines() if line.strip()][-lines:]
    return " / ".join(tail)[-300:]


def make_base(work: Path, release: str, archive: str) -> None:
    base = work / "base" / RELEASES[release]
    if (base / "etc/os-release").is_file():
        return
    say(f"making a Debian {release} root with debootstrap from {archive}")
    base.parent.mkdir(parents=True, exist_ok=True)
    partial = base.with_suffix(".partial")
    subprocess.run(["rm", "-rf", "--one-file-system", str(partial)], check=True)
    subprocess.run(
        ["debootstrap", "--variant=minbase", RELEASES[release], str(partial), archive],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    partial.rename(base)


# --- the rows --------------------------------------------------------------------------------


def started(done: subprocess.CompletedProcess[str]) -> str:
    """What a run of ./run-app --quit-after-load did, in a few words."""
    installed = "installed what was missing, " if "understudy setup:" in done.stdout else ""
    return f"{installed}loaded the console and quit"


def row_root_run_app(m: Machine, row: Row) -> None:
    src = m.clone("/root")
    row.note = started(m.run(f"cd {src} && ./run-app --quit-after-load"))


def row_root_run_tests(m: Machine, row: Row, work: Path, build: bool) -> None:
    src = m.clone("/root")
    done = m.run(f"cd {src} && ./run-tests", check=False)
    counts = re.findall(r"^=*\s*(\d+ (?:passed|failed)\b.*?) in [\d.]+s", done.stdout, re.M)
    failed = re.findall(r"^failed before pytest: .*$", done.stdout, re.M)
    row.note = "; ".join([*counts[-1:], *failed]) or last(done, 2)
    if build:  # built whatever the tests said: the package's own rows judge it
        m.run(f"cd {src} && installer/build /root/dist >/root/build.log 2>&1")
        (deb,) = (m.path / "root/dist").glob("understudy_*.deb")
        (work / "built").mkdir(exist_ok=True)
        shutil.copy2(deb, work / "built" / deb.name)
        row.note += f"; built {deb.name}"
    if done.returncode != 0:
        raise CheckFailedError(row.note)


def row_user_sudo(m: Machine, row: Row) -> None:
    m.add_user("sudoer")
    src = m.clone(f"/home/{USER}")
    done = m.run(f"cd {src} && ./run-app --quit-after-load", user=True)
    row.note = "with sudo: " + started(done)


def row_user_needs_admin(m: Machine, row: Row, sudo: str) -> None:
    """The user's first try stops and names one line; an administrator runs exactly that
    line; the user's second try starts the app."""
    m.add_user(sudo)
    src = m.clone(f"/home/{USER}")
    first = m.run(f"cd {src} && ./run-app --quit-after-load", user=True, check=False)
    if first.returncode == 0:
        raise CheckFailedError("the app started without the system packages it needs")
    if re.search(r"(?m)^sudo: ", first.stdout):
        raise CheckFailedError(f"sudo's own words reached the person: {last(first)}")
    lines = re.findall(r"(?m)^\s*(sudo apt-get .*install [^\n]+)$", first.stdout)
    if len(lines) != 1:
        raise CheckFailedError(f"no single line for an administrator: {last(first)}")
    # The administrator is root here, on a machine that may have no sudo: the same line.
    admin_line = lines[0].replace("sudo ", "")
    m.run(f"export DEBIAN_FRONTEND=noninteractive; {admin_line} >/dev/null")
    second = m.run(f"cd {src} && ./run-app --quit-after-load", user=True, check=False)
    if second.returncode != 0:
        raise CheckFailedError(f"after the administrator's one line: {last(second)}")
    packages = len(admin_line.split("install", 1)[1].split()) - 2
    row.note = f"1 administrator step ({packages} packages), then it started"


def xwd_to_png(xwd: Path, png: Path) -> None:
    """Xvfb's screen (XWD, 24-bit TrueColor as Xvfb writes it) to a PNG, with Qt."""
    from PySide6.QtGui import QImage

    data = xwd.read_bytes()
    header = struct.unpack(">25I", data[:100])
    header_size, width, height = header[0], header[4], header[5]
    bytes_per_line, ncolors = header[12], header[19]
    start = header_size + ncolors * 12
    pixels = data[start : start + bytes_per_line * height]
    image = QImage(pixels, width, height, bytes_per_line, QImage.Format.Format_RGB32)
    if not image.copy().save(str(png)):
        raise CheckFailedError("the screen could not be saved")


async def mcp_through_relay(m: Machine, meanwhile: Callable[[], None]) -> dict[str, object]:
    """The official MCP SDK client, talking to the installed `understudy-mcp` in the root (the
    way Claude Desktop starts it); the pack is opened while the session is up."""
    from mcp import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    command = m.command("exec understudy-mcp", user=True, env={"DISPLAY": ":5"})
    params = StdioServerParameters(command=command[0], args=command[1:])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        before = [t.name for t in (await session.list_tools()).tools]
        await asyncio.to_thread(meanwhile)
        after: list[str] = []
        for _ in range(120):
            after = [t.name for t in (await session.list_tools()).tools]
            if "assign_refund" in after:
                break
            await asyncio.sleep(0.5)
        called = None
        if "assign_refund" in after:
            result = await session.call_tool("assign_refund", {"ticket_id": "T-1011"})
            called = {"is_error": result.is_error, "text": result.content[0].text[:120]}
        return {"before": before, "after": after, "called": called}


class Desktop:
    """A fresh root with an X server (Xvfb, as a desktop has one), the package installed with
    apt, and the app started the way its menu entry starts it, as a normal user."""

    def __init__(self, m: Machine, work: Path, deb: Path) -> None:
        self.m = m
        self.work = work
        # What a minimal root lacks that a desktop has: an X server, and the tools this
        # check uses to find a window and press its button.
        m.run(
            "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "
            "--no-install-recommends xvfb xauth x11-utils xdotool >/dev/null"
        )
        m.add_user("none")
        shutil.copy2(deb, m.path / "tmp" / deb.name)
        pack = m.path / f"home/{USER}/refund-desk.understudy-pack.json"
        shutil.copy2(ROOT / "packs/refund-desk.understudy-pack.json", pack)
        os.chown(pack, UID, UID)
        m.run(f"DEBIAN_FRONTEND=noninteractive apt-get install -y -qq /tmp/{deb.name} >/dev/null")
        entry = (m.path / "usr/share/applications/understudy.desktop").read_text()
        self.exec_line = re.search(r"(?m)^Exec=(.+)$", entry).group(1)  # type: ignore[union-attr]
        self.fb = m.path / "tmp/fb"
        self.fb.mkdir(exist_ok=True)
        self.display = {"DISPLAY": ":5"}
        self.app_log = m.log.with_name(m.log.stem + "-app.log")
        self.data = m.path / f"home/{USER}/.local/share/Understudy"
        self.procs: list[subprocess.Popen[bytes]] = []

    def start(self) -> None:
        # The X server is the system's (root's, as a display manager starts it); the person's
        # programs connect to it.
        screen = "exec Xvfb :5 -screen 0 1400x900x24 -fbdir /tmp/fb -nolisten tcp -ac"
        self.procs.append(subprocess.Popen(self.m.command(screen), stderr=subprocess.DEVNULL))
        time.sleep(2)
        # The menu entry's command, as the person: the sandbox stays on (no variable turns
        # it off, and the user is not root).
        with self.app_log.open("w") as out:
            app = subprocess.Popen(
                self.m.command(f"exec {self.exec_line.replace(' %f', '')}", True, self.display),
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        self.procs.append(app)
        deadline = time.monotonic() + 180
        while not (self.data / "agent.json").is_file():
            if app.poll() is not None:
                words = " / ".join(self.app_log.read_text().splitlines()[-3:])[-300:]
                raise CheckFailedError(f"the app stopped at start (rc {app.returncode}): {words}")
            if time.monotonic() > deadline:
                raise CheckFailedError("the app did not start within 180 s")
            time.sleep(0.5)
        time.sleep(6)  # the console's first paint after the endpoint is up

    def screenshot(self, name: str) -> Path:
        shot = self.work / f"debian{self.m.release}-{name}.png"
        xwd_to_png(self.fb / "Xvfb_screen0", shot)
        return shot

    def open_pack(self) -> None:
        """As a file manager does: the menu entry's command with the file. The preview must
        appear (kept in a screenshot); the person clicks its Import button (bottom right;
        Enter would choose Cancel, the safe default)."""
        opener = self.exec_line.replace("%f", f"/home/{USER}/refund-desk.understudy-pack.json")
        find = (
            "for i in $(seq 120); do w=$(xdotool search --name 'Import Tool Pack' | tail -n1); "
            '[ -n "$w" ] && break; sleep 0.5; done; [ -n "$w" ] || exit 3; '
        )
        shown = self.m.run(f"{opener}; {find} sleep 2", user=True, env=self.display, check=False)
        if shown.returncode != 0:
            raise CheckFailedError(f"no preview appeared for the pack: {last(shown)}")
        self.screenshot("pack-preview")
        click = (
            f'{find} eval "$(xdotool getwindowgeometry --shell "$w")"; '
            'xdotool mousemove --window "$w" $((WIDTH - 138)) $((HEIGHT - 23)) click 1'
        )
        self.m.run(click, user=True, env=self.display)

    def stop(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()

    def purge(self) -> None:
        self.m.run("DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq understudy >/dev/null")
        left = [p for p in ("opt/understudy", "usr/bin/understudy") if (self.m.path / p).exists()]
        if left:
            raise CheckFailedError(f"purge left {left}")
        if not self.data.is_dir():
            raise CheckFailedError("purge removed the person's data")


def row_deb_desktop(m: Machine, row: Row, work: Path, deb: Path | None) -> None:
    if deb is None:
        raise CheckFailedError("no .deb to install (the oldest release's root-run-tests builds it)")
    desktop = Desktop(m, work, deb)
    try:
        desktop.start()
        shot = desktop.screenshot("desktop")
        result = asyncio.run(mcp_through_relay(m, desktop.open_pack))
        desktop.screenshot("after-pack")
        (work / f"debian{m.release}-mcp.json").write_text(json.dumps(result, indent=2))
    finally:
        desktop.stop()
    called = result["called"]
    if not isinstance(called, dict) or called.get("is_error") is not False:
        raise CheckFailedError(f"the agent could not use the pack's tool: {result}")
    desktop.purge()
    tools = len(result["before"])  # type: ignore[arg-type]
    row.note = f"{deb.name}: {tools} tools, the pack added its tool, called; {shot.name}; purged"


# --- the run ---------------------------------------------------------------------------------


def run_row(work: Path, release: str, name: str, deb: Path | None, keep: bool) -> Row:
    row = Row(release, name)
    say(f"Debian {release}: {name}")
    started = time.monotonic()
    machine = Machine(work, release, name)
    try:
        if name == "root-run-app":
            row_root_run_app(machine, row)
        elif name == "root-run-tests":
            row_root_run_tests(machine, row, work, build=release == min(RELEASES))
        elif name == "user-sudo":
            row_user_sudo(machine, row)
        elif name == "user-no-sudo":
            row_user_needs_admin(machine, row, "none")
        elif name == "user-not-sudoer":
            row_user_needs_admin(machine, row, "not-sudoer")
        elif name == "deb-desktop":
            row_deb_desktop(machine, row, work, deb)
        row.ok = True
    except (CheckFailedError, subprocess.SubprocessError, OSError) as exc:
        row.note = str(exc)[:300]
    row.seconds = time.monotonic() - started
    if not keep:
        machine.remove()
    say(f"Debian {release}: {name}: {'pass' if row.ok else 'FAIL'} ({row.note})")
    return row


def table(rows: list[Row], commit: str) -> str:
    lines = [
        f"Fresh-root check of {commit} ({time.strftime('%Y-%m-%d')}):",
        "",
        "| Debian | row | result | minutes | what happened |",
        "|---|---|---|---:|---|",
    ]
    for r in rows:
        result = "pass" if r.ok else "**FAIL**"
        note = r.note.replace("|", "/")
        lines.append(f"| {r.release} | {r.name} | {result} | {r.seconds / 60:.1f} | {note} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="fresh_roots.py",
        description="Run the README's commands and the installed package on fresh Debian "
        "12 and 13 roots (debootstrap), and print a table.",
    )
    parser.add_argument("--release", action="append", choices=sorted(RELEASES))
    parser.add_argument("--row", action="append", choices=ROWS)
    parser.add_argument("--work", type=Path, default=Path("/var/tmp/understudy-fresh-roots"))
    parser.add_argument("--deb", type=Path, help="install this .deb instead of building one")
    parser.add_argument("--keep", action="store_true", help="keep each root after its row")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        parser.error("run it as root: it makes and enters root filesystems")
    for tool in ("debootstrap", "unshare", "git"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is needed (apt-get install debootstrap util-linux git)")
    releases = args.release or sorted(RELEASES)
    rows = args.row or list(ROWS)
    work: Path = args.work.resolve()
    work.mkdir(parents=True, exist_ok=True)
    archive = debian_archive()
    for release in releases:
        make_base(work, release, archive)
    commit = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    deb: Path | None = args.deb.resolve() if args.deb else None
    # Only a package built in this run is installed (or the one given): never an old one.
    shutil.rmtree(work / "built", ignore_errors=True)
    done: list[Row] = []
    # The package is built on the oldest release first, then installed on every release.
    order = [(r, n) for r in releases for n in rows if n != "deb-desktop"]
    order += [(r, "deb-desktop") for r in releases if "deb-desktop" in rows]
    for release, name in order:
        if name == "deb-desktop" and deb is None:
            built = sorted((work / "built").glob("understudy_*.deb"))
            deb = built[-1] if built else None
        done.append(run_row(work, release, name, deb, args.keep))
    text = table(done, commit)
    (work / "table.md").write_text(text + "\n")
    print(text)
    return 0 if all(r.ok for r in done) else 1


if __name__ == "__main__":
    sys.exit(main())
