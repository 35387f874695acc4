"""The server and the console on Windows and macOS, simulated on Linux: the real commands run with
tests/e2e/simulated_os/sitecustomize.py on their path, which takes away what each system lacks (POSIX-only
modules, fork, sched_getaffinity; on macOS, fork as the start method). In each, the server answers the API,
digests a backlog with its decode processes, stores what the real Python SDK sends, and stops cleanly; the
console's --self-test (its bundled server, one API call) passes.

What the simulation cannot show (Windows's own LockFileEx and named pipes, macOS's Keychain) the release
workflow's Windows and macOS jobs run for real (docs/development.md).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.e2e.databases import database_url, stored_event_ids
from tests.e2e.flows import enable_error_tracking
from tests.e2e.senders import Senders
from tests.support import REPO_ROOT, ApiHelper, launch_server

HOOK = Path(__file__).resolve().parent / "simulated_os"
SDK_APP = REPO_ROOT / "tests" / "server" / "error_tracking" / "sdk_apps" / "python_sentry_sdk.py"
# Enough for a batch the digest hands to its decode processes (decode_pool.POOL_MIN_BATCH is 100).
BACKLOG = 300
NO_DIGEST = {"OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES": str(2**62)}
# Each system's server: how many workers it is asked for, and what its log must say about how it ran.
SYSTEMS = {
    "windows": ("auto", ["--workers auto: one server process, since this platform cannot fork"]),
    "macos": ("2", ["(spawn)", "digester process"]),
}


def simulated(system: str) -> dict[str, str]:
    return {"OUTPOST_SIMULATED_OS": system,
            "PYTHONPATH": os.pathsep.join(filter(None, [str(HOOK), str(REPO_ROOT), os.environ.get("PYTHONPATH")]))}


@pytest.mark.parametrize("system", ["windows", "macos"])
def test_the_hook_takes_away_what_the_system_lacks(system):
    probe = "import os, multiprocessing; print(hasattr(os, 'sched_getaffinity'), hasattr(os, 'fork'), " \
            "multiprocessing.get_start_method()); import fcntl"
    result = subprocess.run([sys.executable, "-c", probe], env={**os.environ, **simulated(system)},
                            capture_output=True, text=True, timeout=60)
    if system == "windows":
        # The start method stays the system's own (fork on Linux); only fork itself is gone.
        assert result.stdout.split()[:2] == ["False", "False"]
        assert "No module named 'fcntl'" in result.stderr
    else:
        assert (result.returncode, result.stdout.split()) == (0, ["False", "True", "spawn"])


@pytest.mark.expected_log(r"less than OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES")  # the backlog's filling
@pytest.mark.parametrize("system", [
    # Simulations run on Linux; the release workflow runs them on the real systems too, where Windows
    # cannot play macOS (its `--workers 2` forks).
    pytest.param("macos", marks=pytest.mark.skipif(sys.platform == "win32", reason="Windows has no fork")),
    "windows"])
def test_the_server_serves_digests_and_stops(tmp_path, system):
    workers, expected_log = SYSTEMS[system]
    data_dir = tmp_path / "server"
    # Filled on the same simulated system: without fcntl, filelock's lock is its soft lock (a marker file
    # naming its owner), which the flock left by a Linux server's empty lock file would block.
    filling = launch_server(data_dir, preloaded=False, extra_env={**simulated(system), **NO_DIGEST})
    try:
        api = ApiHelper(filling)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([filling.url], project["id"], key["public_key"], count=4, max_events=BACKLOG) as senders:
            senders.finish()
    finally:
        filling.stop()
    assert senders.ledger.statuses == {200: BACKLOG}

    server = launch_server(data_dir, root_token=filling.root_token, preloaded=False,
                           extra_env={**simulated(system), "OUTPOST_WORKERS": workers, "OUTPOST_DIGEST_PROCESSES": "2"})
    try:
        with server.client() as client:
            user = client.get("/user")
            assert (user.status_code, user.json()["username"]) == (200, "root")
            dsn = enable_error_tracking(client, project["id"])["sentry_dsn"]
        sent = subprocess.run([sys.executable, str(SDK_APP), "envelope", dsn], capture_output=True, text=True,
                              timeout=120)
        assert sent.returncode == 0, sent.stderr
        server.wait_for_digest(timeout=120)
        stored = stored_event_ids(database_url(server), project["id"])
        # The backlog and the SDK's three events (an exception, a message, a logged error).
        assert len(stored) == len(set(stored)) == BACKLOG + 3
        assert set(senders.ledger.accepted) <= set(stored)
        errors = httpx.get(f"{server.url}/{project['path_with_namespace']}/-/error_tracking.json",
                           params={"search_term": "missing"}, headers={"PRIVATE-TOKEN": server.root_token}, timeout=30)
        assert errors.status_code == 200, errors.text
        assert [error["title"] for error in errors.json()["errors"]] == ["KeyError: 'missing'"]
    finally:
        code = server.stop()
    log = server.log_text()
    assert code == 0, log[-3000:]
    assert "decode process" in log and "Traceback" not in log, log[-3000:]
    for line in expected_log:
        assert line in log


def test_more_than_one_worker_is_refused_without_fork(tmp_path):
    result = subprocess.run([sys.executable, "-m", "outpost_server", "serve", "--workers", "2", "--port", "0",
                             "--data-dir", str(tmp_path)], env={**os.environ, **simulated("windows")},
                            capture_output=True, text=True, timeout=120, cwd=REPO_ROOT)
    assert result.returncode == 1
    assert "--workers above 1 needs fork(), which this platform lacks" in result.stderr


@pytest.mark.parametrize("system", ["windows", "macos"])
def test_the_console_self_test_passes(system):
    env = {**os.environ, **simulated(system), "QT_QPA_PLATFORM": "offscreen",
           "PYTHON_KEYRING_BACKEND": "tests.console.memkeyring.MemoryKeyring"}
    result = subprocess.run([sys.executable, "-m", "console", "--self-test"], capture_output=True, text=True,
                            env=env, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-2:] == ["bundled server: stopped", "self-test passed"]
