"""PostgreSQL restarted, and stopped for 30 s, while events arrive: the collector keeps answering 200
from its spool, the backlog is digested once the database is back, nothing is lost or doubled, and
Outpost is never restarted. The log says once that the database is unreachable and once that it is back.
"""

from __future__ import annotations

import os
import time

import pytest

from tests.e2e.private_postgres import PrivatePostgres, server_binaries
from tests.e2e.senders import Senders
from tests.e2e.test_ingest_faults import assert_exactly_the_accepted, tracked_project, wait_until_stored
from tests.support import launch_server


@pytest.fixture
def private_postgres():
    binaries = server_binaries()
    if binaries is None:
        if os.environ.get("OUTPOST_REQUIRE_SDKS"):
            pytest.fail("PostgreSQL's server binaries are missing: apt-get install postgresql")
        pytest.skip("PostgreSQL's server binaries are missing: apt-get install postgresql")
    server = PrivatePostgres(binaries)
    try:
        yield server
    finally:
        server.remove()


# The outage the test makes, and its end, as each background worker reports them.
@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
)
@pytest.mark.postgres
def test_postgres_restarted_then_stopped_30_s_while_events_arrive(tmp_path, private_postgres):
    server = launch_server(tmp_path / "server", database_url=private_postgres.url)
    try:
        project_id, key = tracked_project(server)
        with Senders([server.url], project_id, key, count=8) as senders:
            senders.wait_for_accepted(200)
            private_postgres.restart()
            senders.wait_for_accepted(len(senders.ledger.accepted) + 200)
            private_postgres.stop()
            during = len(senders.ledger.accepted)
            time.sleep(30)
            accepted_while_down = len(senders.ledger.accepted) - during
            private_postgres.start()
            senders.wait_for_accepted(len(senders.ledger.accepted) + 200)
        ledger = senders.ledger
        assert dict(ledger.statuses) == {200: len(ledger.accepted)}, ledger.statuses
        assert ledger.unanswered == 0
        assert accepted_while_down > 100
        stored = wait_until_stored(server, project_id, set(ledger.accepted), timeout=120)
        assert_exactly_the_accepted(stored, ledger.accepted)
        assert server.process.poll() is None  # never restarted
        log = server.log_text()
        unreachable = log.count("the database is unreachable; events wait in the ingest spool")
        assert 1 <= unreachable <= 2  # the stop, and the restart if digest noticed it
        assert log.count("the database is reachable again") == unreachable
        assert "Traceback" not in log, log[-4000:]
    finally:
        server.stop()
