"""A PostgreSQL server of the test's own, to restart and stop while Outpost uses it.

Debian's server binaries (package postgresql) are used directly; as root the server runs as the
postgres user, from a directory that user owns.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def server_binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"))
    return Path(found[-1]).parent if found else None


class PrivatePostgres:
    def __init__(self, binaries: Path):
        self.binaries = binaries
        self.directory = Path(tempfile.mkdtemp(prefix="outpost-pg-"))
        self.data = self.directory / "data"
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            self.port = sock.getsockname()[1]
        if os.geteuid() == 0:
            shutil.chown(self.directory, "postgres")
        self._run(f"{binaries / 'initdb'} -D {self.data} -A trust -U postgres")
        self.start()
        self.url = f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, command: str) -> None:
        argv = ["su", "postgres", "-c", command] if os.geteuid() == 0 else ["sh", "-c", command]
        subprocess.run(argv, check=True, cwd="/", stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def _ctl(self, action: str) -> None:
        options = f"-k {self.directory} -p {self.port} -c listen_addresses=127.0.0.1"
        self._run(f"{self.binaries / 'pg_ctl'} -D {self.data} -o '{options}' -l {self.directory / 'log'} "
                  f"-w -m fast {action}")

    def start(self) -> None:
        self._ctl("start")

    def stop(self) -> None:
        self._ctl("stop")

    def restart(self) -> None:
        self._ctl("restart")

    def remove(self) -> None:
        try:
            self.stop()
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.directory, ignore_errors=True)
