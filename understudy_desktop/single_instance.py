"""One app per data dir. A second start on the same data dir hands its file (if any) to the
running one, which comes to the front, and exits; two apps never write one store.

A QLockFile in the data dir says who owns it (a crashed owner's stale lock is taken over);
a QLocalServer named after the data dir carries the hand-over.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import QByteArray, QLockFile, QObject
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from understudy_desktop.start_problems import StartProblemError

log = logging.getLogger(__name__)
LOCK_NAME = "understudy.lock"


def server_name(data_dir: Path) -> str:
    digest = hashlib.sha256(str(data_dir.resolve()).encode()).hexdigest()[:16]
    return f"understudy-{digest}"


class InstanceGuard(QObject):
    def __init__(self, data_dir: Path, parent: QObject | None = None) -> None:
        super().__init__(parent)
        data_dir.mkdir(parents=True, exist_ok=True)
        self._data_dir = data_dir
        self._lock = QLockFile(str(data_dir / LOCK_NAME))
        self._lock.setStaleLockTime(0)  # only a dead owner's lock is stale, never a slow one
        self._server: QLocalServer | None = None
        self._on_message: Callable[[dict[str, str]], None] = lambda _m: None

    def acquire(self) -> bool:
        """True: this start has the folder. False: another Understudy has it. A lock that
        cannot be taken at all (a full disk, a folder it may not write) is StartProblemError."""
        if not self._lock.tryLock(200):
            error = self._lock.error()
            if error == QLockFile.LockError.LockFailedError:
                return False
            raise StartProblemError(f"Understudy could not write in {self._data_dir}.") from _why(
                error, self._data_dir
            )
        name = server_name(self._data_dir)
        QLocalServer.removeServer(name)  # a crashed owner's socket file
        self._server = QLocalServer(self)
        # Only this user may hand the running app a file to open.
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        self._server.newConnection.connect(self._accept)
        if not self._server.listen(name):
            log.warning("could not listen for a second start: %s", self._server.errorString())
        return True

    def on_message(self, handler: Callable[[dict[str, str]], None]) -> None:
        self._on_message = handler

    def _accept(self) -> None:
        assert self._server is not None
        while self._server.hasPendingConnections():
            socket = self._server.nextPendingConnection()
            if socket.waitForReadyRead(2000):
                try:
                    message = json.loads(bytes(socket.readAll().data()).decode("utf-8"))
                except ValueError:
                    message = None
                if isinstance(message, dict):
                    self._on_message({str(k): str(v) for k, v in message.items()})
            socket.disconnectFromServer()

    def forward(self, file: Path | None) -> bool:
        """Tell the running app to come forward (and open `file`); False if it cannot hear."""
        socket = QLocalSocket()
        socket.connectToServer(server_name(self._data_dir))
        if not socket.waitForConnected(2000):
            return False
        message = {"action": "activate", "file": str(file.resolve()) if file else ""}
        socket.write(QByteArray(json.dumps(message).encode("utf-8")))
        socket.flush()
        socket.waitForBytesWritten(2000)
        socket.disconnectFromServer()
        return True

    def release(self) -> None:
        if self._server is not None:
            self._server.close()
        self._lock.unlock()


def _why(error: QLockFile.LockError, data_dir: Path) -> OSError:
    """QLockFile says only "permission" or "unknown": trying to write a file there ourselves
    says which (a folder it may not write, a full disk, or something else)."""
    if error == QLockFile.LockError.PermissionError:
        return OSError(errno.EACCES, "permission denied")
    try:
        data_dir.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=data_dir) as probe:
            probe.write(b"\0" * 4096)
            probe.flush()
            os.fsync(probe.fileno())
    except OSError as exc:
        return exc
    return OSError(errno.EIO, "the lock file could not be written")
