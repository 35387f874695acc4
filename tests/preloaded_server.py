"""Test servers forked from a process that has already imported the server.

A test server started as `python -m outpost_server serve` spends most of its start-up CPU importing
(FastAPI, SQLAlchemy, alembic, our own modules). Here each test process starts one template process
(`python -m tests.preloaded_server FD`) that imports the server once and then, for every server a test
asks for, forks a child that becomes that server: its stdin, stdout and stderr, environment, working
directory and arguments replaced by the request's, then `runpy` runs `outpost_server` as `-m` does,
and the interpreter's own exit handling gives the exit code. So it is the real command's code path in a
process of its own; only the imports are shared.

The template holds no thread, event loop, database or socket besides its control socket when it forks.
What the interpreter reads from the environment when it starts (PYTHON* variables, the locale) cannot
be given to a forked child; a start asking for other values than the template's is refused, and such a
test starts the real command (`launch_server(..., preloaded=False)`).

The server is not a child of the test process, so its exit status comes from the template, which reaps
it; signals go through a pidfd, which cannot reach another process that reused the pid.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import queue
import re
import select
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

# Imported by the template before it forks: the modules `serve` loads on its way to its Listening line.
# A missing one only makes starts slower; uvloop and httptools are optional for the server too.
PRELOADED_MODULES = ("outpost_server.cli", "outpost_server.app", "outpost_server.workers",
                     "outpost_server.http_protocol", "outpost_server.demo", "outpost_server.migrations.rebuild",
                     "uvicorn.server", "uvicorn.config", "uvicorn.lifespan.on",
                     "uvicorn.protocols.http.httptools_impl", "uvicorn.protocols.websockets.auto", "uvloop",
                     "logging.config")
MESSAGE_BYTES = 1 << 18


def interpreter_settings(env: dict[str, str]) -> dict[str, str]:
    """The variables Python reads when it starts (PYTHONPATH, PYTHONHASHSEED, ..., the locale), which a
    forked child keeps from its template. Other programs' PYTHON_* variables are not among them."""
    return {name: value for name, value in env.items()
            if re.fullmatch(r"PYTHON[A-Z]+|LANG|LC_[A-Z]+", name)}


class ForkedServerProcess:
    """A forked server as the tests use a `subprocess.Popen`: pid, poll, wait, signals, returncode, stdout."""

    def __init__(self, template: PreloadedServers, pid: int, pidfd: int, args: list[str], stdout):
        self.template = template
        self.pid = pid
        self.args = args
        self.stdout = stdout
        self._pidfd = pidfd

    @property
    def returncode(self) -> int | None:
        return self.template.returncode_of(self.pid)

    def poll(self) -> int | None:
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        code = self.template.wait_for(self.pid, timeout)
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.returncode is None:
            signal.pidfd_send_signal(self._pidfd, sig)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def __del__(self) -> None:
        os.close(self._pidfd)


class PreloadedServers:
    """This test process's end of one template process: asks it for servers and learns how they ended."""

    def __init__(self, cwd: Path):
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.started_with = interpreter_settings(dict(os.environ))
        # The template's stdout is never written; its stderr shows its own failures beside the test's.
        self.process = subprocess.Popen([sys.executable, "-m", "tests.preloaded_server", str(theirs.fileno())],
                                        pass_fds=(theirs.fileno(),), cwd=cwd, stdin=subprocess.DEVNULL,
                                        stdout=subprocess.DEVNULL)
        theirs.close()
        self.control = ours
        self.requests = threading.Lock()
        self.replies: queue.Queue[tuple[dict, list[int]]] = queue.Queue()
        self.ended: dict[int, int] = {}
        self.changed = threading.Condition()
        self.closed = False
        threading.Thread(target=self._read, name="preloaded-servers", daemon=True).start()

    def start(self, argv: list[str], *, env: dict[str, str], cwd: Path, stderr: int) -> ForkedServerProcess:
        """Forks a server running `outpost_server` with `argv`, its stdout a pipe to read and its stderr the
        file descriptor given."""
        if interpreter_settings(env) != self.started_with:
            raise ValueError("this start sets variables the interpreter reads when it starts (PYTHON*, the "
                             "locale), which a forked server cannot take; start the real command (preloaded=False)")
        request = json.dumps({"argv": argv, "env": env, "cwd": str(cwd)}).encode()
        stdout_read, stdout_write = os.pipe()
        try:
            with self.requests:
                socket.send_fds(self.control, [request], [stdout_write, stderr])
                reply, fds = self.replies.get()
        finally:
            os.close(stdout_write)
        if "error" in reply:
            os.close(stdout_read)
            raise RuntimeError(f"the server template could not fork: {reply['error']}")
        return ForkedServerProcess(self, reply["pid"], fds[0], ["outpost_server", *argv],
                                   os.fdopen(stdout_read, "rb"))

    def returncode_of(self, pid: int) -> int | None:
        with self.changed:
            return self.ended.get(pid)

    def wait_for(self, pid: int, timeout: float | None) -> int | None:
        with self.changed:
            self.changed.wait_for(lambda: pid in self.ended or self.closed, timeout)
            if pid not in self.ended and self.closed:
                raise RuntimeError("the server template ended before the server it started")
            return self.ended.get(pid)

    def _read(self) -> None:
        while True:
            try:
                data, fds, _flags, _address = socket.recv_fds(self.control, MESSAGE_BYTES, 1)
            except OSError:
                data, fds = b"", []
            if not data:
                with self.changed:
                    self.closed = True
                    self.changed.notify_all()
                self.replies.put(({"error": "the template process ended"}, []))
                return
            message = json.loads(data)
            if "ended" in message:
                with self.changed:
                    self.ended[message["ended"]] = message["returncode"]
                    self.changed.notify_all()
            else:
                self.replies.put((message, fds))

    def close(self) -> None:
        """Ends the template (it kills what it started that is still running) and reaps it, so the CPU it
        and its servers used is counted in this process's children."""
        self.control.shutdown(socket.SHUT_RDWR)
        self.process.wait(timeout=60)
        self.control.close()


_servers: PreloadedServers | None = None
_servers_lock = threading.Lock()
_migrated: Path | None = None
_migrated_lock = threading.Lock()


def preloaded_servers(cwd: Path) -> PreloadedServers:
    """This process's template, started on first use and ended when the process exits."""
    global _servers
    with _servers_lock:
        if _servers is None or _servers.closed:
            _servers = PreloadedServers(cwd)
            atexit.register(_servers.close)
        return _servers


def migrated_sqlite_database(cwd: Path) -> Path:
    """An SQLite database that `outpost_server migrate` has brought to every head, made once per test
    process: a new preloaded server starts from a copy of it instead of running each migration again. The
    migrations write no row that depends on the data dir or its secret key into an empty database."""
    global _migrated
    with _migrated_lock:
        if _migrated is None:
            data_dir = Path(tempfile.mkdtemp(prefix="outpost-migrated-"))
            atexit.register(shutil.rmtree, data_dir, ignore_errors=True)
            env = {name: value for name, value in os.environ.items() if name != "OUTPOST_DATABASE_URL"}
            with open(data_dir / "migrate.log", "ab") as log:
                migrate = preloaded_servers(cwd).start(["migrate", "--data-dir", str(data_dir)], env=env, cwd=cwd,
                                                       stderr=log.fileno())
            output = migrate.stdout.read().decode(errors="replace")
            if migrate.wait() != 0:
                raise RuntimeError(f"migrate failed: {output}{(data_dir / 'migrate.log').read_text()}")
            database = data_dir / "outpost.sqlite3"
            # The last connection to close folds the write-ahead log into the file, so the file alone is whole.
            with contextlib.closing(sqlite3.connect(database)) as connection:
                connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            _migrated = database
        return _migrated


# The template process.

def serve_requests(control: socket.socket) -> dict:
    """Forks a server for each request until the test process goes; returns only in a forked child, with
    the request it is to carry out."""
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    # Ctrl-C reaches the whole process group; the servers handle it, the template only ends with its test.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    running: set[int] = set()
    while True:
        _reap(control, running)
        ready, _, _ = select.select([control.fileno(), wake_read], [], [])
        if wake_read in ready:
            os.read(wake_read, 4096)
        if control.fileno() not in ready:
            continue
        data, fds, _flags, _address = socket.recv_fds(control, MESSAGE_BYTES, 2)
        if not data:
            for pid in running:
                os.kill(pid, signal.SIGKILL)
            for pid in running:
                os.waitpid(pid, 0)
            raise SystemExit(0)
        request = json.loads(data)
        try:
            pid = os.fork()
        except OSError as error:
            _send(control, {"error": str(error)})
            continue
        if pid == 0:
            signal.set_wakeup_fd(-1)
            os.close(wake_read)
            os.close(wake_write)
            control.close()
            request["fds"] = fds
            return request
        for fd in fds:
            os.close(fd)
        running.add(pid)
        pidfd = os.pidfd_open(pid)
        _send(control, {"pid": pid}, [pidfd])
        os.close(pidfd)


def _reap(control: socket.socket, running: set[int]) -> None:
    while running:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid == 0:
            return
        running.discard(pid)
        _send(control, {"ended": pid, "returncode": os.waitstatus_to_exitcode(status)})


def _send(control: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    socket.send_fds(control, [json.dumps(message).encode()], fds or [])


def become_server(request: dict) -> None:
    """In the forked child: takes on the request's descriptors, environment, directory and arguments, as a
    fresh `python -m outpost_server` started by subprocess would have them, then runs it."""
    import runpy
    import tempfile
    import time

    for signum in (signal.SIGCHLD, signal.SIGTERM):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    stdout, stderr = request["fds"]
    devnull = os.open(os.devnull, os.O_RDONLY)
    for source, target in ((devnull, 0), (stdout, 1), (stderr, 2)):
        os.dup2(source, target)
    for fd in {int(name) for name in os.listdir("/proc/self/fd")} - {0, 1, 2}:
        try:
            os.close(fd)
        except OSError:
            pass  # the directory listing's own descriptor, already closed
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    time.tzset()
    tempfile.tempdir = None
    sys.argv = ["-m", *request["argv"]]
    # What `python -m outpost_server` itself calls: the module becomes __main__ for good, so what it leaves
    # behind at exit is finalized as in the real command.
    runpy._run_module_as_main("outpost_server")  # type: ignore[attr-defined]


def main() -> None:
    import gc
    import importlib

    control = socket.socket(fileno=int(sys.argv[1]))
    for name in PRELOADED_MODULES:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    if threading.active_count() != 1:
        raise SystemExit(f"importing the server started threads {threading.enumerate()}; cannot fork safely")
    # What the imports made lives as long as the server; frozen, the servers' collections leave it alone
    # (and do not copy the pages they share with the template), as workers.py does for its workers.
    gc.collect()
    gc.freeze()
    become_server(serve_requests(control))


if __name__ == "__main__":
    main()
