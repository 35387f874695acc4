"""Creating vulnerability exports as GitLab 18 does: one unfinished export per author and scope (429),
the declared filters (other keys dropped) applied to the CSV, send_email's defaults, parameter errors."""

import csv
import datetime as dt
import io
import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import update

from outpost_server.exports.models import VulnerabilityExport
from tests.server.exports.helpers import engine_of, upload_report, wait_for_status
from tests.support import ApiHelper, start_server

IN_PROGRESS = {"message": "Export already in progress. Please retry after the current export completes."}


def csv_rows(client, path: str, body: dict | None = None) -> list[list[str]]:
    created = client.post(path, json=body or {})
    assert created.status_code == 201, created.text
    assert wait_for_status(client, created.json()["id"])["status"] == "finished"
    download = client.get(f"/security/vulnerability_exports/{created.json()['id']}/download")
    return list(csv.reader(io.StringIO(download.text, newline="")))[1:]


def test_second_export_of_a_scope_waits_for_the_first(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_EXPORT_WORKER": "false"}) as api_only:
        helper = ApiHelper(api_only)
        project = helper.project()
        other = helper.project()
        path = f"/security/projects/{project['id']}/vulnerability_exports"
        with api_only.client() as client:
            first = client.post(path)
            assert first.status_code == 201
            # No worker here: the first stays "created", and so the same scope is refused, in either format.
            for body in ({}, {"export_format": "pdf"}):
                refused = client.post(path, json=body)
                assert (refused.status_code, refused.json()) == (429, IN_PROGRESS)
            # Other scopes, and other authors of the same scope, are not held up.
            assert client.post(f"/security/projects/{other['id']}/vulnerability_exports").status_code == 201
            assert client.post("/security/vulnerability_exports").status_code == 201
            developer, token = helper.user()
            helper.member("projects", project["id"], developer["id"], 30)
            with api_only.client(token) as colleague:
                assert colleague.post(path).status_code == 201
            # A worker process finishes the first: the author may ask again.
            with start_server(tmp_path, root_token=api_only.root_token):
                assert wait_for_status(client, first.json()["id"])["status"] == "finished"
            second = client.post(path)
            assert second.status_code == 201
            # Failed counts as done too (what three crashed workers leave behind is marked failed).
            engine = engine_of(api_only)
            with engine.begin() as connection:
                connection.execute(update(VulnerabilityExport).where(VulnerabilityExport.id == second.json()["id"])
                                   .values(status="running", attempts=3, lease_owner="crashed",
                                           lease_expires_at=dt.datetime.now(dt.timezone.utc)
                                           - dt.timedelta(seconds=1)))
            engine.dispose()
            assert client.post(path).status_code == 429
            with start_server(tmp_path, root_token=api_only.root_token):
                assert wait_for_status(client, second.json()["id"])["status"] == "failed"
            assert client.post(path).status_code == 201


def test_simultaneous_requests_create_one_export(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_EXPORT_WORKER": "false"}) as api_only:
        project = ApiHelper(api_only).project()
        path = f"/security/projects/{project['id']}/vulnerability_exports"
        barrier = threading.Barrier(8)

        def create(_: int) -> int:
            with api_only.client() as client:
                barrier.wait()
                return client.post(path).status_code

        with ThreadPoolExecutor(8) as pool:
            statuses = sorted(pool.map(create, range(8)))
    assert statuses == [201] + [429] * 7


def test_filters_choose_the_csv_rows(server, api):
    group = api.group()
    sast, containers = api.project(group_id=group["id"]), api.project(group_id=group["id"])
    user, token = api.user()
    api.member("groups", group["id"], user["id"], 30)
    with server.client() as root:
        upload_report(root, sast["id"], "gl-sast-report.json")
        upload_report(root, containers["id"], "gl-container-scanning-report.json")
        vulnerabilities = root.get(f"/projects/{sast['id']}/vulnerabilities").json()
        low = next(v for v in vulnerabilities if v["severity"] == "low")
        assert root.post(f"/vulnerabilities/{low['id']}/dismiss").status_code == 201
    path = f"/security/groups/{group['id']}/vulnerability_exports"
    with server.client(token) as client:
        everything = csv_rows(client, path)
        assert len(everything) == 5

        def rows(filters: dict) -> list[list[str]]:
            return csv_rows(client, path, {"filters": filters})

        assert sorted(row[8] for row in rows({"severity": ["critical", "high"]})) == ["critical", "high"]
        assert {row[2] for row in rows({"report_type": ["container_scanning"]})} == {"container_scanning"}
        assert [row[4] for row in rows({"state": ["dismissed"]})] == ["dismissed"]
        assert len(rows({"state": ["detected"], "severity": "medium"})) == 2
        assert {row[1] for row in rows({"project_id": [sast["id"]]})} == {sast["name"]}
        assert len(rows({"scanner": ["semgrep"]})) == 3
        assert len(rows({"has_resolution": False})) == 5 and rows({"has_resolution": True}) == []
        # Outpost links no issues or merge requests and keeps no remediations.
        assert rows({"has_issues": True}) == [] and len(rows({"has_issues": "false"})) == 5
        assert rows({"has_merge_request": True}) == [] and rows({"has_remediations": True}) == []
        # Keys GitLab does not declare are dropped, as Grape drops them.
        assert len(rows({"owasp_top_10": ["A1"], "dismissal_reason": ["false_positive"]})) == 5
        refused = client.post(path, json={"filters": {"severity": ["urgent"]}})
        assert (refused.status_code, refused.json()) == (
            400, {"error": "filters[severity] does not have a valid value"})
        refused = client.post(path, json={"filters": {"has_issues": "maybe"}})
        assert (refused.status_code, refused.json()) == (400, {"error": "filters[has_issues] is invalid"})
        refused = client.post(path, json={"filters": "severity=high"})
        assert (refused.status_code, refused.json()) == (400, {"error": "filters is invalid"})


def test_send_email_defaults_follow_the_format(server, api):
    project, tokens = api.project_with_roles({"developer": 30})
    path = f"/security/projects/{project['id']}/vulnerability_exports"
    with server.client(tokens["developer"]) as client:
        for body, expected in (({}, False), ({"export_format": "pdf"}, True),
                               ({"export_format": "pdf", "send_email": False}, False),
                               ({"export_format": "csv", "send_email": "true"}, True)):
            created = client.post(path, json=body)
            assert created.status_code == 201, created.text
            assert created.json()["send_email"] is expected
            assert created.json()["format"] == body.get("export_format", "csv")
            wait_for_status(client, created.json()["id"])
        refused = client.post(path, json={"report_data": {"dashboard_type": "pipeline"}})
        assert (refused.status_code, refused.json()) == (
            400, {"error": "report_data[dashboard_type] does not have a valid value"})
