"""Run the bundled server as a child process on a loopback port.

The demo keeps its port across starts while that port is free (the DSNs the user copied keep working);
when another program holds it, the server takes a free port and ``moved_from`` says which one it lost.
The child gets a fresh random root token, announces its address with a
``Listening on http://HOST:PORT`` line, and is stopped with SIGTERM (then killed) when
the console closes. If the console dies first, the server's ``--watch-parent`` option
and, on Linux, the parent-death signal make it exit too, so no orphan server is left.
From the start to the stop the data folder's lock (data_lock.py) is held, by the console and the server,
so that ``--demo-reset`` and a second console leave the folder alone.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import os
import re
import secrets
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from console.core.connection.data_lock import DataFolderLock
from console.core.operations import helper_task
from console.core.platform_support import child_process_options

if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger(__name__)

LISTENING = re.compile(r"Listening on (http://\S+)")
STARTUP_TIMEOUT = 60.0
STOP_TIMEOUT = 10.0
PORT_FILE = "port"  # in the data folder: the port of the last start


class LocalServerError(RuntimeError):
    """The local server could not be started."""


def server_command(*args: str) -> list[str]:
    """How to run the server CLI: the frozen console executable, or this interpreter."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--run-server", *args]
    return [sys.executable, "-m", "outpost_server", *args]


def port_is_free(port: int) -> bool:
    """Whether the server could bind ``port`` on 127.0.0.1 now (it binds with SO_REUSEADDR, so does this)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class LocalServer:
    """One bundled server process with demo data, signed in as its ``root`` administrator."""

    def __init__(self, data_dir: Path, *, demo: bool = True, startup_timeout: float = STARTUP_TIMEOUT) -> None:
        self.data_dir = Path(data_dir)
        self.demo = demo
        self.startup_timeout = startup_timeout
        self.root_token = ""
        self.url: str | None = None
        self.moved_from: int | None = None  # the remembered port, when this start could not have it
        self.process: asyncio.subprocess.Process | None = None
        self._output: collections.deque[str] = collections.deque(maxlen=200)
        self._drain_task: asyncio.Task[None] | None = None
        self._lock = DataFolderLock(self.data_dir)
        self._stopping = False
        # Called with the exit code when the server exits on its own (a crash, a kill), not when stopped.
        self.on_exit: Callable[[int | None], object] | None = None

    @property
    def is_running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    @property
    def pid(self) -> int | None:
        return None if self.process is None else self.process.pid

    def remembered_port(self) -> int | None:
        try:
            port = int((self.data_dir / PORT_FILE).read_text().strip())
        except (OSError, ValueError):
            return None
        return port if 0 < port < 65536 else None

    def command(self, port: int = 0) -> list[str]:
        args = ["serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(self.data_dir), "--watch-parent"]
        if self.demo:
            args.append("--demo")
        return server_command(*args)

    async def start(self) -> str:
        """Start the server and return its base URL once it accepts connections: on the port of the last start
        when it is free (or becomes taken in between, then on a free one), else on a free one."""
        if self.is_running:
            raise LocalServerError("The local server is already running.")
        self.data_dir.mkdir(parents=True, exist_ok=True)
        if not self._lock.acquire():
            raise LocalServerError(f"The data in {self.data_dir} is in use by another console or its local server.")
        try:
            return await self._start()
        except BaseException:
            self._lock.release()
            raise

    async def _start(self) -> str:
        remembered = self.remembered_port() if self.demo else None
        self.moved_from = None
        if remembered is not None and port_is_free(remembered):
            try:
                return await self._start_on(remembered)
            except LocalServerError:
                log.info("Local server could not have port %s again; taking a free one", remembered)
        url = await self._start_on(0)
        if remembered is not None:
            self.moved_from = remembered
        return url

    async def _start_on(self, port: int) -> str:
        self.root_token = secrets.token_urlsafe(32)
        self._stopping = False
        env = {**os.environ, "OUTPOST_ROOT_TOKEN": self.root_token, "PYTHONUNBUFFERED": "1"}
        self._output.clear()
        self.process = await asyncio.create_subprocess_exec(
            *self.command(port),
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT,
            env=env,
            # The server shares the folder's lock, so it stays held should the console die first.
            **child_process_options(self._lock.fd),
        )
        try:
            self.url = await asyncio.wait_for(self._read_until_listening(), self.startup_timeout)
        except BaseException as exc:
            await self._stop_process()  # the lock stays held: start() may try another port
            if isinstance(exc, TimeoutError):
                raise LocalServerError(self._failure_text("did not start in time")) from exc
            raise
        # Keep reading so a chatty server never blocks on a full pipe.
        self._drain_task = helper_task(self._drain())
        log.info("Local server %s started at %s", self.process.pid, self.url)
        if self.demo:
            (self.data_dir / PORT_FILE).write_text(f"{urlsplit(self.url).port}\n")
        return self.url

    async def _read_until_listening(self) -> str:
        assert self.process is not None and self.process.stdout is not None
        while True:
            raw = await self.process.stdout.readline()
            if not raw:
                await self.process.wait()
                raise LocalServerError(self._failure_text(f"exited with code {self.process.returncode}"))
            line = raw.decode(errors="replace").rstrip()
            self._output.append(line)
            match = LISTENING.search(line)
            if match:
                return match.group(1)

    async def _drain(self) -> None:
        process = self.process
        assert process is not None and process.stdout is not None
        while raw := await process.stdout.readline():
            self._output.append(raw.decode(errors="replace").rstrip())
        await process.wait()  # its output ends when it exits
        if not self._stopping and self.on_exit is not None:
            log.info("Local server %s exited on its own (exit code %s)", process.pid, process.returncode)
            self.on_exit(process.returncode)

    def _failure_text(self, what: str) -> str:
        tail = "\n".join(list(self._output)[-15:])
        return f"The local server {what}." + (f"\nIts last output:\n{tail}" if tail else "")

    async def stop(self) -> None:
        """SIGTERM, wait, then kill if it does not exit; then let go of the data folder."""
        await self._stop_process()
        self._lock.release()

    async def _stop_process(self) -> None:
        process = self.process
        if process is None:
            return
        self._stopping = True
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), STOP_TIMEOUT)
            except TimeoutError:
                log.warning("Local server %s ignored SIGTERM; killing it", process.pid)
                process.kill()
                await process.wait()
        if self._drain_task is not None:
            await self._drain_task
            self._drain_task = None
        self.url = None
        log.info("Local server %s stopped (exit code %s)", process.pid, process.returncode)

    def terminate_now(self) -> None:
        """Last-resort stop when no event loop can run any more: send SIGTERM and return."""
        if self.is_running:
            assert self.process is not None
            self.process.terminate()
