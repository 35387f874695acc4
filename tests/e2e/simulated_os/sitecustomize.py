"""Imported by every Python process started with this folder on PYTHONPATH: takes away what Windows or macOS
lacks, on Linux, as OUTPOST_SIMULATED_OS says (tests/e2e/test_other_systems.py).

- `windows`: the POSIX-only modules refuse to be imported, and `os` loses fork, its affinity call and
  the user ids; `signal` loses SIGKILL and SIGHUP. Windows's own modules (msvcrt,
  winreg, _winapi) cannot be put in their place, and sys.platform stays "linux", so code that asks
  sys.platform takes its Linux branch: this finds what is used without asking.
- `macos`: no sched_getaffinity, and multiprocessing starts processes with spawn, Python's default there.
"""

import os
import sys

SIMULATED = os.environ.get("OUTPOST_SIMULATED_OS")
POSIX_ONLY_MODULES = frozenset({"fcntl", "resource", "pwd", "grp", "termios", "tty", "pty", "syslog"})
# os.WNOHANG stays: the standard library's POSIX branches (subprocess) read it at import; mypy's
# --platform win32 pass is what keeps our code from using it outside platform_support.
WINDOWS_LACKS_IN_OS = ("fork", "forkpty", "sched_getaffinity", "getuid", "geteuid", "getgid", "getegid", "setsid",
                       "killpg")


class RefusePosixOnlyModules:
    """A meta path finder that answers as Windows's Python does for a module it does not have."""

    def find_spec(self, name, path=None, target=None):
        if name in POSIX_ONLY_MODULES:
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None


if SIMULATED == "windows":
    sys.meta_path.insert(0, RefusePosixOnlyModules())
    for module in POSIX_ONLY_MODULES:
        sys.modules.pop(module, None)
    for attribute in WINDOWS_LACKS_IN_OS:
        if hasattr(os, attribute):
            delattr(os, attribute)
    import signal

    for attribute in ("SIGKILL", "SIGHUP"):
        if hasattr(signal, attribute):  # on the real systems (the release workflow) some are absent already
            delattr(signal, attribute)
elif SIMULATED == "macos":
    import multiprocessing

    if hasattr(os, "sched_getaffinity"):
        del os.sched_getaffinity
    multiprocessing.set_start_method("spawn", force=True)
