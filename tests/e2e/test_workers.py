"""`outpost-server serve --workers 2`: forked worker processes sharing one socket and one database.

Runs on SQLite, and on PostgreSQL when OUTPOST_TEST_PG_ADMIN_URL is set (each server then gets its
own fresh database).
"""

from __future__ import annotations

import os
import re
import signal
import time
from pathlib import Path

import pytest

from tests.e2e.databases import database_url, inconsistencies, scalar, stored_event_ids
from tests.e2e.flows import enable_error_tracking
from tests.e2e.senders import Senders
from tests.support import ApiHelper, RunningServer, launch_server

WORKERS = {"OUTPOST_WORKERS": "2"}


def worker_pids(server: RunningServer) -> list[int]:
    """The server process's HTTP workers: its children but the digester."""
    pid = server.process.pid
    children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [child for child in children if child not in digester_pids(server)]


def digester_pids(server: RunningServer) -> list[int]:
    """Every digester process the master started, as its log says."""
    return [int(match) for match in re.findall(r"digester process (\d+) started", server.log_text())]


def wait_for(condition, what: str, timeout: float = 60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting until {what}")


def test_two_workers_serve_the_api_and_store_every_accepted_event_once(tmp_path):
    # The real command on an empty data dir, whose migrations the log shows running once.
    server = launch_server(tmp_path / "server", extra_env=WORKERS, preloaded=False)
    try:
        assert len(worker_pids(server)) == 2
        [digester] = digester_pids(server)
        assert Path(f"/proc/{digester}").exists()
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([server.url], project["id"], key["public_key"], count=16, max_events=800) as senders:
            senders.finish()
        server.wait_for_digest()
        ledger = senders.ledger
        url = database_url(server)
        stored = stored_event_ids(url, project["id"])
        counted = scalar(url, "SELECT SUM(count) FROM error_tracking_errors WHERE project_id = :p", p=project["id"])
        problems = inconsistencies(url)
        exit_code = server.stop()
        log = server.log_text()
    finally:
        server.stop()

    assert set(ledger.statuses) == {200} and len(ledger.accepted) == 800, ledger.statuses
    assert sorted(stored) == sorted(ledger.accepted), "stored events differ from the accepted ones"
    assert counted == 800
    assert problems == {}
    assert exit_code == 0, log[-3000:]
    # The database was prepared once, before the workers started.
    assert log.count("Running upgrade  -> 0001") == 1, log[-3000:]


@pytest.mark.expected_log(r"WARNING outpost\.workers worker \d+ exited with -9; starting another")
def test_a_worker_that_dies_is_replaced_and_serving_goes_on(tmp_path):
    server = launch_server(tmp_path / "server", extra_env=WORKERS)
    try:
        first, second = worker_pids(server)
        os.kill(first, signal.SIGKILL)
        replaced = wait_for(lambda: (pids := worker_pids(server)) and first not in pids and len(pids) == 2 and pids,
                            "the killed worker is replaced")
        assert second in replaced
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([server.url], project["id"], key["public_key"], count=4, max_events=100) as senders:
            senders.finish()
        server.wait_for_digest()
        stored = stored_event_ids(database_url(server), project["id"])
        exit_code = server.stop()
        log = server.log_text()
    finally:
        server.stop()

    assert set(senders.ledger.statuses) == {200}, senders.ledger.statuses
    assert sorted(stored) == sorted(senders.ledger.accepted)
    assert f"worker {first} exited with -9; starting another" in log
    assert exit_code == 0, log[-3000:]


@pytest.mark.expected_log(r"WARNING outpost\.workers worker \d+ exited with -9; starting another")
def test_a_digester_killed_mid_batch_is_replaced_and_its_claimed_events_are_stored_once(tmp_path):
    server = launch_server(tmp_path / "server", extra_env=WORKERS)
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([server.url], project["id"], key["public_key"], count=8) as senders:
            senders.wait_for_accepted(300)
            [first] = digester_pids(server)
            os.kill(first, signal.SIGKILL)
            replacement = wait_for(lambda: [pid for pid in digester_pids(server) if pid != first],
                                   "the killed digester is replaced")
            senders.wait_for_accepted(len(senders.ledger.accepted) + 300)
        server.wait_for_digest()
        stored = stored_event_ids(database_url(server), project["id"])
        log = server.log_text()
    finally:
        server.stop()
    assert len(replacement) == 1
    assert set(senders.ledger.statuses) == {200}, senders.ledger.statuses
    assert sorted(stored) == sorted(senders.ledger.accepted)
    assert f"worker {first} exited with -9; starting another" in log
