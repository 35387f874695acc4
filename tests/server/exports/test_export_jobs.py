"""The export job's durability: separate API and worker processes, exactly-once generation, a crash
mid-export, failure after repeated interruptions, and deletion after the configured lifetime."""

import datetime as dt
import signal
import time

import pytest
from sqlalchemy import func, select, update

from bench.exports.seed import insert_vulnerabilities
from outpost_server.exports.models import VulnerabilityExport, VulnerabilityExportChunk
from tests.server.exports.helpers import WAIT_SECONDS, engine_of, upload_report, wait_for_status
from tests.support import ApiHelper, start_server

NOT_READY = {"message": "404 Vulnerability Export Not Found"}


def export_row(server, export_id: int) -> VulnerabilityExport | None:
    engine = engine_of(server)
    try:
        with engine.connect() as connection:
            return connection.execute(select(VulnerabilityExport).where(VulnerabilityExport.id == export_id)).first()
    finally:
        engine.dispose()


def test_api_only_process_answers_202_until_a_worker_process_finishes(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_EXPORT_WORKER": "false"}) as api_only:
        helper = ApiHelper(api_only)
        project = helper.project()
        with api_only.client() as client:
            upload_report(client, project["id"], "gl-sast-report.json")
            export_id = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()["id"]
            pending = client.get(f"/security/vulnerability_exports/{export_id}")
            assert pending.status_code == 202
            assert pending.headers["Poll-Interval"] == "5000"
            assert pending.json()["status"] == "created"
            download = client.get(f"/security/vulnerability_exports/{export_id}/download")
            assert (download.status_code, download.json()) == (404, NOT_READY)
            with start_server(tmp_path, root_token=api_only.root_token):
                assert wait_for_status(client, export_id)["status"] == "finished"
            # The API-only process serves a file another process wrote.
            download = client.get(f"/security/vulnerability_exports/{export_id}/download")
            assert download.status_code == 200 and download.content.count(b"\n") == 4


def test_repeatedly_interrupted_export_is_marked_failed(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_EXPORT_WORKER": "false"}) as api_only:
        with api_only.client() as client:
            export_id = client.post("/security/vulnerability_exports").json()["id"]
            engine = engine_of(api_only)
            with engine.begin() as connection:
                # What three crashed workers leave behind.
                connection.execute(update(VulnerabilityExport).where(VulnerabilityExport.id == export_id).values(
                    status="running", attempts=3, lease_owner="crashed",
                    lease_expires_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)))
            engine.dispose()
            running = client.get(f"/security/vulnerability_exports/{export_id}")
            assert (running.status_code, running.json()["status"]) == (202, "running")
            with start_server(tmp_path, root_token=api_only.root_token):
                failed = wait_for_status(client, export_id)
            assert failed["status"] == "failed" and failed["finished_at"] is not None
            response = client.get(f"/security/vulnerability_exports/{export_id}")
            assert response.status_code == 200 and "Poll-Interval" not in response.headers
            download = client.get(f"/security/vulnerability_exports/{export_id}/download")
            assert (download.status_code, download.json()) == (404, NOT_READY)


def test_two_processes_produce_each_export_exactly_once(tmp_path):
    with start_server(tmp_path) as first, start_server(tmp_path, root_token=first.root_token) as second:
        # One export per author and project at a time, so twelve developers ask at once, half on each server.
        project, tokens = ApiHelper(first).project_with_roles({f"developer{n}": 30 for n in range(12)})
        with first.client() as root:
            upload_report(root, project["id"], "gl-dependency-scanning-report.json")
        clients = [server.client(token) for server, token in zip((first, second) * 6, tokens.values(), strict=True)]
        ids = [client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()["id"]
               for client in clients]
        for client, export_id in zip(clients, ids, strict=True):
            assert wait_for_status(client, export_id)["status"] == "finished"
        files = {client.get(f"/security/vulnerability_exports/{i}/download").content
                 for client, i in zip(clients, ids, strict=True)}
        for client in clients:
            client.close()
        assert len(files) == 1 and next(iter(files)).count(b"\n") == 3
        for export_id in ids:
            assert export_row(first, export_id).attempts == 1


# The killed server's workers may see the database go away with it, and say so once it is back.
@pytest.mark.expected_log(r"the database is unreachable", r"works again after \d+ failures")
def test_export_survives_a_crash_mid_way(tmp_path):
    count = 40_000
    env = {"OUTPOST_EXPORT_LEASE_SECONDS": "2"}
    server = start_server(tmp_path, extra_env=env)
    running = server.__enter__()
    try:
        project = ApiHelper(running).project()
        engine = engine_of(running)
        insert_vulnerabilities(engine, project["id"], count)
        engine.dispose()
        with running.client() as client:
            export_id = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()["id"]
            wait_for_status(client, export_id, statuses=("running",))
        running.stop(signal.SIGKILL)
    finally:
        server.__exit__(None, None, None)
    crashed = export_row(running, export_id)
    assert (crashed.status, crashed.attempts) == ("running", 1)
    with start_server(tmp_path, root_token=running.root_token, extra_env=env) as restarted:
        with restarted.client() as client:
            assert wait_for_status(client, export_id)["status"] == "finished"
            with client.stream("GET", f"/security/vulnerability_exports/{export_id}/download") as download:
                lines = sum(chunk.count(b"\n") for chunk in download.iter_bytes())
        # Each vulnerability's description holds one escaped newline, never a raw one.
        assert lines == count + 1
        assert export_row(restarted, export_id).attempts == 2


def test_export_is_deleted_after_its_lifetime(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_VULNERABILITY_EXPORT_LIFETIME": "600"}) as short_lived:
        with short_lived.client() as client:
            created = client.post("/security/vulnerability_exports").json()
            expires = dt.datetime.fromisoformat(created["expires_at"].replace("Z", "+00:00"))
            created_at = dt.datetime.fromisoformat(created["created_at"].replace("Z", "+00:00"))
            assert expires - created_at == dt.timedelta(seconds=600)
            wait_for_status(client, created["id"])
            assert client.get(f"/security/vulnerability_exports/{created['id']}/download").status_code == 200
            # The lifetime ends (moved into the past rather than waited for: a lifetime short enough to wait
            # for could end before a loaded worker had finished the export, which then never ran).
            engine = engine_of(short_lived)
            with engine.begin() as connection:
                connection.execute(update(VulnerabilityExport).where(VulnerabilityExport.id == created["id"])
                                   .values(expires_at=dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=1)))
            for suffix in ("", "/download"):
                response = client.get(f"/security/vulnerability_exports/{created['id']}{suffix}")
                assert (response.status_code, response.json()) == (404, {"message": "404 Not found"})
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            with engine.connect() as connection:
                left = (export_row(short_lived, created["id"]),
                        connection.scalar(select(func.count()).select_from(VulnerabilityExportChunk)
                                          .where(VulnerabilityExportChunk.export_id == created["id"])))
            if left == (None, 0):
                break
            assert time.monotonic() < deadline, "expired export was not deleted"
            time.sleep(0.2)
        engine.dispose()
        with short_lived.client() as client:
            # Clients remember exports by id, so a deleted export's id is never handed out again.
            assert client.post("/security/vulnerability_exports").json()["id"] > created["id"]


def test_a_long_pdf_keeps_its_lease_while_it_is_laid_out(tmp_path):
    # Laying out 1,500 vulnerabilities takes seconds, with nothing stored meanwhile: with a 1 s lease, the
    # other process would take the job over (a second attempt) unless the lease is renewed during the layout.
    # On a busy machine the layout can take a minute or more, hence the longer wait.
    env = {"OUTPOST_EXPORT_LEASE_SECONDS": "1"}
    with start_server(tmp_path, extra_env=env) as first, \
            start_server(tmp_path, root_token=first.root_token, extra_env=env):
        project = ApiHelper(first).project()
        engine = engine_of(first)
        insert_vulnerabilities(engine, project["id"], 1500)
        engine.dispose()
        with first.client() as client:
            created = client.post(f"/security/projects/{project['id']}/vulnerability_exports",
                                  json={"export_format": "pdf", "send_email": False}).json()
            assert wait_for_status(client, created["id"], seconds=240)["status"] == "finished"
            download = client.get(f"/security/vulnerability_exports/{created['id']}/download")
        assert download.headers["content-type"] == "application/octet-stream" and download.content.startswith(b"%PDF")
        assert export_row(first, created["id"]).attempts == 1
