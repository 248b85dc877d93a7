"""Two real Syncthing instances on loopback that share one folder, for team-library tests.

The team library lives in a folder that a sync service carries between colleagues. To test
that with a real sync engine rather than a copy loop, ``SyncthingPair`` starts two Syncthing
processes (Debian's ``syncthing`` package, 1.19.x) on this machine: instance A syncs
``a_dir`` and instance B syncs ``b_dir`` under one folder id, so a file written into one
directory turns up in the other a few seconds later, with Syncthing's own temporary files,
conflict copies and ordering along the way.

Everything stays on 127.0.0.1: discovery, relays, NAT traversal, usage and crash reporting
and upgrades are switched off. Each instance has its own home directory (keys, config,
database) under ``root`` and writes its log to ``root/syncthing-a.log`` or
``root/syncthing-b.log``, which are the first place to look when a test times out.

Only A dials: A knows B's exact address, while B knows A's device id with the address
"dynamic", which with discovery off means "wait to be called". Syncthing 1.19 exchanges the
opening Hello messages of its connections one at a time, so when both sides dial at once
each waits for a Hello the other has queued behind its own dial, and both give up after a
20 s timeout (two of the first eight starts here took 21 s). Newer Syncthing exchanges Hellos
concurrently; with one dialer there is nothing to collide.

Syncthing puts a ``.stfolder`` marker directory into each synced directory when it starts
(later it refuses to sync a folder whose marker has gone, in case a disk is not mounted),
and writes incoming files as ``.syncthing.*.tmp`` before renaming them, so tests that list a
directory should skip names starting with ``.st`` and ``.syncthing.``.

Usage::

    with SyncthingPair(tmp_path / "st", tmp_path / "a", tmp_path / "b") as pair:
        (tmp_path / "a" / "tool.json").write_text("{}")
        pair.wait_in_sync()
"""

from __future__ import annotations

import atexit
import copy
import json
import os
import re
import secrets
import shutil
import subprocess
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from process_group import free_ports, stop_group
from waiting import HANG_S

SYNCTHING = "syncthing"

# The test folder should react quickly: the watcher reports a change after 1 s, and a full
# rescan every 5 s catches anything the watcher missed (inotify can drop events).
WATCHER_DELAY_S = 1
RESCAN_INTERVAL_S = 5
# After a failed pull Syncthing waits a minute before trying again by default, which would
# turn one unlucky race (a file changing while it is copied) into a timed-out test.
PULLER_PAUSE_S = 1
# How often a disconnected device dials its peer again; the default (60 s) would leave the
# pair apart for a minute after a dropped connection. 5 s is the least Syncthing accepts.
RECONNECT_INTERVAL_S = 5

# Proxy settings would send Syncthing's loopback connections (and our REST calls) through a
# proxy that cannot reach this machine's 127.0.0.1.
_PROXY_VARIABLES = (
    "http_proxy",
    "https_proxy",
    "all_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "NO_PROXY",
)
# These override the GUI address and API key in config.xml, so a developer's own settings
# would make our REST calls miss.
_OVERRIDE_VARIABLES = ("STGUIADDRESS", "STGUIAPIKEY")

_POLL_S = 0.1
# A device id: eight groups of seven base32 characters.
_DEVICE_ID = re.compile(r"\b[A-Z2-7]{7}(?:-[A-Z2-7]{7}){7}\b")
# What /rest/db/status says the folder holds across all devices.
_GLOBAL_COUNTS = (
    "globalFiles",
    "globalDirectories",
    "globalSymlinks",
    "globalDeleted",
    "globalBytes",
)
# Deadlines that only report a hang (tests/waiting.py): a busy machine is slow, not broken.
_REQUEST_TIMEOUT_S = HANG_S / 4
_STOP_GRACE_S = 10.0
_LOG_TAIL_CHARS = 4000

# Our own opener without proxy handling, for the same reason as _PROXY_VARIABLES.
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def syncthing_available() -> bool:
    """Whether a ``syncthing`` binary is on PATH (tests skip themselves without one)."""
    return shutil.which(SYNCTHING) is not None


@dataclass
class SyncthingNode:
    """One of the two instances: where it lives, how to reach it, and its process."""

    name: str
    home: Path
    folder_path: Path
    log_path: Path
    gui_port: int = 0
    listen_port: int = 0
    api_key: str = ""
    device_id: str = ""
    process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    log_file: IO[bytes] | None = field(default=None, repr=False)

    @property
    def gui_url(self) -> str:
        """Base URL of the GUI and REST API, for example ``http://127.0.0.1:40123``."""
        return f"http://127.0.0.1:{self.gui_port}"

    @property
    def listen_address(self) -> str:
        """The address this instance accepts sync connections on."""
        return f"tcp://127.0.0.1:{self.listen_port}"

    def get(self, path: str, **params: str) -> Any:
        """GET a REST endpoint (``path`` like ``/rest/db/status``) and return its JSON."""
        return self._request("GET", path, params)

    def post(self, path: str, **params: str) -> Any:
        """POST to a REST endpoint; returns its JSON, or None when it answers with no body."""
        return self._request("POST", path, params)

    def _request(
        self, method: str, path: str, params: dict[str, str], timeout_s: float = _REQUEST_TIMEOUT_S
    ) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        request = urllib.request.Request(
            f"{self.gui_url}{path}{query}",
            method=method,
            headers={"X-API-Key": self.api_key},
            # A POST without a body still needs one for urllib to send Content-Length.
            data=b"" if method == "POST" else None,
        )
        with _OPENER.open(request, timeout=timeout_s) as response:
            body = response.read()
        return json.loads(body) if body.strip() else None

    def log_tail(self) -> str:
        """The end of this instance's log, to explain a failure."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return text[-_LOG_TAIL_CHARS:]


class SyncthingPair:
    """Two Syncthing instances on loopback sharing one send-receive folder.

    ``root`` holds both instances' homes and logs; ``a_dir`` and ``b_dir`` are the synced
    directories (created if missing, and they may lie outside ``root``). Use it as a context
    manager, or call ``start()`` and ``stop()``; ``stop()`` is safe to call more than once.
    """

    def __init__(
        self, root: Path, a_dir: Path, b_dir: Path, folder_id: str = "understudy-team"
    ) -> None:
        self.root = Path(root).resolve()
        self.folder_id = folder_id
        self.a = SyncthingNode(
            "a", self.root / "st-a", Path(a_dir).resolve(), self.root / "syncthing-a.log"
        )
        self.b = SyncthingNode(
            "b", self.root / "st-b", Path(b_dir).resolve(), self.root / "syncthing-b.log"
        )
        self._started = False

    @property
    def nodes(self) -> tuple[SyncthingNode, SyncthingNode]:
        """Both instances, A first."""
        return (self.a, self.b)

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout_s: float = HANG_S) -> None:
        """Configure and start both instances; return once they are connected and in sync.

        Raises ``TimeoutError`` (with both logs' tails) if that takes longer than
        ``timeout_s``, or ``RuntimeError`` if an instance exits. Either way nothing is left
        running.
        """
        if self._started:
            raise RuntimeError("SyncthingPair is already started")
        if not syncthing_available():
            raise RuntimeError("syncthing is not installed (apt-get install syncthing)")
        deadline = time.monotonic() + timeout_s
        self._started = True
        # If the test run dies without calling stop(), the processes must still go.
        atexit.register(self.stop)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            ports = iter(free_ports(4))
            for node in self.nodes:
                node.gui_port, node.listen_port = next(ports), next(ports)
                node.api_key = secrets.token_urlsafe(24)
                self._generate(node)
            for node, peer in ((self.a, self.b), (self.b, self.a)):
                self._write_config(node, peer, dial_peer=node is self.a)
                # Syncthing would create a missing directory too, but the caller may want
                # to look into it before the first scan has happened.
                node.folder_path.mkdir(parents=True, exist_ok=True)
            # B first, and A only once B is listening: A's first dial then succeeds, where
            # a refused one would be retried only 5 s later.
            self._launch(self.b)
            self._wait(deadline, "B listens", self._b_listens)
            self._launch(self.a)
            self._wait(deadline, "both REST APIs answer", self._apis_answer)
            self._wait(deadline, "the two devices connect", self._connected)
            self.wait_in_sync(max(deadline - time.monotonic(), 0.1))
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop both instances (politely, then by force) and wait until they are gone."""
        for node in self.nodes:
            if node.process is not None:
                # Syncthing shuts down cleanly on SIGTERM. The whole process group is
                # signalled because the process we started is only the monitor; the
                # instance itself is its child.
                stop_group(node.process, _STOP_GRACE_S)
                node.process = None
            if node.log_file is not None:
                node.log_file.close()
                node.log_file = None
        if self._started:
            atexit.unregister(self.stop)
            self._started = False

    def __enter__(self) -> SyncthingPair:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- waiting ---------------------------------------------------------------------------

    def wait_in_sync(self, timeout_s: float = HANG_S, rescan: bool = True) -> None:
        """Wait until both instances have everything the other has.

        That is: the devices are connected, each reports the folder ``idle`` with nothing
        left to pull (``/rest/db/status``), and each sees the other 100 % complete with
        nothing to pull or delete (``/rest/db/completion``).

        With ``rescan`` (the default) both folders are scanned first, so a change written
        just before this call counts even if the watcher has not reported it yet; otherwise
        both sides could look idle and complete before anyone noticed the change.
        """
        deadline = time.monotonic() + timeout_s
        if rescan:
            for node in self.nodes:
                # The scan endpoint answers when the scan is done, which can take a moment
                # for a big folder, hence the longer timeout.
                try:
                    node._request(
                        "POST",
                        "/rest/db/scan",
                        {"folder": self.folder_id},
                        timeout_s=max(deadline - time.monotonic(), _REQUEST_TIMEOUT_S),
                    )
                except OSError:
                    # Most likely the instance has died; the wait below says so with its
                    # log, which explains more than a refused connection.
                    break
        self._wait(deadline, f"folder {self.folder_id!r} in sync on both", self._in_sync)

    def _b_listens(self) -> bool:
        status = self.b.get("/rest/system/status")
        listener = status["connectionServiceStatus"].get(self.b.listen_address, {})
        return listener.get("error", "") is None and bool(listener.get("lanAddresses"))

    def _apis_answer(self) -> bool:
        return all(node.get("/rest/system/ping") == {"ping": "pong"} for node in self.nodes)

    def _connected(self) -> bool:
        for node, peer in ((self.a, self.b), (self.b, self.a)):
            connections = node.get("/rest/system/connections")["connections"]
            if not connections.get(peer.device_id, {}).get("connected", False):
                return False
        return True

    def _in_sync(self) -> bool:
        if not self._connected():
            return False
        globals_seen: list[tuple[int, ...]] = []
        for node, peer in ((self.a, self.b), (self.b, self.a)):
            status = node.get("/rest/db/status", folder=self.folder_id)
            if status["state"] != "idle" or status["needTotalItems"] != 0:
                return False
            globals_seen.append(tuple(status[key] for key in _GLOBAL_COUNTS))
            completion = node.get(
                "/rest/db/completion", folder=self.folder_id, device=peer.device_id
            )
            if (
                completion["completion"] < 100
                or completion["needItems"] != 0
                or completion["needDeletes"] != 0
            ):
                return False
        # Both sides agreeing on what the folder holds rules out the moment when one side
        # has not yet heard of a change the other has: 1.19's completion has no
        # "remoteState" to say whether the peer's index has arrived at all.
        return globals_seen[0] == globals_seen[1]

    def _wait(self, deadline: float, what: str, condition: Callable[[], bool]) -> None:
        """Poll ``condition`` until it holds, failing early if an instance has exited.

        A REST call that fails counts as "not yet": the API may not be up yet, or an
        instance may be dying, which the next round then reports.
        """
        while True:
            for node in self.nodes:
                if node.process is not None and node.process.poll() is not None:
                    raise RuntimeError(
                        f"syncthing {node.name} exited with code {node.process.returncode} "
                        f"while waiting until {what}\n{self._describe()}"
                    )
            try:
                if condition():
                    return
            except OSError:
                # urllib's errors (refused, reset, timed out) are all OSErrors.
                pass
            if time.monotonic() >= deadline:
                raise TimeoutError(f"timed out waiting until {what}\n{self._describe()}")
            time.sleep(_POLL_S)

    def _describe(self) -> str:
        """What each instance reports and the end of its log, for a failure message."""
        parts: list[str] = []
        for node in self.nodes:
            try:
                status: Any = node.get("/rest/db/status", folder=self.folder_id)
                errors: Any = node.get("/rest/folder/errors", folder=self.folder_id)
            except (OSError, ValueError) as exc:
                status, errors = f"(no answer: {exc})", ""
            parts.append(
                f"--- syncthing {node.name} ({node.log_path})\n"
                f"status: {status}\nerrors: {errors}\n{node.log_tail()}"
            )
        return "\n".join(parts)

    # -- setting up ------------------------------------------------------------------------

    def _generate(self, node: SyncthingNode) -> None:
        """Create the instance's keys and a fresh config.xml, and read its device id."""
        if node.home.exists():
            # A home left by an earlier run would carry its old database and device id.
            shutil.rmtree(node.home)
        env = self._environment(node)
        subprocess.run(
            [
                SYNCTHING,
                "generate",
                f"--home={node.home}",
                "--no-default-folder",
                # We choose the ports ourselves, so probing for free ones is wasted time.
                "--skip-port-probing",
            ],
            env=env,
            check=True,
            capture_output=True,
        )
        # `serve --device-id` prints just the id, but debug tracing (STTRACE) adds lines to
        # the same output, so the id is picked out by its shape.
        result = subprocess.run(
            [SYNCTHING, "serve", f"--home={node.home}", "--device-id"],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        ids = _DEVICE_ID.findall(result.stdout)
        if not ids:
            raise RuntimeError(f"no device id in {result.stdout!r}")
        node.device_id = ids[-1]

    def _write_config(self, node: SyncthingNode, peer: SyncthingNode, dial_peer: bool) -> None:
        """Patch the generated config.xml: loopback only, the peer, and the shared folder.

        ``dial_peer`` gives the peer's exact address; otherwise this instance only accepts
        the peer's calls (see the module docstring for why only one side dials).
        """
        path = node.home / "config.xml"
        tree = ET.parse(path)
        config = tree.getroot()

        options = _child(config, "options")
        for listen in options.findall("listenAddress"):
            options.remove(listen)
        _set(options, "listenAddress", node.listen_address)
        for tag, value in {
            # Nothing leaves the machine: no discovery servers, no multicast announcements,
            # no relays, no UPnP/NAT-PMP.
            "globalAnnounceEnabled": "false",
            "localAnnounceEnabled": "false",
            "relaysEnabled": "false",
            "natEnabled": "false",
            "announceLANAddresses": "false",
            # -1 means usage reporting was declined, so Syncthing never asks or sends.
            "urAccepted": "-1",
            "crashReportingEnabled": "false",
            "autoUpgradeIntervalH": "0",
            "startBrowser": "false",
            # Restarting itself after a suspend would drop the connection mid-test.
            "restartOnWakeup": "false",
            # A low-priority process syncs slowly when the test machine is busy.
            "setLowPriority": "false",
            "reconnectionIntervalS": str(RECONNECT_INTERVAL_S),
        }.items():
            _set(options, tag, value)
        for notice in options.findall("unackedNotificationID"):
            options.remove(notice)

        gui = _child(config, "gui")
        gui.set("enabled", "true")
        gui.set("tls", "false")
        _set(gui, "address", f"127.0.0.1:{node.gui_port}")
        _set(gui, "apikey", node.api_key)

        this_device = next(d for d in config.findall("device") if d.get("id") == node.device_id)
        this_device.set("name", node.name)
        defaults = _child(config, "defaults")
        peer_device = copy.deepcopy(_child(defaults, "device"))
        peer_device.set("id", peer.device_id)
        peer_device.set("name", peer.name)
        _set(peer_device, "address", peer.listen_address if dial_peer else "dynamic")
        config.insert(list(config).index(this_device) + 1, peer_device)

        folder = copy.deepcopy(_child(defaults, "folder"))
        folder.attrib.update(
            {
                "id": self.folder_id,
                "label": self.folder_id,
                "path": str(node.folder_path),
                "type": "sendreceive",
                "rescanIntervalS": str(RESCAN_INTERVAL_S),
                "fsWatcherEnabled": "true",
                "fsWatcherDelayS": str(WATCHER_DELAY_S),
            }
        )
        for device in folder.findall("device"):
            folder.remove(device)
        for position, device_id in enumerate((node.device_id, peer.device_id)):
            member = ET.Element("device", {"id": device_id, "introducedBy": ""})
            ET.SubElement(member, "encryptionPassword")
            folder.insert(position + 1, member)
        _set(folder, "pullerPauseS", str(PULLER_PAUSE_S))
        config.insert(0, folder)

        tree.write(path, encoding="utf-8", xml_declaration=False)

    def _launch(self, node: SyncthingNode) -> None:
        node.log_file = node.log_path.open("ab")
        node.process = subprocess.Popen(
            [
                SYNCTHING,
                "serve",
                f"--home={node.home}",
                "--no-browser",
                # Syncthing 1.19 still runs as a monitor process with a child doing the
                # work, even with this flag; the flag stops the monitor from starting the
                # child again after it exits, so the instance stays stopped when we stop it.
                "--no-restart",
                "--no-upgrade",
                # Log lines with microsecond times, to see how long each step takes.
                "--logflags=6",
            ],
            env=self._environment(node),
            stdin=subprocess.DEVNULL,
            stdout=node.log_file,
            stderr=subprocess.STDOUT,
            # Its own process group, so stop() can signal it and anything it spawns, and a
            # Ctrl+C in the terminal reaches only the test runner, which then stops it.
            start_new_session=True,
        )

    def _environment(self, node: SyncthingNode) -> dict[str, str]:
        env = {
            key: value
            for key, value in os.environ.items()
            if key not in _PROXY_VARIABLES and key not in _OVERRIDE_VARIABLES
        }
        env.update(
            {
                # Syncthing expands "~" in paths against HOME; keep that inside the instance.
                "HOME": str(node.home),
                "STNODEFAULTFOLDER": "1",
                "STNOUPGRADE": "1",
                "STNORESTART": "1",
            }
        )
        # Naming the SHA-256 implementation skips the second of benchmarking Syncthing
        # otherwise does at every start to choose one; a developer's own choice stands.
        env.setdefault("STHASHING", "standard")
        return env


def _child(parent: ET.Element, tag: str) -> ET.Element:
    found = parent.find(tag)
    if found is None:
        raise RuntimeError(f"generated config.xml has no <{tag}> under <{parent.tag}>")
    return found


def _set(parent: ET.Element, tag: str, text: str) -> None:
    """Set the text of ``parent``'s child ``tag``, adding the child if it is missing."""
    element = parent.find(tag)
    if element is None:
        element = ET.SubElement(parent, tag)
    element.text = text
