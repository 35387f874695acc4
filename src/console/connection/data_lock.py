"""The lock that says a local server's data folder is in use (no Qt).

A console takes it before it starts the bundled server on a folder and keeps it until that server has
stopped; the server inherits it, so it stays held while an orphaned server is still running. The demo
reset takes it before deleting anything and refuses when it cannot. It is an operating-system lock on one
file of the folder, not a pid file: the system releases it when its last holder dies, kill -9 included,
so a crash never leaves the folder locked. Only this module knows how each system locks a file.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

LOCK_FILE = "in-use.lock"


class DataFolderLock:
    """An exclusive, non-blocking lock on ``folder/in-use.lock``."""

    def __init__(self, folder: Path) -> None:
        self.path = Path(folder) / LOCK_FILE
        self._fd: int | None = None

    @property
    def held(self) -> bool:
        return self._fd is not None

    @property
    def fd(self) -> int | None:
        """The open descriptor holding the lock, for a child process to inherit it (POSIX)."""
        return self._fd

    def acquire(self) -> bool:
        """Take the lock now, or return False when another process holds it."""
        if self._fd is not None:
            return True
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd)
        except OSError:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            _unlock(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> DataFolderLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


if sys.platform == "win32":
    import msvcrt

    def _lock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # raises OSError when another process holds the byte

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        # flock belongs to the open file, which a child given the descriptor shares: the lock stays held
        # until the console and its server have both let go.
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
