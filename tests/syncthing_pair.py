"""Real Syncthing instances on loopback that share one folder, for team-library tests.

The team library lives in a folder that a sync service carries between colleagues. To test
that with a real sync engine rather than a copy loop, ``SyncthingMesh`` starts one Syncthing
process (Debian's ``syncthing`` package, 1.19.x) per colleague on this machine. Each instance
syncs its own directory under one shared folder id, and instances connect only along the
links the test names, so a file written into one directory turns up in the others a few
seconds later, passed on by every instance along the way, with Syncthing's own temporary
files, conflict copies and ordering. ``SyncthingPair`` is the common case: two instances,
"a" and "b", linked to each other.

Instances that are not linked do not know each other's device ids at all: in a chain
lead—hub—member the member hears of the lead's files only through the hub, and a hub that
ignores a path (``set_ignores``) neither takes changes there nor passes them on.

Everything stays on 127.0.0.1: discovery, relays, NAT traversal, usage and crash reporting
and upgrades are switched off. Each instance has its own home directory (keys, config,
database) ``root/st-NAME`` and writes its log to ``root/syncthing-NAME.log``, which is the
first place to look when a test times out.

Only one side of each link dials: for a link ``(x, y)``, x knows y's exact address, while y
knows x's device id with the address "dynamic", which with discovery off means "wait to be
called". Syncthing 1.19 exchanges the opening Hello messages of its connections one at a
time, so when both sides dial at once each waits for a Hello the other has queued behind its
own dial, and both give up after a 20 s timeout (two of the first eight starts of a pair here
took 21 s). Newer Syncthing exchanges Hellos concurrently; with one dialer there is nothing
to collide. An instance is launched only once every instance it dials is listening, so its
first dials succeed: a refused dial is retried only ``RECONNECT_INTERVAL_S`` later.

Syncthing puts a ``.stfolder`` marker directory into each synced directory when it starts
(later it refuses to sync a folder whose marker has gone, in case a disk is not mounted),
keeps an instance's ignore patterns in ``.stignore`` there, and writes incoming files as
``.syncthing.*.tmp`` before renaming them, so tests that list a directory should skip names
starting with ``.st`` and ``.syncthing.``.

Usage::

    with SyncthingPair(tmp_path / "st", tmp_path / "a", tmp_path / "b") as pair:
        (tmp_path / "a" / "tool.json").write_text("{}")
        pair.wait_in_sync()

    dirs = {"lead": lead_dir, "hub": hub_dir, "member": member_dir}
    with SyncthingMesh(tmp_path / "st", dirs, [("lead", "hub"), ("hub", "member")]) as mesh:
        mesh.set_ignores("hub", ["policy"])
        (lead_dir / "tool.json").write_text("{}")
        mesh.wait_in_sync()
"""

from __future__ import annotations

import atexit
import copy
import functools
import json
import os
import re
import secrets
import shutil
import subprocess
import time
import urllib.error
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

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
# How often a disconnected device dials its peer again; the default (60 s) would leave two
# instances apart for a minute after a dropped connection. 5 s is the least Syncthing accepts.
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
# Node names become parts of file names (st-NAME, syncthing-NAME.log).
_NODE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
# How many needed files one /rest/db/remoteneed page lists.
_NEED_PAGE = 500
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
    """One instance: where it lives, how to reach it, and its process."""

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

    def post(self, path: str, body: Any = None, **params: str) -> Any:
        """POST to a REST endpoint, with ``body`` as JSON if given; returns the answer's JSON,
        or None when it answers with no body."""
        return self._request("POST", path, params, body=body)

    def _request(
        self,
        method: str,
        path: str,
        params: dict[str, str],
        timeout_s: float = _REQUEST_TIMEOUT_S,
        body: Any = None,
    ) -> Any:
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        headers = {"X-API-Key": self.api_key}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        elif method == "POST":
            # A POST without a body still needs one for urllib to send Content-Length.
            data = b""
        request = urllib.request.Request(
            f"{self.gui_url}{path}{query}", method=method, headers=headers, data=data
        )
        with _OPENER.open(request, timeout=timeout_s) as response:
            answer = response.read()
        return json.loads(answer) if answer.strip() else None

    def log_tail(self) -> str:
        """The end of this instance's log, to explain a failure."""
        try:
            text = self.log_path.read_text(errors="replace")
        except OSError:
            return "(no log)"
        return text[-_LOG_TAIL_CHARS:]


class SyncthingMesh:
    """Syncthing instances on loopback sharing one send-receive folder along chosen links.

    ``dirs`` maps each instance's name to the directory it syncs (created if missing; it may
    lie outside ``root``, which holds the instances' homes and logs). For each link
    ``(dialer, listener)`` the two instances share the folder, the first dialing the second;
    instances without a link between them never talk. Use it as a context manager, or call
    ``start()`` and ``stop()``; ``stop()`` is safe to call more than once.
    """

    def __init__(
        self,
        root: Path,
        dirs: Mapping[str, Path],
        links: Iterable[tuple[str, str]],
        folder_id: str = "understudy-team",
    ) -> None:
        self.root = Path(root).resolve()
        self.folder_id = folder_id
        self._nodes: dict[str, SyncthingNode] = {}
        for name, directory in dirs.items():
            if not _NODE_NAME.fullmatch(name):
                raise ValueError(f"node name {name!r} does not fit in a file name")
            folder_path = Path(directory).resolve()
            # Two instances on one directory would each take the other's writes for local
            # changes, which is no test of anything.
            if any(node.folder_path == folder_path for node in self._nodes.values()):
                raise ValueError(f"two nodes sync {folder_path}")
            self._nodes[name] = SyncthingNode(
                name, self.root / f"st-{name}", folder_path, self.root / f"syncthing-{name}.log"
            )
        self.links: tuple[tuple[str, str], ...] = tuple(links)
        linked: set[frozenset[str]] = set()
        for dialer, listener in self.links:
            for name in (dialer, listener):
                if name not in self._nodes:
                    raise ValueError(f"link ({dialer!r}, {listener!r}): no node {name!r}")
            ends = frozenset((dialer, listener))
            if len(ends) < 2:
                raise ValueError(f"node {dialer!r} is linked to itself")
            # A second link, either way round, would mean both sides dial.
            if ends in linked:
                raise ValueError(f"{dialer!r} and {listener!r} are linked twice")
            linked.add(ends)
        self._paused: set[str] = set()
        self._started = False

    @property
    def nodes(self) -> tuple[SyncthingNode, ...]:
        """Every instance, in the order of ``dirs``."""
        return tuple(self._nodes.values())

    def node(self, name: str) -> SyncthingNode:
        """The instance called ``name``."""
        try:
            return self._nodes[name]
        except KeyError:
            raise KeyError(f"no Syncthing node {name!r} (there are {list(self._nodes)})") from None

    def peers(self, name: str) -> tuple[SyncthingNode, ...]:
        """The instances linked to ``name``, whichever side dials."""
        return tuple(
            self._nodes[other]
            for link in self.links
            if name in link
            for other in link
            if other != name
        )

    # -- lifecycle -------------------------------------------------------------------------

    def start(self, timeout_s: float = HANG_S) -> None:
        """Configure and start every instance; return once all links are connected and every
        linked pair is in sync.

        Raises ``TimeoutError`` (with every log's tail) if that takes longer than
        ``timeout_s``, or ``RuntimeError`` if an instance exits. Either way nothing is left
        running.
        """
        if self._started:
            raise RuntimeError(f"{type(self).__name__} is already started")
        if not syncthing_available():
            raise RuntimeError("syncthing is not installed (apt-get install syncthing)")
        deadline = time.monotonic() + timeout_s
        self._started = True
        # If the test run dies without calling stop(), the processes must still go.
        atexit.register(self.stop)
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            ports = iter(free_ports(2 * len(self._nodes)))
            for node in self.nodes:
                node.gui_port, node.listen_port = next(ports), next(ports)
                node.api_key = secrets.token_urlsafe(24)
                self._generate(node)
            for node in self.nodes:
                self._write_config(node)
                # Syncthing would create a missing directory too, but the caller may want
                # to look into it before the first scan has happened.
                node.folder_path.mkdir(parents=True, exist_ok=True)
            for wave in self._launch_order():
                for node in wave:
                    self._launch(node)
                names = ", ".join(node.name for node in wave)
                self._wait(deadline, f"{names} listen", functools.partial(self._listen, wave))
            self._wait(deadline, "every REST API answers", self._apis_answer)
            self._wait(deadline, "every link connects", self._connected)
            self.wait_in_sync(max(deadline - time.monotonic(), 0.1))
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        """Stop every instance (politely, then by force) and wait until they are gone."""
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
        self._paused.clear()
        if self._started:
            atexit.unregister(self.stop)
            self._started = False

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    # -- changing the mesh -----------------------------------------------------------------

    def set_ignores(self, name: str, patterns: Iterable[str], timeout_s: float = HANG_S) -> None:
        """Give instance ``name`` these ignore patterns (``.stignore`` syntax), replacing any
        it had, and return once they are in effect.

        Syncthing writes them to ``.stignore`` in the instance's directory and loads them; the
        scan this then runs (and waits for) marks what the instance already holds under them
        as ignored. From then on it neither pulls changes to ignored paths nor announces its
        own, so its other peers do not hear of them through it; copies it passed on before
        stay where they are. Raises ``ValueError`` if Syncthing cannot parse the patterns.
        """
        self._require_started()
        node = self.node(name)
        lines = list(patterns)
        deadline = time.monotonic() + timeout_s
        answer = node.post("/rest/db/ignores", {"ignore": lines}, folder=self.folder_id)
        if answer.get("error"):
            raise ValueError(f"syncthing {name} cannot use ignores {lines!r}: {answer['error']}")
        # Syncthing only schedules a scan after saving the patterns; ours answers once a scan,
        # which loads the patterns first, has finished.
        self._scan(node, deadline)
        status = node.get("/rest/db/status", folder=self.folder_id)
        expected = any(line.strip() and not line.startswith("//") for line in lines)
        if status["ignorePatterns"] != expected:
            raise RuntimeError(f"syncthing {name} did not take up the ignores {lines!r}")

    def pause(self, name: str, timeout_s: float = HANG_S) -> None:
        """Take instance ``name`` offline: it pauses all its peers, so every link it has
        drops and stays down, while it goes on watching and scanning its own directory.

        Returns once each of its links is down on both ends. ``wait_in_sync()`` leaves its
        links out until ``resume(name)``.
        """
        self._require_started()
        node = self.node(name)
        deadline = time.monotonic() + timeout_s
        node.post("/rest/system/pause")
        self._paused.add(name)
        self._wait(deadline, f"{name} is offline", functools.partial(self._disconnected, node))

    def resume(self, name: str, timeout_s: float = HANG_S) -> None:
        """Bring instance ``name`` back after ``pause(name)``; return once its links (to
        peers that are not paused themselves) are connected again."""
        self._require_started()
        node = self.node(name)
        deadline = time.monotonic() + timeout_s
        # Unpausing a device makes Syncthing dial it at once rather than at its next reconnect
        # round, up to RECONNECT_INTERVAL_S away: so for the peers this instance dials...
        node.post("/rest/system/resume")
        self._paused.discard(name)
        # ... and the peers that dial this instance, which still count it as unpaused, are
        # nudged the same way: a moment's pause on their side changes nothing while the link
        # is down.
        for dialer, listener in self._active_links():
            if listener is node and not self._connections(dialer).get(node.device_id):
                dialer.post("/rest/system/pause", device=node.device_id)
                dialer.post("/rest/system/resume", device=node.device_id)
        self._wait(deadline, f"{name} is back online", self._connected)

    # -- waiting ---------------------------------------------------------------------------

    def wait_in_sync(self, timeout_s: float = HANG_S, rescan: bool = True) -> None:
        """Wait until every linked pair of instances (paused ones left out) is in step.

        For each link that is: the two are connected; each has the other's latest index
        (the index sequence it holds for the peer, from ``/rest/db/completion``, equals the
        peer's own); each reports the folder ``idle`` with nothing left to pull
        (``/rest/db/status``); and each sees the other with nothing to pull or delete, apart
        from files that either of them ignores (``set_ignores``), which stay out of step for
        good: a hub that ignores ``policy`` leaves the member "needing" the lead's policy
        files, and the lead the member's.

        With ``rescan`` (the default) every folder is scanned first, so a change written
        just before this call counts even if the watcher has not reported it yet; otherwise
        every side could look idle and complete before anyone noticed the change.
        """
        deadline = time.monotonic() + timeout_s
        if rescan:
            for node in self.nodes:
                try:
                    self._scan(node, deadline)
                except OSError:
                    # Most likely the instance has died; the wait below says so with its
                    # log, which explains more than a refused connection.
                    break
        self._wait(deadline, f"folder {self.folder_id!r} in sync on every link", self._in_sync)

    def wait_for(
        self,
        condition: Callable[[], object],
        what: str = "the condition holds",
        timeout_s: float = HANG_S,
    ) -> None:
        """Poll ``condition`` until it returns something true, failing early if an instance
        exits, and with every instance's state and log if ``timeout_s`` passes.

        An ``OSError`` from ``condition`` counts as "not yet": a file Syncthing is replacing
        can be missing for a moment.
        """
        self._wait(time.monotonic() + timeout_s, what, condition)

    def _scan(self, node: SyncthingNode, deadline: float) -> None:
        # The scan endpoint answers when the scan is done, which can take a moment for a big
        # folder, hence the longer timeout.
        node._request(
            "POST",
            "/rest/db/scan",
            {"folder": self.folder_id},
            timeout_s=max(deadline - time.monotonic(), _REQUEST_TIMEOUT_S),
        )

    def _active_links(self) -> list[tuple[SyncthingNode, SyncthingNode]]:
        """The links between instances that are not paused, as (dialer, listener)."""
        return [
            (self._nodes[dialer], self._nodes[listener])
            for dialer, listener in self.links
            if dialer not in self._paused and listener not in self._paused
        ]

    def _listen(self, nodes: list[SyncthingNode]) -> bool:
        for node in nodes:
            status = node.get("/rest/system/status")
            listener = status["connectionServiceStatus"].get(node.listen_address, {})
            if listener.get("error", "") is not None or not listener.get("lanAddresses"):
                return False
        return True

    def _apis_answer(self) -> bool:
        return all(node.get("/rest/system/ping") == {"ping": "pong"} for node in self.nodes)

    def _connections(self, node: SyncthingNode) -> dict[str, bool]:
        """Which devices ``node`` is connected to, by device id."""
        connections = node.get("/rest/system/connections")["connections"]
        return {device: bool(state.get("connected")) for device, state in connections.items()}

    def _connected(self) -> bool:
        for dialer, listener in self._active_links():
            for node, peer in ((dialer, listener), (listener, dialer)):
                if not self._connections(node).get(peer.device_id, False):
                    return False
        return True

    def _disconnected(self, node: SyncthingNode) -> bool:
        if any(self._connections(node).values()):
            return False
        return not any(
            self._connections(peer).get(node.device_id) for peer in self.peers(node.name)
        )

    def _completion(self, node: SyncthingNode, device: SyncthingNode) -> dict[str, Any]:
        """How complete ``node`` believes ``device`` (itself, or a peer) to be."""
        completion: dict[str, Any] = node.get(
            "/rest/db/completion", folder=self.folder_id, device=device.device_id
        )
        return completion

    def _in_sync(self) -> bool:
        links = self._active_links()
        if not self._connected():
            return False
        nodes = list({node.name: node for link in links for node in link}.values())
        directions = [pair for link in links for pair in (link, link[::-1])]
        # Each instance's own index sequence first, then what its peers hold of it: if a
        # change comes in between, the two differ and this round says "not yet".
        own = {node.name: self._completion(node, node)["sequence"] for node in nodes}
        seen: dict[tuple[str, str], dict[str, Any]] = {}
        for node, peer in directions:
            completion = self._completion(node, peer)
            # 1.19's completion has no "remoteState" to say whether the peer's index has
            # arrived; its sequence tells how far it has.
            if completion["sequence"] != own[peer.name]:
                return False
            seen[node.name, peer.name] = completion
        # The statuses after the sequences: an index that has arrived shows in what an
        # instance needs at once, before its puller wakes up.
        for node in nodes:
            status = node.get("/rest/db/status", folder=self.folder_id)
            if status["state"] != "idle" or status["needTotalItems"] != 0:
                return False
        for node, peer in directions:
            completion = seen[node.name, peer.name]
            complete = (
                completion["completion"] >= 100
                and completion["needItems"] == 0
                and completion["needDeletes"] == 0
            )
            if not complete and not self._needs_only_ignored(node, peer):
                return False
        return True

    def _needs_only_ignored(self, node: SyncthingNode, peer: SyncthingNode) -> bool:
        """Whether all that ``node`` believes ``peer`` still needs is ignored at either end.

        Ignore patterns leave such needs for good. ``node`` may know a file from another
        peer's index and hold it only as ignored, so it never offers it; or ``peer`` ignores
        a file and so announces its own copy, with an older or concurrent version, as
        ignored, which ``node`` counts as not having the file.
        """
        page = 1
        while True:
            needed = node.get(
                "/rest/db/remoteneed",
                folder=self.folder_id,
                device=peer.device_id,
                page=str(page),
                perpage=str(_NEED_PAGE),
            )["files"]
            for entry in needed:
                if not any(self._ignores(end, entry["name"]) for end in (node, peer)):
                    return False
            if len(needed) < _NEED_PAGE:
                return True
            page += 1

    def _ignores(self, node: SyncthingNode, name: str) -> bool:
        """Whether ``node`` holds the file ``name`` as ignored."""
        try:
            held = node.get("/rest/db/file", folder=self.folder_id, file=name)
        except urllib.error.HTTPError as exc:
            # 404: the instance has never heard of the file, so it does not ignore it.
            if exc.code == 404:
                return False
            raise
        return bool(held["local"]["ignored"])

    def _wait(self, deadline: float, what: str, condition: Callable[[], object]) -> None:
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
        names = {node.device_id: node.name for node in self.nodes}
        parts: list[str] = []
        for node in self.nodes:
            try:
                status: Any = node.get("/rest/db/status", folder=self.folder_id)
                errors: Any = node.get("/rest/folder/errors", folder=self.folder_id)
                connected: Any = sorted(
                    names.get(device, device)
                    for device, up in self._connections(node).items()
                    if up
                )
            except (OSError, ValueError) as exc:
                status, errors, connected = f"(no answer: {exc})", "", ""
            paused = " (paused)" if node.name in self._paused else ""
            parts.append(
                f"--- syncthing {node.name}{paused} ({node.log_path})\n"
                f"status: {status}\nerrors: {errors}\nconnected to: {connected}\n"
                f"{node.log_tail()}"
            )
        return "\n".join(parts)

    def _require_started(self) -> None:
        if not self._started:
            raise RuntimeError(f"{type(self).__name__} is not started")

    # -- setting up ------------------------------------------------------------------------

    def _launch_order(self) -> list[list[SyncthingNode]]:
        """The instances in waves, each wave dialing only instances of earlier waves.

        Launching a wave once the earlier ones listen lets every first dial succeed. Links
        that form a cycle leave no such order; what is left then starts at once, and a dial
        that finds its peer not listening yet is retried ``RECONNECT_INTERVAL_S`` later.
        """
        dials = {name: {b for a, b in self.links if a == name} for name in self._nodes}
        waves: list[list[SyncthingNode]] = []
        launched: set[str] = set()
        while len(launched) < len(dials):
            left = [name for name in dials if name not in launched]
            wave = [name for name in left if dials[name] <= launched] or left
            waves.append([self._nodes[name] for name in wave])
            launched.update(wave)
        return waves

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

    def _write_config(self, node: SyncthingNode) -> None:
        """Patch the generated config.xml: loopback only, the linked peers, the shared folder.

        A peer this instance dials gets its exact address; one that dials this instance gets
        "dynamic", so this instance only accepts its calls (see the module docstring for why
        only one side dials). Instances not linked to this one are left out entirely.
        """
        peers = [(self._nodes[b], True) for a, b in self.links if a == node.name]
        peers += [(self._nodes[a], False) for a, b in self.links if b == node.name]

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
        position = list(config).index(this_device)
        for peer, dial in peers:
            peer_device = copy.deepcopy(_child(defaults, "device"))
            peer_device.set("id", peer.device_id)
            peer_device.set("name", peer.name)
            _set(peer_device, "address", peer.listen_address if dial else "dynamic")
            position += 1
            config.insert(position, peer_device)

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
        members = [node.device_id] + [peer.device_id for peer, _ in peers]
        for position, device_id in enumerate(members):
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


class SyncthingPair(SyncthingMesh):
    """Two instances on loopback sharing one send-receive folder: ``a`` syncs ``a_dir`` and
    dials ``b``, which syncs ``b_dir``.

    ``root`` holds both instances' homes and logs (``syncthing-a.log``, ``syncthing-b.log``);
    the directories are created if missing, and they may lie outside ``root``.
    """

    def __init__(
        self, root: Path, a_dir: Path, b_dir: Path, folder_id: str = "understudy-team"
    ) -> None:
        super().__init__(root, {"a": a_dir, "b": b_dir}, [("a", "b")], folder_id)
        self.a = self.node("a")
        self.b = self.node("b")


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
