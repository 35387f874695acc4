"""Two replicas on one PostgreSQL database share the rate limit and prune once between them."""

from __future__ import annotations

import time
from itertools import pairwise

import httpx
import pytest

from tests.e2e.databases import rows, scalar
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.e2e.test_replicas import replicas
from tests.support import ApiHelper, RunningServer, start_well_inside

pytestmark = pytest.mark.postgres


def _send(server: RunningServer, project_id: int, public_key: str, count: int) -> list[int]:
    statuses = []
    with httpx.Client(base_url=server.url, timeout=30) as client:
        for _ in range(count):
            headers, body = store_request(public_key, sentry_event())
            statuses.append(client.post(store_path(project_id), headers=headers, content=body).status_code)
    return statuses


def test_the_rate_limit_is_counted_once_across_replicas(tmp_path):
    # A small limit, so the 16 requests and the pause fit well inside the minute's 30-s margin even on a
    # loaded machine (the limit counts per wall-clock minute; a run crossing one would see it reset).
    with replicas(tmp_path, {"OUTPOST_ERROR_TRACKING_RATE_LIMIT_PER_MINUTE": "10"}) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])["public_key"]
        start_well_inside(60, margin=30)
        assert _send(a, project["id"], key, 8) == [200] * 8
        time.sleep(1.5)  # longer than a sync interval: A has shared its count
        on_b = _send(b, project["id"], key, 8)
        assert on_b == [200] * 2 + [429] * 6
        for server in (a, b):
            server.wait_for_digest()  # accepted is not yet stored: the count is read once both have digested
        assert scalar(a.env["OUTPOST_DATABASE_URL"], "SELECT SUM(count) FROM error_tracking_errors "
                                                     "WHERE project_id = :p", p=project["id"]) == 10


def finished_passes_once_pruned(url: str, project_id: int, *, kept: int) -> list[tuple]:
    """Waits until the project keeps `kept` events, then a few more pruning intervals; the finished passes
    (worker, start, end, events deleted), checked never to have overlapped."""
    deadline = time.monotonic() + 60
    while scalar(url, "SELECT COUNT(*) FROM error_tracking_error_events WHERE project_id = :p", p=project_id) != kept:
        assert time.monotonic() < deadline, "pruning never happened"
        time.sleep(0.2)
    time.sleep(3)  # a few more intervals, so both replicas get their turns
    runs = rows(url, "SELECT worker_id, started_at, finished_at, events_deleted FROM error_tracking_prune_runs "
                     "ORDER BY started_at")
    finished = [run for run in runs if run[2] is not None]
    for earlier, later in pairwise(finished):
        assert earlier[2] <= later[1], f"two passes overlapped: {earlier} and {later}"
    return finished


def test_two_replicas_prune_once_and_never_at_the_same_time(tmp_path):
    env = {"OUTPOST_ERROR_TRACKING_PRUNE_INTERVAL_SECONDS": "1", "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR": "0",
           "OUTPOST_ERROR_TRACKING_PROJECT_BYTES": "0"}
    with replicas(tmp_path, env) as (a, b):
        api = ApiHelper(a)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])["public_key"]
        assert _send(a, project["id"], key, 40) + _send(b, project["id"], key, 40) == [200] * 80
        response = api.root.put(f"/projects/{project['id']}/error_tracking/retention", json={"events_per_error": 5})
        assert response.status_code == 200, response.text
        url = a.env["OUTPOST_DATABASE_URL"]
        finished = finished_passes_once_pruned(url, project["id"], kept=5)
    assert sum(run[3] for run in finished) == 75
    assert scalar(url, "SELECT SUM(count) FROM error_tracking_errors WHERE project_id = :p", p=project["id"]) == 80
