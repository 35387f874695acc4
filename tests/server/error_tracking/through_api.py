"""Reading what the server stored the way users do: GitLab's error tracking JSON endpoints."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

from tests.support import RunningServer


@dataclass
class ErrorsApi:
    server: RunningServer
    project_path: str

    @classmethod
    def of(cls, server: RunningServer, project_id: int) -> ErrorsApi:
        with server.client() as client:
            project = client.get(f"/projects/{project_id}").json()
        return cls(server, project["path_with_namespace"])

    def _get(self, suffix: str, **params: Any) -> dict:
        url = f"{self.server.url}/{self.project_path}/-/error_tracking{suffix}"
        response = httpx.get(url, params=params, headers={"PRIVATE-TOKEN": self.server.root_token}, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def errors(self) -> list[dict]:
        self.server.wait_for_digest()
        return self._get(".json")["errors"]  # unresolved, newest first: one page is plenty here

    def titled(self, title: str) -> dict:
        matches = [error for error in self.errors() if error["title"] == title]
        assert len(matches) == 1, [error["title"] for error in self.errors()]
        return matches[0]

    def wait_for(self, count: int, timeout: float = 30) -> list[dict]:
        """The errors once `count` exist (SDKs that send in the background may return before the server has
        stored their events); fails with what is there after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.errors()
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.2)

    def details(self, error: dict) -> dict:
        return self._get(f"/{error['id']}/details.json")["error"]

    def stack_trace(self, error: dict) -> dict:
        return self._get(f"/{error['id']}/stack_trace.json")["error"]

    def functions(self, error: dict) -> list[str | None]:
        """Function names of the raised exception's frames, outermost first."""
        exceptions = self.stack_trace(error)["exceptions"]
        return [frame["function"] for frame in exceptions[-1]["frames"]]


def collector_paths(server: RunningServer, tracked) -> set[str]:
    """The collector endpoints (`store`, `envelope`) the project's SDK posted to, from the request log."""
    prefix = f"/api/v4/error_tracking/collector/api/{tracked.id}/"
    paths = set()
    for line in server.log_text().splitlines():
        if prefix in line:
            paths.add(line.split(prefix, 1)[1].split('"', 1)[0].strip("/"))
    return paths
