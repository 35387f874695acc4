"""What Linux, macOS and Windows do differently, in one place: the rest of the server asks here.

- **Processes.** Linux forks: `serve --workers N` forks its workers and its digester after importing the
  application, so they share its memory. Windows has no `fork`: the server runs as one process (`--workers
  auto` is 1 there, said once in the log; a number above 1 is refused). macOS has `fork`, but a forked child
  of a process that has threads or system frameworks loaded may deadlock, which is why Python's default
  start method there is `spawn`: the digester and the decode processes are spawned on macOS and Windows
  (`child_start_method`), the workers still fork on macOS (`can_fork`).
- **CPUs.** `sched_getaffinity` (Linux only) counts the CPUs this process may use, a container's or
  taskset's limit included; elsewhere `os.cpu_count()` counts the machine's.
- **Stop signals.** SIGINT and SIGTERM everywhere; on Windows SIGTERM only arrives from the process itself
  (another process's `terminate()` is TerminateProcess, which runs no handler: the spool's durable appends
  keep what was acknowledged), and Ctrl+Break sends SIGBREAK, handled as a stop too. SIGKILL and SIGHUP
  are POSIX-only and the server uses neither.
- **File modes.** On Linux and macOS the data folder is 0700 and its files 0600 (`make_private`, and the
  umask of `restrict_new_files`). Windows ignores modes beyond the read-only bit: there the folder's
  access is what the user's profile folder's ACL grants (the default data folder is under it), and these
  calls change nothing.
- **The parent.** `--watch-parent` notices its parent is gone when the process is re-parented (POSIX); on
  Windows a process keeps its parent's id after the parent exits, so the parent is asked for by handle.
- The spool's digest lock is `filelock`'s: flock on Linux and macOS, LockFileEx on Windows, both released
  by the system when their process dies.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("outpost.platform")

IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"


def cpu_count() -> int:
    """The CPUs this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    if affinity is not None:
        return len(affinity(0))
    return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether `serve --workers N` can fork its workers (not on Windows)."""
    return hasattr(os, "fork")


def child_start_method() -> str:
    """How the server starts a process of its own that runs its code (the digester of `--workers`, the
    decode processes): "fork" where it is Python's choice for this platform (Linux: the child shares the
    parent's imports and costs no start-up), else "spawn" (a new interpreter: Windows, macOS)."""
    if not can_fork() or IS_MACOS:
        return "spawn"
    return "spawn" if multiprocessing.get_start_method(allow_none=True) == "spawn" else "fork"


def worker_processes(requested: str | int) -> int:
    """`--workers`: a number of processes, or `auto` for one per CPU (one where there is no fork)."""
    if requested == "auto":
        if not can_fork():
            log.info("--workers auto: one server process, since this platform cannot fork worker processes")
            return 1
        return cpu_count()
    count = int(requested)
    if count < 1:
        raise SystemExit("--workers must be at least 1")
    if count > 1 and not can_fork():
        raise SystemExit("--workers above 1 needs fork(), which this platform lacks: run one process per "
                         "port behind a proxy instead (docs/deploy.md)")
    return count


if sys.platform == "win32":
    def fork() -> int:
        raise OSError("fork() does not exist on Windows")

    def reap_child() -> tuple[int, int]:
        raise OSError("no forked children on Windows")
else:
    def fork() -> int:
        return os.fork()

    def reap_child() -> tuple[int, int]:
        """A child that has exited, as (pid, wait status), or (0, 0) when none has; ChildProcessError when
        there are no children."""
        return os.waitpid(-1, os.WNOHANG)


def on_stop_signals(handler: Callable[[int, Any], Any]) -> None:
    """`handler` for every signal that asks this process to stop: SIGINT, SIGTERM, and SIGBREAK on Windows."""
    signals = [signal.SIGINT, signal.SIGTERM]
    if sys.platform == "win32":
        signals.append(signal.SIGBREAK)
    for signum in signals:
        signal.signal(signum, handler)


def restrict_new_files() -> None:
    """What this process creates from now on is for its user alone (files 0600, folders 0700); no effect on
    Windows, where the folder's ACL decides."""
    if not IS_WINDOWS:
        os.umask(0o077)


def make_private(path: Path | str, *, folder: bool = False) -> None:
    """`path` for its owner alone: 0700 for a folder, 0600 for a file; symbolic links are left alone.
    Nothing on Windows (see the module's note)."""
    if IS_WINDOWS or os.path.islink(path):
        return
    os.chmod(path, 0o700 if folder else 0o600)


if sys.platform == "win32":
    def parent_alive(parent: int) -> bool:
        """Whether process `parent` still runs (Windows keeps a dead parent's id as this process's ppid)."""
        import ctypes

        synchronize, wait_timeout = 0x00100000, 0x00000102
        kernel32 = ctypes.windll.kernel32
        handle = kernel32.OpenProcess(synchronize, False, parent)
        if not handle:
            return False
        try:
            return bool(kernel32.WaitForSingleObject(handle, 0) == wait_timeout)
        finally:
            kernel32.CloseHandle(handle)
else:
    def parent_alive(parent: int) -> bool:
        """Whether process `parent` is still this process's parent (a dead parent's children are adopted)."""
        return os.getppid() == parent
