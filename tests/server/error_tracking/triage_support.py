"""A project with members at each role, errors sent by the real Python SDK, and Sentry's web API as each
member calls it: what the triage tests share."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import httpx

from outpost_server.accounts import access
from tests.sdk_errors import enable_integrated
from tests.support import ApiHelper, RunningServer

# Sends each [message, user] pair as one event through the Python SDK (1.21.0): one error per message.
SDK_SCRIPT = r'''
import json
import sys

import sentry_sdk

sentry_sdk.init(dsn=sys.argv[1], release="shop@1.0.0", environment="production", default_integrations=False)
for message, user in json.loads(sys.argv[2]):
    with sentry_sdk.push_scope() as scope:
        if user:
            scope.set_user({"id": user})
        scope.set_tag("checkout_step", "payment")
        sentry_sdk.capture_message(message, level="error")
sentry_sdk.flush(timeout=10)
'''


@dataclass
class TriageProject:
    server: RunningServer
    helper: ApiHelper
    project: dict
    dsn: str
    # role -> (user, token with the api scope); "outsider" is no member.
    members: dict[str, tuple[dict, str]]

    @property
    def slugs(self) -> str:
        organization, *below = self.project["path_with_namespace"].split("/")
        return f"{organization}/{'~'.join(below)}"

    @property
    def issues_path(self) -> str:
        return f"/projects/{self.slugs}/issues/"

    def sentry(self, role: str = "developer") -> httpx.Client:
        token = self.server.root_token if role == "root" else self.members[role][1]
        return httpx.Client(base_url=self.server.url + "/api/0", headers={"Authorization": f"Bearer {token}"},
                            timeout=30)

    def web(self, role: str = "developer") -> httpx.Client:
        token = self.server.root_token if role == "root" else self.members[role][1]
        return httpx.Client(base_url=self.server.url, headers={"PRIVATE-TOKEN": token}, timeout=30)

    def send(self, *events: tuple[str, str | None]) -> None:
        """The SDK sends these events; returns once the server digested them."""
        send_with_sdk(self.server, self.dsn, *events)

    def issues(self, query: str = "is:unresolved", role: str = "developer") -> list[dict]:
        with self.sentry(role) as client:
            response = client.get(self.issues_path, params={"query": query})
        assert response.status_code == 200, response.text
        return response.json()

    def by_title(self, query: str = "is:unresolved") -> dict[str, dict]:
        return {issue["title"]: issue for issue in self.issues(query)}

    def bulk(self, ids: list[str], body: dict, role: str = "developer", **params) -> httpx.Response:
        with self.sentry(role) as client:
            return client.put(self.issues_path, params={"id": ids, **params} if ids else params, json=body)


def send_with_sdk(server: RunningServer, dsn: str, *events: tuple[str, str | None]) -> None:
    """The Python SDK sends each (message, user) as one event to `dsn`; returns once the server digested them."""
    with tempfile.TemporaryDirectory() as directory:
        script = Path(directory) / "shop_sdk.py"
        script.write_text(SDK_SCRIPT)
        finished = subprocess.run([sys.executable, str(script), dsn, json.dumps(list(events))],
                                  capture_output=True, text=True, timeout=60, cwd=directory)
    assert finished.returncode == 0, finished.stderr
    server.wait_for_digest()


def triage_project(server: RunningServer, *titles: str) -> TriageProject:
    """A new project with a developer, a reporter, a guest and an outsider, and one error per title."""
    helper = ApiHelper(server)
    project = helper.project(group_id=helper.group()["id"])
    members = {}
    for role, level in (("developer", access.DEVELOPER), ("reporter", access.REPORTER), ("guest", access.GUEST),
                        ("outsider", None)):
        user, token = helper.user()
        if level is not None:
            helper.member("projects", project["id"], user["id"], level)
        members[role] = (user, token)
    found = TriageProject(server, helper, project, enable_integrated(helper.root, project["id"]), members)
    if titles:
        found.send(*((title, None) for title in titles))
    return found
