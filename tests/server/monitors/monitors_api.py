"""Reading monitors the way users do: Sentry's monitors API under /api/0, with the root user's token."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from tests.server.error_tracking.conftest import TrackedProject
from tests.support import RunningServer


@dataclass
class MonitorsApi:
    server: RunningServer
    tracked: TrackedProject
    organization: str
    project_slug: str

    @classmethod
    def of(cls, server: RunningServer, tracked: TrackedProject) -> MonitorsApi:
        with server.client() as client:
            project = client.get(f"/projects/{tracked.id}").json()
        organization, _, below = project["path_with_namespace"].partition("/")
        return cls(server, tracked, organization, below.replace("/", "~"))

    def request(self, method: str, suffix: str, **kwargs: Any) -> httpx.Response:
        return httpx.request(method, f"{self.server.url}/api/0/organizations/{self.organization}/monitors/{suffix}",
                             headers={"Authorization": f"Bearer {self.server.root_token}"}, timeout=30, **kwargs)

    def all(self) -> dict[str, dict]:
        """This project's monitors by slug, once everything accepted is digested."""
        self.server.wait_for_digest()
        response = self.request("GET", "", params={"project": str(self.tracked.id)})
        assert response.status_code == 200, response.text
        return {monitor["slug"]: monitor for monitor in response.json()}

    def id_of(self, slug: str) -> str:
        """This project's monitor `slug` by its guid: other projects of the organization may use the slug too."""
        return self.all()[slug]["id"]

    def get(self, slug: str) -> dict:
        response = self.request("GET", f"{self.id_of(slug)}/")
        assert response.status_code == 200, response.text
        return response.json()

    def check_ins(self, slug: str) -> list[dict]:
        """Newest first."""
        response = self.request("GET", f"{self.id_of(slug)}/checkins/")
        assert response.status_code == 200, response.text
        return response.json()

    def wait_for_statuses(self, slug: str, wanted: list[str], timeout: float) -> list[dict]:
        """The check-ins once their statuses (newest first) are `wanted`; fails with what is there."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.check_ins(slug)
            if [check_in["status"] for check_in in found] == wanted or time.monotonic() > deadline:
                assert [check_in["status"] for check_in in found] == wanted, found
                return found
            time.sleep(1)

    def cron_url(self, slug: str) -> str:
        """Sentry's HTTP check-in URL of the project's key: what a curl heartbeat calls."""
        return (f"{self.server.url}/api/v4/error_tracking/collector/api/{self.tracked.id}/cron/{slug}/"
                f"{self.tracked.public_key}/")
