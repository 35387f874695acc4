"""Stored events per project and for the instance: the retention API's figures, the administrators'
`GET /error_tracking/storage` and `outpost-server status`."""

from __future__ import annotations

import os
import subprocess
import sys

import httpx
import pytest

from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.support import REPO_ROOT, ApiHelper, start_server

ON_POSTGRES = bool(os.environ.get("OUTPOST_TEST_PG_ADMIN_URL"))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    env = {"OUTPOST_ERROR_TRACKING_PRUNER": "false"}
    with start_server(tmp_path_factory.mktemp("storage"), extra_env=env) as running:
        yield running


def tracked_project(server, events: int) -> dict:
    project = ApiHelper(server).project()
    key = enable_error_tracking(server.client(), project["id"])["public_key"]
    with httpx.Client(base_url=server.url, timeout=30) as collector:
        for index in range(events):
            headers, body = store_request(key, sentry_event(group=index % 2, message=f"failure {index}"))
            assert collector.post(store_path(project["id"]), headers=headers, content=body).status_code == 200
    server.wait_for_digest()
    return project


def test_each_project_and_the_instance_show_events_payload_bytes_and_their_share_on_disk(server):
    busy, quiet, empty = tracked_project(server, 6), tracked_project(server, 2), tracked_project(server, 0)
    api = server.client()
    retention = {project["id"]: api.get(f"/projects/{project['id']}/error_tracking/retention").json()
                 for project in (busy, quiet, empty)}
    basis = "pg_total_relation_size" if ON_POSTGRES else "dbstat"
    assert {body["disk_basis"] for body in retention.values()} == {basis}
    assert [retention[p["id"]]["stored_events"] for p in (busy, quiet, empty)] == [6, 2, 0]
    assert retention[busy["id"]]["stored_bytes"] > retention[quiet["id"]]["stored_bytes"] > 0
    # The share on disk follows the share of events: three times the events, about three times the bytes.
    assert retention[busy["id"]]["disk_bytes"] > 2 * retention[quiet["id"]]["disk_bytes"] > 0
    assert retention[empty["id"]]["disk_bytes"] == 0

    storage = api.get("/error_tracking/storage")
    assert storage.status_code == 200, storage.text
    body = storage.json()
    listed = {row["project_id"]: row for row in body["projects"]}
    assert empty["id"] not in listed
    for project in (busy, quiet):
        row, own = listed[project["id"]], retention[project["id"]]
        assert row["path_with_namespace"] == project["path_with_namespace"]
        assert (row["events"], row["payload_bytes"]) == (own["stored_events"], own["stored_bytes"])
        assert row["disk_bytes"] == pytest.approx(own["disk_bytes"], abs=1)
    assert body["events"] == sum(row["events"] for row in body["projects"])
    assert body["payload_bytes"] == sum(row["payload_bytes"] for row in body["projects"])
    assert body["disk_bytes"] >= sum(row["disk_bytes"] for row in body["projects"]) - len(body["projects"])
    assert body["disk_basis"] == basis
    # Most events first.
    assert [row["events"] for row in body["projects"]] == sorted((row["events"] for row in body["projects"]),
                                                                 reverse=True)

    status = subprocess.run([sys.executable, "-m", "outpost_server", "status", "--data-dir", str(server.data_dir)],
                            capture_output=True, text=True, cwd=REPO_ROOT, env=server.env)
    assert status.returncode == 0, status.stderr
    lines = status.stdout.splitlines()
    assert "Stored events:" in lines
    assert any(line.strip().startswith(f"{busy['path_with_namespace']}: 6 events, payloads ") for line in lines)
    assert any(line.strip().startswith(f"total: {body['events']:,} events") and f"({basis})" in line
               for line in lines)


def test_only_administrators_see_the_instance_storage(server):
    _, token = ApiHelper(server).user()
    refused = server.client(token).get("/error_tracking/storage")
    assert (refused.status_code, refused.json()) == (403, {"message": "403 Forbidden"})
    anonymous = httpx.get(f"{server.url}/api/v4/error_tracking/storage")
    assert anonymous.status_code == 401
