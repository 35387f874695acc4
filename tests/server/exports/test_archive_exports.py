"""Vulnerability archive exports: create, poll and download over HTTP; GitLab's 25 columns, and only the
vulnerabilities detected within the requested days."""

import csv
import datetime as dt
import io
import json
import re
import subprocess

from sqlalchemy import update

from outpost_server.vulnerabilities.models import Vulnerability
from tests.e2e.flows import wait_for_export
from tests.server.error_tracking.toolchains import require_tool
from tests.server.exports.helpers import engine_of, upload_report

COLUMNS = ["Tool", "Scanner Name", "Status", "Vulnerability", "Details", "Severity", "CVE", "CWE",
           "Other Identifiers", "Dismissed At", "Dismissed By", "Confirmed At", "Confirmed By", "Resolved At",
           "Resolved By", "Detected At", "Location", "Issues", "Merge Requests", "Activity", "Comments", "Full Path",
           "CVSS Vectors", "Dismissal Reason", "Vulnerability ID"]
ENTITY_KEYS = {"id", "created_at", "project_id", "format", "status", "start_date", "end_date", "started_at",
               "finished_at", "expires_at", "_links"}


def detected_on(server, vulnerability_id: int, moment: dt.datetime) -> None:
    engine = engine_of(server)
    with engine.begin() as connection:
        connection.execute(update(Vulnerability).where(Vulnerability.id == vulnerability_id).values(created_at=moment))
    engine.dispose()


def test_archive_export_columns_and_date_range(server, api):
    project, tokens = api.project_with_roles({"developer": 30})
    utc = dt.timezone.utc
    with server.client() as root:
        upload_report(root, project["id"], "gl-sast-report.json")
        found = {v["severity"]: v for v in root.get(f"/projects/{project['id']}/vulnerabilities").json()}
        assert root.post(f"/vulnerabilities/{found['medium']['id']}/dismiss",
                         json={"dismissal_reason": "false_positive"}).status_code == 201
        root_user = root.get("/user").json()
    detected_on(server, found["high"]["id"], dt.datetime(2024, 1, 31, 23, 59, 59, tzinfo=utc))
    detected_on(server, found["medium"]["id"], dt.datetime(2024, 2, 1, 0, 0, 0, tzinfo=utc))
    detected_on(server, found["low"]["id"], dt.datetime(2024, 3, 31, 23, 59, 59, tzinfo=utc))
    path = f"/security/projects/{project['id']}/vulnerability_archive_exports"
    with server.client(tokens["developer"]) as client:
        created = client.post(path, json={"start_date": "2024-02-01", "end_date": "2024-03-31"})
        assert created.status_code == 201, created.text
        body = created.json()
        assert set(body) == ENTITY_KEYS
        assert (body["project_id"], body["format"], body["start_date"], body["end_date"]) == (
            project["id"], "csv", "2024-02-01", "2024-03-31")
        self_url = f"{server.api_url}/security/vulnerability_archive_exports/{body['id']}"
        assert body["_links"] == {"self": self_url, "download": f"{self_url}/download"}
        assert wait_for_export(client, body["id"], resource="vulnerability_archive_exports")["status"] == "finished"
        # Archive exports and vulnerability exports are separate resources.
        assert client.get(f"/security/vulnerability_exports/{body['id']}").status_code == 404
        download = client.get(f"/security/vulnerability_archive_exports/{body['id']}/download")
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/octet-stream"
    name = re.escape(project["path_with_namespace"].replace("/", "-").lower())
    assert re.fullmatch(rf'attachment; filename="({name}_vulnerabilities_archive_2024-02-01\.\.2024-03-31_'
                        rf"\d{{4}}-\d{{2}}-\d{{2}}T\d{{4}}\.csv)\"; filename\*=UTF-8''\1",
                        download.headers["content-disposition"])
    rows = list(csv.reader(io.StringIO(download.text, newline="")))
    assert rows[0] == COLUMNS
    by_id = {int(row[24]): dict(zip(COLUMNS, row, strict=True)) for row in rows[1:]}
    assert set(by_id) == {found["medium"]["id"], found["low"]["id"]}
    dismissed = by_id[found["medium"]["id"]]
    assert (dismissed["Status"], dismissed["Dismissed By"], dismissed["Dismissal Reason"]) == (
        "dismissed", root_user["username"], "False positive")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC", dismissed["Dismissed At"])
    assert dismissed["Detected At"] == "2024-02-01 00:00:00 UTC"
    assert (dismissed["Confirmed At"], dismissed["Resolved By"], dismissed["Issues"]) == ("", "", "")
    low = by_id[found["low"]["id"]]
    assert (low["Tool"], low["Scanner Name"], low["Severity"], low["Activity"]) == ("sast", "Semgrep", "low", "false")
    assert low["Full Path"] == f"{project['path_with_namespace']}/{found['low']['id']}"
    assert low["Location"].startswith('{"file"=>"settings/base.py"')


def test_archive_export_parameters(server, api):
    project, tokens = api.project_with_roles({"developer": 30, "reporter": 20})
    path = f"/security/projects/{project['id']}/vulnerability_archive_exports"
    with server.client(tokens["developer"]) as client:
        missing = client.post(path, json={"start_date": "2024-01-01"})
        assert (missing.status_code, missing.json()) == (400, {"error": "end_date is missing"})
        wrong = client.post(path, json={"start_date": "2024-01-01", "end_date": "2024-02-01", "export_format": "pdf"})
        assert (wrong.status_code, wrong.json()) == (400, {"error": "export_format does not have a valid value"})
        invalid = client.post(path, json={"start_date": "soon", "end_date": "2024-02-01"})
        assert (invalid.status_code, invalid.json()) == (400, {"error": "start_date is invalid"})
        backwards = client.post(path, json={"start_date": "2024-02-01", "end_date": "2024-01-01"})
        assert backwards.status_code == 400
        pending = client.get("/security/vulnerability_archive_exports/999999999")
        assert pending.status_code == 404
    with server.client(tokens["reporter"]) as client:
        refused = client.post(path, json={"start_date": "2024-01-01", "end_date": "2024-02-01"})
        assert (refused.status_code, refused.json()) == (403, {"message": "403 Forbidden"})


def test_archive_dates_are_what_rubys_date_parse_reads_and_any_range_that_is_taken_finishes(server, api):
    """Grape's Date parameters go through Ruby's Date.parse: the real `ruby` says what each form means. The
    widest range Python's dates hold finishes (no day after 9999-12-31 is needed); a year beyond them is
    refused at creation, never a failed job."""
    project, tokens = api.project_with_roles({"developer": 30})
    written = ["31/01/2026", "20260131", "2026-01-31T00:00:00", "January 31, 2026", "31.01.2026"]
    script = "puts(JSON.parse(STDIN.read).map { |text| Date.parse(text).iso8601 }.to_json)"
    ruby = subprocess.run([require_tool("ruby", "ruby"), "-rdate", "-rjson", "-e", script], check=True,
                          input=json.dumps(written), capture_output=True, text=True, timeout=60)
    path = f"/security/projects/{project['id']}/vulnerability_archive_exports"
    with server.client(tokens["developer"]) as client:
        for text, day in zip(written, json.loads(ruby.stdout), strict=True):
            created = client.post(path, json={"start_date": text, "end_date": "2026-12-31"})
            assert created.status_code == 201, (text, created.text)
            assert created.json()["start_date"] == day == "2026-01-31"
            wait_for_export(client, created.json()["id"], resource="vulnerability_archive_exports")
        widest = client.post(path, json={"start_date": "0001-01-01", "end_date": "9999-12-31"})
        assert widest.status_code == 201, widest.text
        done = wait_for_export(client, widest.json()["id"], resource="vulnerability_archive_exports")
        assert done["status"] == "finished"
        beyond = client.post(path, json={"start_date": "2026-01-01", "end_date": "10000-01-01"})
        assert (beyond.status_code, beyond.json()) == (400, {"error": "end_date is out of range"})
