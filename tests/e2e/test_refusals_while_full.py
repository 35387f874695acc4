"""A refusal is counted when it happens: while the disk is full and the spool (which keeps the counters) cannot
be written, `refused_total{reason="spool_unavailable"}` already shows the 503s answered, and once space is back
it keeps them."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.e2e.test_ingest_faults import fill, small_disk
from tests.support import ApiHelper, launch_server

__all__ = ["small_disk"]  # the fixture, used by name


def _refused(server) -> int:
    with server.client() as client:
        return client.get("/error_tracking/ingestion").json()["refused"].get("spool_unavailable", 0)


@pytest.mark.expected_log(
    r"ERROR \S+ the ingest spool cannot be written",
    r"WARNING \S+ the ingest spool is writable again",
)
def test_spool_unavailable_refusals_are_counted_while_the_disk_is_full(small_disk):
    server = launch_server(small_disk / "data")
    try:
        api = ApiHelper(server)
        project_id = api.project()["id"]
        key = enable_error_tracking(api.root, project_id)["public_key"]

        def send() -> httpx.Response:
            headers, body = store_request(key, sentry_event())
            return httpx.post(server.url + store_path(project_id), headers=headers, content=body, timeout=30)

        assert send().status_code == 200
        filler = fill(small_disk)
        statuses = [send().status_code for _ in range(30)]  # the first may still fit in what was left
        unavailable = statuses.count(503)
        assert unavailable >= 20, statuses
        # Counted now, while nothing can be written.
        assert _refused(server) == unavailable
        filler.unlink()
        resumed = [send().status_code == 200 for _ in range(3)]
        for _ in range(300):  # ingestion resumes by itself once space is back
            if resumed[-1]:
                break
            time.sleep(0.1)
            resumed.append(send().status_code == 200)
        assert resumed[-1], "ingestion did not resume"
        assert _refused(server) == unavailable + resumed.count(False)
    finally:
        server.stop()
