"""While PostgreSQL is down, answers that never touch the database (a collector's 200, a 404, a 401) do not
end the outage: the log says once that the database is unreachable and once, after a statement succeeds
again, that it is back, however the requests interleave."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.test_ingest_faults import send_one, tracked_project
from tests.e2e.test_ingest_postgres_faults import private_postgres  # noqa: F401 - the fixture
from tests.support import launch_server

UNREACHABLE = "the database is unreachable; answering 503 until it is back"
# The API's line (its logger named): the digester says the same words of its own outage when it noticed one.
BACK = "outpost.error the database is reachable again after"
ROUNDS = 30


# The outage the test makes, and its end, as each background worker reports them.
@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
)
@pytest.mark.postgres
def test_an_outage_is_logged_once_whatever_answers_between(tmp_path, private_postgres):  # noqa: F811
    server = launch_server(tmp_path / "server", database_url=private_postgres.url)
    try:
        project_id, key = tracked_project(server)
        assert send_one(server, key, project_id).status_code == 200  # the collector knows the key
        private_postgres.stop()
        statuses: dict[str, set[int]] = {"api": set(), "unknown": set(), "anonymous": set(), "collector": set()}
        with server.client() as client, httpx.Client(base_url=server.api_url, timeout=30) as anonymous:
            for _ in range(ROUNDS):
                statuses["api"].add(client.get("/projects").status_code)
                statuses["unknown"].add(anonymous.get("/no/such/route").status_code)
                statuses["anonymous"].add(anonymous.get("/user").status_code)
                statuses["collector"].add(send_one(server, key, project_id).status_code)
            assert statuses == {"api": {503}, "unknown": {404}, "anonymous": {401}, "collector": {200}}
            assert server.log_text().count(UNREACHABLE) == 1
            assert BACK not in server.log_text()
            private_postgres.start()
            deadline = time.monotonic() + 60
            while client.get("/projects").status_code != 200:
                assert time.monotonic() < deadline, "the API never came back"
                time.sleep(0.2)
        log = server.log_text()
        assert (log.count(UNREACHABLE), log.count(BACK)) == (1, 1), log[-4000:]
    finally:
        server.stop()
