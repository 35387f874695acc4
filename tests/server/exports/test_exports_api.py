"""GitLab's vulnerability exports API over HTTP: status codes, bodies, access, scopes and the CSV bytes."""

import csv
import io
import re

from tests.server.exports.helpers import export_csv, upload_report, wait_for_status
from tests.support import start_server

DEVELOPER, REPORTER = 30, 20
EXPORT_KEYS = {"id", "created_at", "project_id", "group_id", "format", "status", "started_at", "finished_at",
               "send_email", "expires_at", "_links"}
ISO_MS = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z\Z")


def rows_of(content: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(content.decode("utf-8"), newline="")))


def test_project_export_lifecycle(server, api):
    project, tokens = api.project_with_roles({"developer": DEVELOPER})
    with server.client(tokens["developer"]) as client:
        upload_report(client, project["id"], "gl-sast-report.json")
        created = client.post(f"/security/projects/{project['id']}/vulnerability_exports")
        assert created.status_code == 201
        body = created.json()
        assert set(body) == EXPORT_KEYS
        summary = (body["project_id"], body["group_id"], body["format"], body["status"])
        assert summary == (project["id"], None, "csv", "created")
        assert (body["started_at"], body["finished_at"]) == (None, None)
        assert ISO_MS.match(body["created_at"]) and ISO_MS.match(body["expires_at"])
        assert body["_links"] == {
            "self": f"{server.api_url}/security/vulnerability_exports/{body['id']}",
            "download": f"{server.api_url}/security/vulnerability_exports/{body['id']}/download",
        }
        finished = wait_for_status(client, body["id"])
        assert finished["status"] == "finished"
        assert ISO_MS.match(finished["started_at"]) and ISO_MS.match(finished["finished_at"])
        again = client.get(f"/security/vulnerability_exports/{body['id']}")
        assert again.status_code == 200 and "Poll-Interval" not in again.headers
        download = client.get(f"/security/vulnerability_exports/{body['id']}/download")
    assert download.status_code == 200
    assert download.headers["content-type"] == "application/octet-stream"
    name = re.escape(project["path_with_namespace"].replace("/", "-").lower())
    assert re.fullmatch(rf'attachment; filename="({name}_vulnerabilities_\d{{4}}-\d{{2}}-\d{{2}}T\d{{4}}\.csv)"; '
                        rf"filename\*=UTF-8''\1", download.headers["content-disposition"])
    rows = rows_of(download.content)
    assert rows[0][:3] == ["Group Name", "Project Name", "Tool"] and len(rows) == 4
    assert all(len(row) == 19 for row in rows)
    assert {row[2] for row in rows[1:]} == {"sast"}
    assert all(re.fullmatch(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC", row[12]) for row in rows[1:])


def test_external_url_setting_builds_the_links(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_EXTERNAL_URL": "https://gitlab.example.com"}) as private:
        with private.client() as client:
            body = client.post("/security/vulnerability_exports").json()
    assert body["_links"]["self"] == f"https://gitlab.example.com/api/v4/security/vulnerability_exports/{body['id']}"
    assert (body["project_id"], body["group_id"]) == (None, None)


def test_create_status_codes(server, api):
    group = api.group()
    project = api.project(group_id=group["id"])
    reporter, reporter_token = api.user()
    api.member("groups", group["id"], reporter["id"], REPORTER)
    _, stranger = api.user()
    project_path = f"/security/projects/{project['id']}/vulnerability_exports"
    group_path = f"/security/groups/{group['id']}/vulnerability_exports"
    with server.client("") as anonymous:
        for path in (project_path, group_path, "/security/vulnerability_exports"):
            response = anonymous.post(path)
            assert (response.status_code, response.json()) == (401, {"message": "401 Unauthorized"})
        for path in ("/security/vulnerability_exports/1", "/security/vulnerability_exports/1/download"):
            assert anonymous.get(path).status_code == 401
    with server.client(reporter_token) as client:
        for path in (project_path, group_path):
            response = client.post(path)
            assert (response.status_code, response.json()) == (403, {"message": "403 Forbidden"})
    with server.client(stranger) as client:
        response = client.post(project_path)
        assert (response.status_code, response.json()) == (404, {"message": "404 Project Not Found"})
        response = client.post(group_path)
        assert (response.status_code, response.json()) == (404, {"message": "404 Group Not Found"})
        response = client.post("/security/vulnerability_exports", json={"export_format": "xlsx"})
        assert (response.status_code, response.json()) == (400, {"error": "export_format does not have a valid value"})
        assert client.post(project_path, data={"export_format": "xml"}).status_code == 400
        assert client.post("/security/vulnerability_exports", json={"export_format": "csv"}).status_code == 201
    with server.client() as root:
        encoded_path = project["path_with_namespace"].replace("/", "%2F")
        by_path = root.post(f"/security/projects/{encoded_path}/vulnerability_exports")
        assert by_path.status_code == 201 and by_path.json()["project_id"] == project["id"]


def test_only_the_author_reads_and_downloads(server, api):
    project, tokens = api.project_with_roles({"author": DEVELOPER, "colleague": DEVELOPER})
    with server.client(tokens["author"]) as client:
        export_id = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()["id"]
        wait_for_status(client, export_id)
        assert client.get("/security/vulnerability_exports/987654321").json() == {"message": "404 Not found"}
        assert client.get("/security/vulnerability_exports/987654321/download").status_code == 404
    for token in (tokens["colleague"], server.root_token):
        with server.client(token) as other:
            for suffix in ("", "/download"):
                response = other.get(f"/security/vulnerability_exports/{export_id}{suffix}")
                assert (response.status_code, response.json()) == (403, {"message": "403 Forbidden"})


def test_author_who_lost_access_is_refused(server, api):
    project = api.project()
    author, token = api.user()
    api.member("projects", project["id"], author["id"], DEVELOPER)
    with server.client(token) as client:
        export_id = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()["id"]
        wait_for_status(client, export_id)
        assert client.get(f"/security/vulnerability_exports/{export_id}").status_code == 200
        with server.client() as root:
            assert root.delete(f"/projects/{project['id']}/members/{author['id']}").status_code == 204
        for suffix in ("", "/download"):
            response = client.get(f"/security/vulnerability_exports/{export_id}{suffix}")
            assert (response.status_code, response.json()) == (403, {"message": "403 Forbidden"})


def test_group_export_covers_subgroups_only(server, api):
    group = api.group()
    subgroup = api.group(parent_id=group["id"])
    inside, nested, outside = api.project(group_id=group["id"]), api.project(group_id=subgroup["id"]), api.project()
    member, token = api.user()
    api.member("groups", group["id"], member["id"], DEVELOPER)
    with server.client() as root:
        upload_report(root, inside["id"], "gl-sast-report.json")
        upload_report(root, nested["id"], "gl-container-scanning-report.json")
        upload_report(root, outside["id"], "gl-secret-detection-report.json")
    with server.client(token) as client:
        created = client.post(f"/security/groups/{group['id']}/vulnerability_exports").json()
        assert (created["group_id"], created["project_id"]) == (group["id"], None)
        wait_for_status(client, created["id"])
        rows = rows_of(export_csv(client, f"/security/groups/{group['id']}/vulnerability_exports"))
    assert sorted({row[1] for row in rows[1:]}) == sorted({inside["name"], nested["name"]})
    assert len(rows) == 1 + 3 + 2
    assert {row[0] for row in rows[1:]} == {group["name"], subgroup["name"]}


def test_instance_export_covers_projects_with_developer_access(server, api):
    developer_of, reporter_of, unrelated = api.project(), api.project(), api.project()
    user, token = api.user()
    api.member("projects", developer_of["id"], user["id"], DEVELOPER)
    api.member("projects", reporter_of["id"], user["id"], REPORTER)
    with server.client() as root:
        for project in (developer_of, reporter_of, unrelated):
            upload_report(root, project["id"], "gl-dependency-scanning-report.json")
    with server.client(token) as client:
        rows = rows_of(export_csv(client, "/security/vulnerability_exports"))
    assert {row[1] for row in rows[1:]} == {developer_of["name"]}
    assert len(rows) == 3
    with server.client() as root:
        names = {row[1] for row in rows_of(export_csv(root, "/security/vulnerability_exports"))[1:]}
    assert {developer_of["name"], reporter_of["name"], unrelated["name"]} <= names


# The demo project tools/scanner-lab holds the hostile text; these are GitLab's bytes for it.
HOSTILE_EXPORT = "\n".join([
    "Group Name,Project Name,Tool,Scanner Name,Status,Vulnerability,Details,Additional Info,Severity,CVE,CWE,"
    "Other Identifiers,Detected At,Location,Activity,Comments,Full Path,CVSS Vectors,Dismissal Reason",
    'Tools,Scanner Lab,sast,Semgrep,detected,"\'=HYPERLINK(""http://evil.example"",""Click, me"")",'
    '"Line one\\nLine ""two"", with a comma",,high,,CWE-79,"""rule; with space""; ""A03 """"Injection""""""",'
    '2024-03-04 10:15:41 UTC,"{""file""=>""src/ünï \\""cødé\\"".py"", ""method""=>""\\#{eval}"", ""start_line""=>1}",'
    'false,"2024-03-04 10:16:41 UTC|dave||""@channel look, """"now""""\\nsecond line""; '
    '2024-03-04 10:17:41 UTC|root||""pipe | inside""",tools/scanner-lab/9,"",',
    "Tools,Scanner Lab,dependency_scanning,Gemnasium,dismissed,'-1+1 überlauf in naïve-lib,'+cmd|' /C calc'!A0,,"
    'medium,CVE-2024-0001,,"""Gemnasium-;semi""",2024-03-04 10:15:41 UTC,'
    '"{""file""=>""package-lock.json"", ""dependency""=>{""package""=>{""name""=>""naïve-lib""}, '
    '""version""=>""0.0.1-β""}}",false,"2024-03-04 10:18:41 UTC|amelia|dismissed|""changed vulnerability status '
    'to dismissed: Not applicable and the following comment: """";DROP TABLE comments""""""",tools/scanner-lab/10,'
    "GitLab=CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:L/I:L/A:L,Not applicable",
    "Tools,Scanner Lab,container_scanning,Trivy,confirmed,'@admin — コンテナの脆弱性,'-,,low,CVE-2024-0002,,\"\","
    '2024-03-04 10:15:41 UTC,"{""image""=>""lab/tool:latest"", ""dependency""=>{""package""=>{""name""=>""libc6""}, '
    '""version""=>""2.36-9""}, ""operating_system""=>""debian 12""}",false,'
    "2024-03-04 10:19:41 UTC|dave|confirmed|changed vulnerability status to confirmed,tools/scanner-lab/11,\"\",",
    "Tools,Scanner Lab,secret_detection,Gitleaks,resolved,\"';Private key, in repo\",\"Tab\there and CR\rthere\",,"
    'critical,,,"""Gitleaks rule ID PKCS8-PK""",2024-03-04 10:15:41 UTC,"{""file""=>""keys/id_rsa"", '
    '""commit""=>{""sha""=>""0000000000000000000000000000000000000000""}, ""start_line""=>1}",true,'
    "2024-03-04 10:21:41 UTC|root|resolved|changed vulnerability status to resolved,tools/scanner-lab/12,\"\",",
    "",
]).encode("utf-8")


def test_hostile_demo_text_byte_for_byte(server):
    with server.client() as root:
        content = export_csv(root, "/security/projects/tools%2Fscanner-lab/vulnerability_exports")
    assert content == HOSTILE_EXPORT
    # A spreadsheet-style reader sees 19 cells per row and no live formula.
    rows = rows_of(content)
    assert all(len(row) == 19 for row in rows)
    assert not any(cell[:1] in "=+-@;" for row in rows[1:] for cell in row if cell)
