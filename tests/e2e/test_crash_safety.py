"""kill -9 in the middle of work, restart on the same data, and check nothing promised was lost.

Runs on SQLite, and on PostgreSQL when OUTPOST_TEST_PG_ADMIN_URL is set (each server then gets
its own fresh database, kept across the restart).
"""

from __future__ import annotations

import csv
import io
import signal
import time

from tests.e2e.databases import database_url, inconsistencies, scalar, stored_event_ids
from tests.e2e.flows import enable_error_tracking, sast_report, upload_report, wait_for_export
from tests.e2e.senders import Senders
from tests.support import ApiHelper, launch_server

# Big enough that the export is still running when the poll sees it start.
EXPORT_FINDINGS = 5000


def test_events_answered_200_survive_kill_9_exactly_once(tmp_path):
    data_dir = tmp_path / "server"
    server = launch_server(data_dir)
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        senders = Senders([server.url], project["id"], key["public_key"], count=16)
        with senders:
            senders.wait_for_accepted(400)
            server.process.send_signal(signal.SIGKILL)
            server.process.wait()
        ledger = senders.ledger
    finally:
        server.stop()

    restarted = launch_server(data_dir, root_token=server.root_token)
    try:
        url = database_url(restarted)
        restarted.wait_for_digest()  # what the killed server had accepted is digested after the restart
        stored = stored_event_ids(url, project["id"])
        assert set(ledger.statuses) == {200}, f"only 200s expected before the kill, got {ledger.statuses}"
        assert len(stored) == len(set(stored)), "an event was stored twice"
        missing = set(ledger.accepted) - set(stored)
        assert not missing, f"{len(missing)} of {len(ledger.accepted)} accepted events were lost"
        assert inconsistencies(url) == {}
        # The restarted server takes events again.
        with Senders([restarted.url], project["id"], key["public_key"], count=2, max_events=20) as again:
            again.finish()
        assert again.ledger.statuses == {200: 20}
        restarted.wait_for_digest()
        assert set(again.ledger.accepted) <= set(stored_event_ids(url, project["id"]))
    finally:
        restarted.stop()


def test_export_interrupted_by_kill_9_finishes_after_restart(tmp_path):
    data_dir = tmp_path / "server"
    # A short lease so the restarted server takes over the dead worker's job quickly.
    env = {"OUTPOST_EXPORT_LEASE_SECONDS": "2"}
    server = launch_server(data_dir, extra_env=env)
    try:
        api = ApiHelper(server)
        project = api.project()
        upload_report(api.root, project["id"], sast_report(EXPORT_FINDINGS, tag="crash"))
        export = api.root.post(f"/security/projects/{project['id']}/vulnerability_exports").json()
        status = _wait_until_started(api, export["id"])
        server.process.send_signal(signal.SIGKILL)
        server.process.wait()
    finally:
        server.stop()
    assert status == "running", "the export finished before it could be interrupted; raise EXPORT_FINDINGS"

    restarted = launch_server(data_dir, root_token=server.root_token, extra_env=env)
    try:
        with restarted.client() as client:
            final = wait_for_export(client, export["id"], timeout=120)
            assert final["status"] in ("finished", "failed")
            if final["status"] == "finished":
                download = client.get(f"/security/vulnerability_exports/{export['id']}/download")
                assert download.status_code == 200
                table = list(csv.reader(io.StringIO(download.content.decode("utf-8"))))
                assert len(table) == EXPORT_FINDINGS + 1
                assert len({row[16] for row in table[1:]}) == EXPORT_FINDINGS, "a row was written twice"
        url = database_url(restarted)
        attempts = scalar(url, "SELECT attempts FROM vulnerability_exports WHERE id = :id", id=export["id"])
        assert attempts >= 2, "the export was not taken up again after the crash"
        assert inconsistencies(url) == {}
    finally:
        restarted.stop()


def _wait_until_started(api: ApiHelper, export_id: int, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        status = api.root.get(f"/security/vulnerability_exports/{export_id}").json()["status"]
        if status != "created":
            return status
        time.sleep(0.005)
    raise AssertionError(f"export {export_id} never left 'created'")
