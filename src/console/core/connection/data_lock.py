"""The lock that says a local server's data folder is in use (no Qt).

A console takes it before it starts the bundled server on a folder and keeps it until that server has
stopped; the server inherits it, so it stays held while an orphaned server is still running. The demo
reset takes it before deleting anything and refuses when it cannot. It is an operating-system lock on one
file of the folder, not a pid file: the system releases it when its last holder dies, kill -9 included,
so a crash never leaves the folder locked. How each system locks a file: console/core/platform_support.py.
"""

from __future__ import annotations

import os
from pathlib import Path

from console.core.platform_support import lock_descriptor, unlock_descriptor

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
            locked = lock_descriptor(fd)
        except OSError:
            locked = False
        if not locked:
            os.close(fd)
            return False
        self._fd = fd
        return True

    def release(self) -> None:
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            unlock_descriptor(fd)
        finally:
            os.close(fd)

    def __enter__(self) -> DataFolderLock:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()
