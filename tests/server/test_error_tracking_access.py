"""One rule decides who reads a project's errors (error_tracking/access.py), on every path that serves them.

An administrator who is a member of nothing reads the errors of every project, a personal project of
another user and one in a nested private group alike, through the four read paths: the web JSON
endpoints, GraphQL, Sentry's web API and its issue endpoint; a user who is not a member reads none.
"""

from __future__ import annotations

import re

import httpx
import pytest

from tests.sdk_errors import enable_integrated, send_errors, wait_for_list
from tests.server.graphql.support import data_of, graphql
from tests.support import ApiHelper

NEXT_PAGE = re.compile(r'<(?P<url>[^>]+)>; rel="next"; results="true"')
SENTRY_ERRORS = "query($p: ID!) { project(fullPath: $p) { sentryErrors { errors { nodes { title } } } } }"


def _sentry_slugs(path: str) -> tuple[str, str]:
    organization, *below = path.split("/")
    return organization, "~".join(below)


@pytest.fixture(scope="module")
def projects(server, api: ApiHelper) -> list[dict]:
    """Two private projects with one error each: one of another user's, one in a nested group."""
    owner, owner_token = api.user()
    with httpx.Client(base_url=server.api_url, headers={"PRIVATE-TOKEN": owner_token}) as client:
        personal = client.post("/projects", json={"name": "personal errors", "visibility": "private"})
        personal.raise_for_status()
    nested = api.project(group_id=api.group(parent_id=api.group()["id"])["id"])
    found = []
    for project in (personal.json(), nested):
        send_errors(enable_integrated(api.root, project["id"]), f"stored in {project['path']}")
        with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
            wait_for_list(web, project["path_with_namespace"], lambda body: len(body["errors"]) == 1)
        found.append(project)
    return found


def _read_paths(server, token: str, path: str) -> dict[str, list[str] | None]:
    """The error titles each read path answers for the project; None when it refuses."""
    organization, slug = _sentry_slugs(path)
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": token}) as web:
        listed = web.get(f"/{path}/-/error_tracking.json")
        web_titles = [error["title"] for error in listed.json()["errors"]] if listed.status_code == 200 else None
    project = data_of(graphql(server, SENTRY_ERRORS, {"p": path}, token=token))["project"]
    graph_titles = ([node["title"] for node in project["sentryErrors"]["errors"]["nodes"]]
                    if project and project["sentryErrors"] else None)
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {token}"}) as sentry:
        issues = sentry.get(f"/projects/{organization}/{slug}/issues/")
        sentry_titles = [issue["title"] for issue in issues.json()] if issues.status_code == 200 else None
        issue_titles = None
        if sentry_titles is not None:
            issue = sentry.get(f"/issues/{issues.json()[0]['id']}/")
            issue_titles = [issue.json()["title"]] if issue.status_code == 200 else None
    return {"web": web_titles, "graphql": graph_titles, "sentry": sentry_titles, "sentry issue": issue_titles}


def test_an_administrator_reads_every_projects_errors_on_every_path(server, api, projects):
    _, admin_token = api.user(admin=True)
    for project in projects:
        titles = _read_paths(server, admin_token, project["path_with_namespace"])
        expected = [f"stored in {project['path']}"]
        assert titles == {"web": expected, "graphql": expected, "sentry": expected, "sentry issue": expected}


def test_a_non_member_reads_no_projects_errors(server, api, projects):
    _, outsider_token = api.user()
    for project in projects:
        titles = _read_paths(server, outsider_token, project["path_with_namespace"])
        assert titles == {"web": None, "graphql": None, "sentry": None, "sentry issue": None}


def test_the_sentry_project_list_names_every_project_for_an_administrator(server, api, projects):
    _, admin_token = api.user(admin=True)
    listed = set()
    with httpx.Client(base_url=server.url + "/api/0", headers={"Authorization": f"Bearer {admin_token}"}) as sentry:
        url: str | None = "/projects/"
        while url:
            page = sentry.get(url)
            listed |= {(item["organization"]["slug"], item["slug"]) for item in page.json()}
            following = NEXT_PAGE.search(page.headers["link"])
            url = following["url"] if following else None
    assert {_sentry_slugs(project["path_with_namespace"]) for project in projects} <= listed
