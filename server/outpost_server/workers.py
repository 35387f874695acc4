"""`outpost-server serve --workers N`: N server processes sharing one listening socket.

The master process prepares the database once (migrations, root user, demo data), imports the
application, then forks the workers: each runs its own event loop, collector writer and background
workers (exports, pruner, rate limit sync), which already coordinate through the database as
replicas do. Forking after the imports shares their memory between the workers until it is written.

Events are digested by one more child, the digester (error_tracking/pipeline), so the workers'
event loops never wait for the digest's Python work (each process has its own GIL). It is started
by multiprocessing: forked on Linux, spawned on macOS (platform_support.child_start_method).
Windows cannot fork, so there the server is one process and this module is not used.

The master only supervises. It prints the "Listening on" line once every worker accepts
connections, replaces a worker that dies while serving, and on SIGINT or SIGTERM asks every worker
to stop (each finishes its requests in flight, as a single process does) and exits 0 once all have
stopped cleanly. A worker that fails before it is ready stops the whole server: that is a start-up
error, not something a restart would cure.
"""

from __future__ import annotations

import gc
import logging
import multiprocessing
import os
import select
import signal
import socket
import sys
import time
from typing import Any

from outpost_server import platform_support
from outpost_server.config import ServerConfig

log = logging.getLogger("outpost.workers")

# How often the master looks at its workers (and its own parent, with --watch-parent).
POLL_SECONDS = 0.2


def serve_with_workers(config: ServerConfig, sock: socket.socket, *, count: int, demo: bool, watch_parent: bool,
                       listening: str) -> int:
    from outpost_server.app import create_app, prepare_database

    prepare_database(config, demo=demo)
    # Built before forking, so the workers share it; each opens its own database connections when
    # its server starts (the application's lifespan).
    app = create_app(config, database_ready=True, digest_in_process=False)
    master = Master(config, sock, app, count=count, parent=os.getppid() if watch_parent else None)
    return master.run(listening)


class Master:
    def __init__(self, config: ServerConfig, sock: socket.socket, app, *, count: int, parent: int | None):
        self.config = config
        self.sock = sock
        self.app = app
        self.count = count
        self.parent = parent
        self.workers: dict[int, bool] = {}  # pid → ready
        self.digester: int | None = None
        self.stopping = False
        self.failed = False
        self.ready_read, self.ready_write = os.pipe()

    def run(self, listening: str) -> int:
        platform_support.on_stop_signals(lambda *_: self.stop())
        # Objects made so far are never freed; freezing them keeps the workers' collections from
        # touching (and so copying) the pages they share with this process.
        gc.collect()
        gc.freeze()
        for _ in range(self.count):
            self._spawn()
        self._spawn(digester=True)
        announced = False
        while self.workers:
            self._collect_ready()
            if not announced and not self.stopping and self.workers and all(self.workers.values()):
                print(listening, flush=True)
                announced = True
            self._reap()
            if self.parent is not None and not platform_support.parent_alive(self.parent):
                self.stop()
        return 1 if self.failed else 0

    def stop(self) -> None:
        """Asks every worker to stop; each finishes what it is handling."""
        if not self.stopping:
            self.stopping = True
            # Once the workers close their copies too, new connections are refused.
            self.sock.close()
        for pid in self.workers:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    def _spawn(self, *, digester: bool = False) -> None:
        if digester:
            self._start_digester()
            return
        pid = platform_support.fork()
        if pid == 0:  # the worker
            # Until its server runs, a worker asked to stop has nothing to finish.
            _exit_quietly_on_stop_signals()
            code = 1
            try:
                code = self._work()
            except BaseException:
                logging.getLogger("outpost.workers").exception("worker %d failed", os.getpid())
            finally:
                sys.stdout.flush()
                sys.stderr.flush()
                os._exit(code)
        self.workers[pid] = False

    def _start_digester(self) -> None:
        """The digester has nothing to get ready (no socket): it counts as ready once started. A forked one
        first closes its copies of the socket and the readiness pipe."""
        method = platform_support.child_start_method()
        inherited = (self.sock.fileno(), self.ready_read, self.ready_write) if method == "fork" else ()
        # typeshed gives get_context(str) the base class, which lacks Process; each real context has it.
        context: Any = multiprocessing.get_context(method)
        process = context.Process(
            target=_run_digester, args=(self.config, os.getpid(), inherited), name="digester")
        process.start()
        assert process.pid is not None  # started
        self.digester = process.pid
        self.workers[process.pid] = True
        log.info("digester process %d started (%s)", process.pid, method)

    def _work(self) -> int:
        from outpost_server.cli import serve_app

        os.close(self.ready_read)
        master = os.getppid()
        ready_write = self.ready_write
        started = serve_app(self.app, self.config, self.sock, watch_parent=master,
                            on_started=lambda: os.write(ready_write, os.getpid().to_bytes(4, "little")))
        return 0 if started else 1

    def _collect_ready(self) -> None:
        readable, _, _ = select.select([self.ready_read], [], [], POLL_SECONDS)
        if not readable:
            return
        data = os.read(self.ready_read, 4 * 64)
        for start in range(0, len(data) - 3, 4):
            pid = int.from_bytes(data[start:start + 4], "little")
            if pid in self.workers:
                self.workers[pid] = True

    def _reap(self) -> None:
        while self.workers:
            try:
                pid, status = platform_support.reap_child()
            except ChildProcessError:
                self.workers.clear()
                return
            if pid == 0:
                return
            was_ready = self.workers.pop(pid, None)
            if was_ready is None:
                continue
            code = os.waitstatus_to_exitcode(status)
            if self.stopping:
                if code != 0:
                    log.warning("worker %d exited with %d while stopping", pid, code)
                    self.failed = True
                continue
            if not was_ready:
                log.error("worker %d exited with %d before it was ready; stopping the server", pid, code)
                self.failed = True
                self.stop()
                continue
            log.warning("worker %d exited with %d; starting another", pid, code)
            time.sleep(POLL_SECONDS)
            self._spawn(digester=pid == self.digester)


def _exit_quietly_on_stop_signals() -> None:
    platform_support.on_stop_signals(lambda *_: os._exit(0))


def _run_digester(config: ServerConfig, parent: int, inherited: tuple[int, ...]) -> None:
    """In the digester process: close what a fork inherited (the listening socket: once the workers have
    stopped, connections are refused), then digest."""
    _exit_quietly_on_stop_signals()
    for fd in inherited:
        os.close(fd)
    from outpost_server.error_tracking.pipeline.runtime import digester_process

    digester_process(config, parent)
