"""PDF vulnerability exports at the project, group and instance levels, read back with pypdf: the title page,
the summary by severity and status, the table of vulnerabilities, page numbers, filters and report_data."""

import io
import re

import pypdf

from tests.server.exports.helpers import upload_report, wait_for_status


def pdf_export(client, path: str, body: dict | None = None) -> tuple[list[str], dict[str, str]]:
    """The text of each page of a finished PDF export, and the download's headers."""
    created = client.post(path, json={"export_format": "pdf", **(body or {})})
    assert created.status_code == 201, created.text
    assert created.json()["format"] == "pdf"
    assert wait_for_status(client, created.json()["id"])["status"] == "finished"
    download = client.get(f"/security/vulnerability_exports/{created.json()['id']}/download")
    assert download.status_code == 200
    reader = pypdf.PdfReader(io.BytesIO(download.content))
    return [page.extract_text() for page in reader.pages], dict(download.headers)


def count(text: str, label: str) -> int:
    match = re.search(rf"^{label}\s+(\d+)\s*$", text, re.MULTILINE)
    assert match, f"no {label} row in {text!r}"
    return int(match.group(1))


def summary(pages: list[str]) -> dict[str, int]:
    page = pages[1]
    assert "Summary" in page
    severities = {name: count(page, name.capitalize())
                  for name in ("critical", "high", "medium", "low", "info", "unknown")}
    states = {name: count(page, name.capitalize()) for name in ("detected", "confirmed", "resolved", "dismissed")}
    totals = [int(total) for total in re.findall(r"^Total\s+(\d+)\s*$", page, re.MULTILINE)]
    return {**severities, **states, "totals": totals}  # type: ignore[dict-item]


def assert_numbered(pages: list[str]) -> None:
    assert len(pages) >= 3
    for number, text in enumerate(pages, start=1):
        assert f"Page {number}" in text


def test_project_pdf(server, api):
    project, tokens = api.project_with_roles({"developer": 30})
    with server.client() as root:
        upload_report(root, project["id"], "gl-sast-report.json")
        upload_report(root, project["id"], "gl-container-scanning-report.json")
    with server.client(tokens["developer"]) as client:
        developer = client.get("/user").json()
        pages, headers = pdf_export(client, f"/security/projects/{project['id']}/vulnerability_exports",
                                    {"report_data": {"dashboard_type": "project", "full_path": "shown/path",
                                                     "secret_component": "dropped"}})
    assert headers["content-type"] == "application/octet-stream"
    name = re.escape(project["path_with_namespace"].replace("/", "-").lower())
    assert re.fullmatch(rf'attachment; filename="({name}_vulnerabilities_\d{{4}}-\d{{2}}-\d{{2}}T\d{{4}}\.pdf)"; '
                        rf"filename\*=UTF-8''\1", headers["content-disposition"])
    assert_numbered(pages)
    cover = pages[0]
    assert "Vulnerability report" in cover
    assert f"Scope: Project {project['path_with_namespace']}" in cover
    assert f"(@{developer['username']})" in cover and "Generated at:" in cover
    assert "Dashboard type: project" in cover and "Full path: shown/path" in cover
    assert "secret_component" not in "".join(pages)
    numbers = summary(pages)
    assert (numbers["critical"], numbers["high"], numbers["medium"], numbers["low"]) == (1, 1, 2, 1)
    assert (numbers["detected"], numbers["dismissed"], numbers["totals"]) == (5, 0, [5, 5])
    table = "".join(pages[2:])
    for title in ("Use of insecure MD5 hash function", "Use of hard-coded password", "CVE-2019-14697"):
        assert title in table
    assert "app/crypto.py:7" in table and "CWE-327" in table


def test_group_pdf_with_filters(server, api):
    group = api.group()
    subgroup = api.group(parent_id=group["id"])
    inside, nested = api.project(group_id=group["id"]), api.project(group_id=subgroup["id"])
    with server.client() as root:
        upload_report(root, inside["id"], "gl-sast-report.json")
        upload_report(root, nested["id"], "gl-secret-detection-report.json")
        path = f"/security/groups/{group['id']}/vulnerability_exports"
        pages, _ = pdf_export(root, path)
        numbers = summary(pages)
        assert (numbers["critical"], numbers["high"], numbers["medium"], numbers["low"]) == (1, 1, 1, 1)
        assert numbers["totals"] == [4, 4]
        assert f"Scope: Group {group['full_path']}" in pages[0]
        assert "AWS access token" in "".join(pages[2:])
        filtered, _ = pdf_export(root, path, {"filters": {"severity": ["critical", "high"], "unknown_key": 1,
                                                          "report_type": ["sast", "secret_detection"],
                                                          "has_issues": False}})
    numbers = summary(filtered)
    assert (numbers["critical"], numbers["high"], numbers["medium"], numbers["low"]) == (1, 1, 0, 0)
    assert numbers["totals"] == [2, 2]
    # The filters in the reader's words, not the API's keys and values.
    assert "Only severities: critical, high" in filtered[0] and "unknown_key" not in filtered[0]
    assert "Only report types: SAST, Secret detection" in filtered[0]
    assert "Only: vulnerabilities without linked issues" in filtered[0]
    assert not {"report_type", "secret_detection", "has_issues"} & set(filtered[0].split())
    assert "Use of insecure MD5 hash function" not in "".join(filtered[2:])


def test_instance_pdf_covers_the_requesters_projects(server, api):
    mine, unrelated = api.project(), api.project()
    user, token = api.user()
    api.member("projects", mine["id"], user["id"], 30)
    with server.client() as root:
        upload_report(root, mine["id"], "gl-dependency-scanning-report.json")
        upload_report(root, unrelated["id"], "gl-sast-report.json")
    with server.client(token) as client:
        pages, _ = pdf_export(client, "/security/vulnerability_exports")
        # A filter that matches nothing still makes a whole report.
        empty, _ = pdf_export(client, "/security/vulnerability_exports", {"filters": {"has_issues": True}})
    assert f"Scope: Instance: the projects of @{user['username']}" in pages[0]
    numbers = summary(pages)
    assert (numbers["critical"], numbers["medium"], numbers["totals"]) == (1, 1, [2, 2])
    assert "Regular Expression Denial of Service" in "".join(pages[2:])
    assert summary(empty)["totals"] == [0, 0]
    assert "No vulnerabilities match this export." in empty[2]
    assert_numbered(empty)
