"""Shared steps of the vulnerability export tests."""

from __future__ import annotations

import time
from pathlib import Path

import httpx

from bench.exports.seed import server_engine
from tests.support import RunningServer

REPORTS = Path(__file__).resolve().parent / "reports"
WAIT_SECONDS = 60


def upload_report(client: httpx.Client, project_id: int, name: str) -> httpx.Response:
    return client.post(f"/projects/{project_id}/security/reports", content=(REPORTS / name).read_bytes(),
                       headers={"Content-Type": "application/json"})


def wait_for_status(client: httpx.Client, export_id: int, statuses=("finished", "failed"),
                    seconds: float = WAIT_SECONDS) -> dict:
    deadline = time.monotonic() + seconds
    while True:
        response = client.get(f"/security/vulnerability_exports/{export_id}")
        body = response.json()
        if response.status_code in (200, 202) and body["status"] in statuses:
            return body
        assert time.monotonic() < deadline, f"export {export_id} stuck: {response.status_code} {body}"
        time.sleep(0.05)


def export_csv(client: httpx.Client, path: str) -> bytes:
    """Requests an export at path (e.g. /security/projects/1/vulnerability_exports) and downloads it."""
    created = client.post(path)
    assert created.status_code == 201, created.text
    assert wait_for_status(client, created.json()["id"])["status"] == "finished"
    download = client.get(f"/security/vulnerability_exports/{created.json()['id']}/download")
    assert download.status_code == 200
    return download.content


def engine_of(server: RunningServer):
    return server_engine(server.data_dir, server.env.get("OUTPOST_DATABASE_URL"))
