"""A decode process of the digest (OUTPOST_DIGEST_PROCESSES) killed with -9 while it decodes a batch: every
acknowledged event is still stored, and none twice.

Runs on SQLite, and on PostgreSQL when OUTPOST_TEST_PG_ADMIN_URL is set. With one server process the
digester is a thread of it and spawns its decode processes; with two, the digester is a process of its own
and forks them.
"""

from __future__ import annotations

import os
import re
import signal
import time

import pytest

from tests.e2e.databases import database_url, inconsistencies, stored_event_ids
from tests.e2e.flows import enable_error_tracking
from tests.e2e.senders import Senders
from tests.support import ApiHelper, RunningServer, launch_server

# Enough for several of the digest's large batches (500 entries), which go to the decode processes.
BACKLOG = 5000
# A floor no disk meets: the digest waits, the collector keeps accepting into the spool.
NO_DIGEST = {"OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES": str(2**62)}
DIED = "a decode process died with a batch of"


@pytest.mark.expected_log(
    r"ERROR outpost\.error_tracking\.digest only \d+ bytes are free",
    r"WARNING outpost\.error_tracking\.digest a decode process died",
)
@pytest.mark.budget(150)
@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_decode_process_killed_mid_batch_loses_and_doubles_nothing(tmp_path, workers):
    data_dir = tmp_path / "server"
    filling = launch_server(data_dir, extra_env=NO_DIGEST)
    try:
        api = ApiHelper(filling)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([filling.url], project["id"], key["public_key"], count=8, max_events=BACKLOG) as senders:
            senders.finish()
    finally:
        filling.stop()
    ledger = senders.ledger
    assert ledger.statuses == {200: BACKLOG}

    # The backlog is digested in large batches; the first one starts the decode processes.
    logged_before = len(filling.log_text())
    server = launch_server(data_dir, root_token=filling.root_token,
                           extra_env={"OUTPOST_DIGEST_PROCESSES": "2", "OUTPOST_WORKERS": workers})
    try:
        _kill_a_decode_process_holding_a_batch(server, logged_before)
        server.wait_for_digest(timeout=120)
        url = database_url(server)
        stored = stored_event_ids(url, project["id"])
        log = server.log_text()[logged_before:]
        assert DIED in log
        assert len(stored) == len(set(stored)), "an event was stored twice"
        assert set(stored) == set(ledger.accepted), "an accepted event was lost"
        assert inconsistencies(url) == {}
        # New decode processes took over after the digester decoded the broken batches itself.
        assert len(re.findall(r"decode process \d+ started", log)) > 2
        # The broken pool's other decode processes ended with it, so the server stops when asked, its digester
        # too: a survivor that ignored the pool's SIGTERM kept the pool's thread spinning and the digester from
        # exiting, until the server was killed.
        assert server.stop() == 0
    finally:
        server.stop()


def _kill_a_decode_process_holding_a_batch(server: RunningServer, logged_before: int, timeout: float = 60) -> None:
    """Stops both decode processes (SIGSTOP) as soon as they have started; if the spool then stops draining, the
    digester waits for batches they hold, and one is killed (SIGKILL) there, the other let go on (SIGCONT) to
    take the pool's SIGTERM. Otherwise both go on and another try follows.

    Both, not one: a single stopped process could be the idle one while the other drained the whole backlog
    (5,000 entries in about two seconds here) before a try caught the busy one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        started = [int(pid) for pid in re.findall(r"decode process (\d+) started",
                                                  server.log_text()[logged_before:])]
        if len(started) < 2:
            time.sleep(0.01)
            continue
        pool = started[-2:]
        for pid in pool:
            os.kill(pid, signal.SIGSTOP)
        before = _queued(server)
        time.sleep(1.0)
        stalled = _queued(server) == before > 0
        if stalled:
            os.kill(pool[0], signal.SIGKILL)
        for pid in pool[1:] if stalled else pool:
            os.kill(pid, signal.SIGCONT)
        if stalled:
            return
        assert before > 0, "the backlog was digested before the decode processes could be caught holding a batch"
    raise AssertionError("no decode process was caught holding a batch")


def _queued(server: RunningServer) -> int:
    with server.client() as client:
        return client.get("/error_tracking/ingestion").json()["queue"]["entries"]
