"""Reading and writing inside the team folder without ever following a link.

A sync service carries symbolic links like any file, so anyone with access to the folder can
put a link where `tools/` was, or where a file will be written: followed, a share would write
into some other folder of this computer and a scan would read files from elsewhere. Here every
name below the team folder is opened relative to its parent's descriptor with O_NOFOLLOW,
so a link is refused at the moment of use, with no gap between a check and the use (POSIX).
Where the platform has no such calls (Windows, where making a link takes an administrator),
each name is checked with lstat just before use.

The team folder itself may be a link: the person chose it, and a link to a mounted share is
a usual way to keep one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

_AT = os.open in os.supports_dir_fd and os.scandir in os.supports_fd
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
# Opening a FIFO to read waits for a writer: never here. A plain file reads as ever.
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)


class LinkRefusedError(OSError):
    """A link stood where a folder or file of the team library was expected."""

    def __init__(self, where: str) -> None:
        super().__init__(errno.ELOOP, "a link is in the team folder", where)


@dataclass(frozen=True)
class Entry:
    name: str
    size: int
    mtime_ns: int
    plain: bool = True  # False: a link, a folder or a device, which is never read


class Folder:
    """An open folder: the team folder itself, or one of its subfolders."""

    def __init__(self, path: Path, fd: int | None) -> None:
        self.path = path
        self._fd = fd

    def __enter__(self) -> Folder:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.close(self._fd)
            self._fd = None

    # --- opening --------------------------------------------------------------------------
    @staticmethod
    def open_root(path: Path) -> Folder:
        """The team folder (a link to it is followed). OSError when it is not there."""
        if not _AT:
            if not path.is_dir():
                raise FileNotFoundError(errno.ENOENT, "the team folder is not there", str(path))
            return Folder(path, None)
        return Folder(path, os.open(path, os.O_RDONLY | _DIRECTORY))

    def stamp(self) -> tuple[int, int]:
        """What changes when a name is added or removed here: (inode, modification time)."""
        info = os.fstat(self._fd) if self._fd is not None else os.stat(self.path)
        return info.st_ino, info.st_mtime_ns

    def sub(self, name: str, create: bool = False) -> Folder | None:
        """A subfolder, never through a link: None when it is not there (and not made),
        LinkRefusedError when a link or a file is in its place."""
        made = False
        if create:
            with contextlib.suppress(FileExistsError):
                if self._fd is not None:
                    os.mkdir(name, 0o755, dir_fd=self._fd)
                else:
                    os.mkdir(self.path / name, 0o755)
                made = True
        try:
            info = self._lstat(name)
        except FileNotFoundError:
            return None
        if not stat.S_ISDIR(info.st_mode):
            raise LinkRefusedError(str(self.path / name))
        if self._fd is None:
            return Folder(self.path / name, None)
        try:
            fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW, dir_fd=self._fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR):
                raise LinkRefusedError(str(self.path / name)) from exc
            raise
        if made:
            # Colleagues list it: its mode is set, not left to this app's private umask.
            with contextlib.suppress(OSError):
                os.fchmod(fd, 0o755)
        return Folder(self.path / name, fd)

    # --- reading --------------------------------------------------------------------------
    def files(self) -> Iterator[Entry]:
        """What is here, with its size and time; only `plain` entries are ever read."""
        target: int | Path = self._fd if self._fd is not None else self.path
        with os.scandir(target) as entries:
            for entry in entries:
                try:
                    plain = entry.is_file(follow_symlinks=False)
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                yield Entry(entry.name, info.st_size, info.st_mtime_ns, plain)

    def read(self, name: str, limit: int) -> bytes | None:
        """A file's bytes, if it is a plain file of at most `limit` bytes; None otherwise."""
        try:
            if self._fd is not None:
                fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK, dir_fd=self._fd)
            else:
                if not stat.S_ISREG(self._lstat(name).st_mode):
                    return None  # a link, a FIFO, a device: nothing to read
                fd = os.open(self.path / name, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))
        except OSError:
            return None  # a link (ELOOP), gone, or mid-sync: the next scan sees it
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
                return None
            with os.fdopen(fd, "rb", closefd=False) as handle:
                data = handle.read(limit + 1)
            return data if len(data) <= limit else None
        except OSError:
            return None
        finally:
            os.close(fd)

    def exists(self, name: str) -> bool:
        try:
            self._lstat(name)
        except FileNotFoundError:
            return False
        return True

    def is_plain(self, name: str) -> bool:
        """A plain file is there under `name`; LinkRefusedError when a link is."""
        try:
            info = self._lstat(name)
        except FileNotFoundError:
            return False
        if not stat.S_ISREG(info.st_mode):
            raise LinkRefusedError(str(self.path / name))
        return True

    # --- writing --------------------------------------------------------------------------
    def write_new(self, name: str, data: bytes, mode: int = 0o644) -> bool:
        """Put `data` at `name` all at once, never replacing what is there and never through
        a link. False when something was there already (the same content, for our names)."""
        temp = f".{name}.{secrets.token_hex(6)}.tmp"  # not a name the reader takes
        fd = self._create(temp, mode)
        try:
            # Colleagues read these files: the mode is set, not left to this app's umask
            # (which keeps its own data private).
            if hasattr(os, "fchmod"):
                os.fchmod(fd, mode)
            with os.fdopen(fd, "wb", closefd=False) as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        finally:
            os.close(fd)
        try:
            linked = self._link(temp, name)
        finally:
            with contextlib.suppress(OSError):
                self._unlink(temp)
            self._sync()
        if not linked:
            self.is_plain(name)  # something was there: refused if it is a link
        return linked

    def remove(self, name: str) -> None:
        """Delete a plain file (a link is removed itself, never what it points to)."""
        with contextlib.suppress(OSError):
            self._unlink(name)

    # --- the calls, with and without descriptors --------------------------------------------
    def _lstat(self, name: str) -> os.stat_result:
        if self._fd is not None:
            return os.stat(name, dir_fd=self._fd, follow_symlinks=False)
        return os.lstat(self.path / name)

    def _create(self, name: str, mode: int) -> int:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | getattr(os, "O_BINARY", 0)
        if self._fd is not None:
            return os.open(name, flags, mode, dir_fd=self._fd)
        return os.open(self.path / name, flags, mode)

    def _link(self, temp: str, name: str) -> bool:
        try:
            if self._fd is not None:
                os.link(temp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
            else:
                os.link(self.path / temp, self.path / name)
            return True
        except FileExistsError:
            return False
        except OSError:
            # Some network file systems have no hard links. A rename replaces, so it is used
            # only where nothing is there; the name is the content, so a race writes the
            # same bytes.
            if self.exists(name):
                return False
            if self._fd is not None:
                os.rename(temp, name, src_dir_fd=self._fd, dst_dir_fd=self._fd)
            else:
                os.rename(self.path / temp, self.path / name)
            return True

    def _unlink(self, name: str) -> None:
        if self._fd is not None:
            os.unlink(name, dir_fd=self._fd)
        else:
            os.unlink(self.path / name)

    def _sync(self) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.fsync(self._fd)
