"""Security report import and GitLab's vulnerabilities API, over HTTP against the real server."""

import csv
import io
import json

import pytest

from tests.server.exports.helpers import REPORTS, export_csv, upload_report

DEVELOPER, MAINTAINER, REPORTER = 30, 40, 20


@pytest.fixture
def project(api):
    """A fresh project with a developer, a maintainer and a reporter."""
    return api.project_with_roles({"developer": DEVELOPER, "maintainer": MAINTAINER, "reporter": REPORTER})


def list_vulnerabilities(server, token, project_id, **params):
    with server.client(token) as client:
        response = client.get(f"/projects/{project_id}/vulnerabilities", params={"per_page": 100, **params})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.mark.parametrize(
    ("report", "report_type", "scanner", "count"),
    [
        ("gl-sast-report.json", "sast", "Semgrep", 3),
        ("gl-dependency-scanning-report.json", "dependency_scanning", "Gemnasium", 2),
        ("gl-container-scanning-report.json", "container_scanning", "Trivy", 2),
        ("gl-secret-detection-report.json", "secret_detection", "Gitleaks", 1),
    ],
)
def test_import_each_report_type(server, project, report, report_type, scanner, count):
    info, tokens = project
    with server.client(tokens["developer"]) as client:
        response = upload_report(client, info["id"], report)
    assert response.status_code == 201
    assert response.json() == {"report_type": report_type, "scanner": scanner, "created": count, "updated": 0,
                               "no_longer_detected": 0}
    listed = list_vulnerabilities(server, tokens["developer"], info["id"])
    assert len(listed) == count
    assert {v["report_type"] for v in listed} == {report_type}
    assert {v["state"] for v in listed} == {"detected"}
    assert {v["scanner"]["name"] for v in listed} == {scanner}


def test_reimport_deduplicates_and_marks_missing_findings(server, project, tmp_path):
    info, tokens = project
    with server.client(tokens["developer"]) as client:
        assert upload_report(client, info["id"], "gl-sast-report.json").status_code == 201
        again = upload_report(client, info["id"], "gl-sast-report.json")
        assert again.json() == {"report_type": "sast", "scanner": "Semgrep", "created": 0, "updated": 3,
                                "no_longer_detected": 0}
        newer = json.loads((REPORTS / "gl-sast-report.json").read_text())
        dropped = newer["vulnerabilities"].pop(1)
        response = client.post(f"/projects/{info['id']}/security/reports", json=newer)
        assert response.json()["no_longer_detected"] == 1
        # Another scanner's report does not touch the SAST findings.
        assert upload_report(client, info["id"], "gl-secret-detection-report.json").json()["no_longer_detected"] == 0
    listed = list_vulnerabilities(server, tokens["developer"], info["id"], report_type="sast")
    assert len(listed) == 3
    gone = {v["title"]: v["resolved_on_default_branch"] for v in listed}
    assert gone == {dropped["name"]: True, **{v["name"]: False for v in newer["vulnerabilities"]}}
    with server.client(tokens["developer"]) as client:
        assert upload_report(client, info["id"], "gl-sast-report.json").json()["created"] == 0
    listed = list_vulnerabilities(server, tokens["developer"], info["id"], report_type="sast")
    assert not any(v["resolved_on_default_branch"] for v in listed)


def test_multipart_upload(server, project):
    info, tokens = project
    with server.client(tokens["developer"]) as client:
        files = {"file": ("gl-container-scanning-report.json",
                          (REPORTS / "gl-container-scanning-report.json").read_bytes(), "application/json")}
        response = client.post(f"/projects/{info['id']}/security/reports", files=files)
    assert response.status_code == 201
    assert response.json()["created"] == 2


def test_malformed_report_is_refused_and_changes_nothing(server, project):
    info, tokens = project
    with server.client(tokens["developer"]) as client:
        upload_report(client, info["id"], "gl-sast-report.json")
        broken = json.loads((REPORTS / "gl-sast-report.json").read_text())
        broken["vulnerabilities"] = broken["vulnerabilities"][:1] + [{"id": "x", "location": {}}]
        response = client.post(f"/projects/{info['id']}/security/reports", json=broken)
        assert response.status_code == 400
        assert response.json() == {"message": "400 Bad request - vulnerabilities[1].identifiers is missing"}
        response = client.post(f"/projects/{info['id']}/security/reports", content=b"not json",
                               headers={"Content-Type": "application/json"})
        assert response.status_code == 400
        assert response.json()["message"].startswith("400 Bad request - the report is not valid JSON")
    listed = list_vulnerabilities(server, tokens["developer"], info["id"])
    assert len(listed) == 3 and not any(v["resolved_on_default_branch"] for v in listed)


def test_access_rules(server, api, project):
    info, tokens = project
    _, stranger = api.user()
    with server.client("") as anonymous:
        assert anonymous.get(f"/projects/{info['id']}/vulnerabilities").status_code == 401
        assert upload_report(anonymous, info["id"], "gl-sast-report.json").json() == {"message": "401 Unauthorized"}
    with server.client(tokens["reporter"]) as client:
        assert client.get(f"/projects/{info['id']}/vulnerabilities").json() == {"message": "403 Forbidden"}
        assert upload_report(client, info["id"], "gl-sast-report.json").status_code == 403
    with server.client(stranger) as client:
        response = client.get(f"/projects/{info['id']}/vulnerabilities")
        assert (response.status_code, response.json()) == (404, {"message": "404 Project Not Found"})
        assert upload_report(client, info["id"], "gl-sast-report.json").status_code == 404


def test_triage_transitions_and_their_notes(server, api, project):
    info, tokens = project
    _, stranger = api.user()
    with server.client(tokens["developer"]) as client:
        upload_report(client, info["id"], "gl-dependency-scanning-report.json")
    vulnerability = list_vulnerabilities(server, tokens["developer"], info["id"])[0]
    path = f"/vulnerabilities/{vulnerability['id']}"
    with server.client(tokens["developer"]) as client:
        assert client.get(path).json()["id"] == vulnerability["id"]
        assert client.post(f"{path}/confirm").json() == {"message": "403 Forbidden"}
    with server.client(tokens["reporter"]) as client:
        assert client.get(path).status_code == 403
    with server.client(stranger) as client:
        assert client.get(path).json() == {"message": "404 Vulnerability Not Found"}
    with server.client(tokens["maintainer"]) as client:
        assert client.get("/vulnerabilities/999999999").json() == {"message": "404 Vulnerability Not Found"}
        confirmed = client.post(f"{path}/confirm")
        assert confirmed.status_code == 201 and confirmed.json()["state"] == "confirmed"
        assert confirmed.json()["confirmed_at"] is not None
        assert client.post(f"{path}/confirm").status_code == 304
        resolved = client.post(f"{path}/resolve").json()
        assert resolved["state"] == "resolved" and resolved["resolved_by_id"] is not None
        bad = client.post(f"{path}/dismiss", json={"dismissal_reason": "because"})
        assert (bad.status_code, bad.json()) == (400, {"error": "dismissal_reason does not have a valid value"})
        dismissed = client.post(f"{path}/dismiss",
                                json={"comment": "Only in CI images", "dismissal_reason": "used_in_tests"})
        assert dismissed.status_code == 201
        assert (dismissed.json()["state"], dismissed.json()["dismissal_reason"]) == ("dismissed", "used_in_tests")
        reverted = client.post(f"{path}/revert").json()
        assert reverted["state"] == "detected" and reverted["dismissal_reason"] is None
        assert client.post(f"{path}/revert").status_code == 304
        exported = export_csv(client, f"/security/projects/{info['id']}/vulnerability_exports").decode()
        rows = list(csv.reader(io.StringIO(exported)))
    row = next(r for r in rows[1:] if r[16].endswith(f"/{vulnerability['id']}"))
    entries = row[15].split("; ")
    maintainer = client_username(server, tokens["maintainer"])
    assert [entry.split("|")[1:3] for entry in entries] == [[maintainer, "confirmed"], [maintainer, "resolved"],
                                                              [maintainer, "dismissed"], [maintainer, "detected"]]
    assert entries[0].endswith("|changed vulnerability status to confirmed")
    assert entries[2].endswith('|"changed vulnerability status to dismissed: Used in tests and the following '
                               'comment: ""Only in CI images"""')
    assert row[4] == "detected" and row[18] == ""


def client_username(server, token) -> str:
    with server.client(token) as client:
        return client.get("/user").json()["username"]
