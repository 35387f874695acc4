"""What the console does differently on Linux, macOS and Windows where Qt does not hide it (no Qt).

- **The data folder's lock** (connection/data_lock.py) is filelock's lock on a descriptor: flock on Linux and
  macOS, which a child given the descriptor shares, so the bundled server keeps it held should the console
  die first; LockFileEx on Windows, where a child inherits no descriptor and the lock is the console's alone.
  A system with neither (none Outpost ships for) leaves the folder unlocked, and says so in the log.
- **The bundled server dies with the console.** Its `--watch-parent` works everywhere (the server's
  platform_support asks Windows for the parent by handle); on Linux the kernel also sends it SIGTERM when
  the console dies (prctl's parent-death signal), before its first look.
- **Elsewhere**: the single-instance socket (single_instance.py) is a Unix socket on Linux and macOS and a
  named pipe on Windows, both through QLocalServer; tokens go to the keyring backend the system has
  (Secret Service, macOS Keychain, Windows Credential Locker: connection/credentials.py); data folders come
  from QStandardPaths (settings.py); outpost:// registration is per system (link_registration.py).
"""

from __future__ import annotations

import ctypes  # loaded with this module, in the parent: no import machinery runs in a child after the fork
import ctypes.util
import errno
import logging
import signal
import sys
from collections.abc import Callable
from typing import Any

from filelock import lock_descriptor as lock
from filelock import unlock_descriptor as unlock

log = logging.getLogger(__name__)

IS_LINUX = sys.platform.startswith("linux")
PR_SET_PDEATHSIG = 1


def lock_descriptor(fd: int) -> bool:
    """Locks the open file `fd` at once; False when another process holds it. True, with nothing locked,
    where the system has no file lock."""
    try:
        return lock(fd, blocking=False)
    except OSError as error:
        if error.errno != errno.ENOSYS:
            raise
        log.info("This system offers no file lock: the local server's data folder is used unlocked")
        return True


def unlock_descriptor(fd: int) -> None:
    try:
        unlock(fd)
    except OSError as error:
        if error.errno != errno.ENOSYS:
            raise


def child_process_options(shared_fd: int | None) -> dict[str, Any]:
    """The options for starting the bundled server: `shared_fd` (the data folder's lock) passed on where
    descriptors are inherited, and on Linux the parent-death signal."""
    options: dict[str, Any] = {"pass_fds": () if sys.platform == "win32" or shared_fd is None else (shared_fd,)}
    if IS_LINUX:
        options["preexec_fn"] = _die_with_parent(ctypes.util.find_library("c"))
    return options


def _die_with_parent(libc_name: str | None) -> Callable[[], None]:
    def before_exec() -> None:
        """Runs in the child before exec: ask Linux to SIGTERM it when the parent dies."""
        if libc_name is None:
            return
        libc = ctypes.CDLL(libc_name, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)

    return before_exec
