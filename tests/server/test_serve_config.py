"""`serve` takes its address, port and process count from ServerConfig: OUTPOST_HOST, OUTPOST_PORT and
OUTPOST_WORKERS, with --host, --port and --workers winning over them."""

from __future__ import annotations

import os
import socket
import subprocess
import sys

from outpost_server.cli import build_parser, config_from
from tests.support import REPO_ROOT


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_the_command_line_wins_over_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("OUTPOST_HOST", "127.0.0.2")
    monkeypatch.setenv("OUTPOST_PORT", "9001")
    monkeypatch.setenv("OUTPOST_WORKERS", "3")
    from_environment = config_from(build_parser().parse_args(["serve", "--data-dir", str(tmp_path)]))
    assert (from_environment.host, from_environment.port, from_environment.workers) == ("127.0.0.2", 9001, "3")
    given = config_from(build_parser().parse_args(["serve", "--data-dir", str(tmp_path), "--host", "127.0.0.1",
                                                   "--port", "0", "--workers", "auto"]))
    assert (given.host, given.port, given.workers) == ("127.0.0.1", 0, "auto")


def test_serve_listens_where_the_environment_says(tmp_path):
    port = _free_port()
    env = {**os.environ, "OUTPOST_HOST": "127.0.0.1", "OUTPOST_PORT": str(port), "OUTPOST_WORKERS": "1"}
    process = subprocess.Popen([sys.executable, "-m", "outpost_server", "serve", "--data-dir", str(tmp_path)],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, cwd=REPO_ROOT)
    try:
        assert process.stdout is not None
        first_line = process.stdout.readline().decode().strip()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert first_line == f"Listening on http://127.0.0.1:{port}"
