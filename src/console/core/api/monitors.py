"""A project's cron monitors and their check-ins through Sentry's monitors API on an Outpost server
(``/api/0/organizations/:org/monitors/``); muting and pausing are a PUT of ``isMuted`` or ``status``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_slugs


@dataclass(frozen=True)
class MonitorEnvironment:
    name: str
    status: str  # active (no check-in yet), ok or error
    last_check_in: str | None
    next_check_in: str | None


@dataclass(frozen=True)
class Monitor:
    id: str  # Sentry's guid: a slug names one monitor per project, and the organization may hold several
    slug: str
    name: str
    status: str  # active or disabled (paused)
    is_muted: bool
    config: dict[str, Any]
    environments: tuple[MonitorEnvironment, ...] = field(default_factory=tuple)

    @property
    def paused(self) -> bool:
        return self.status == "disabled"

    @property
    def failing(self) -> bool:
        return any(environment.status == "error" for environment in self.environments)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Monitor:
        return cls(id=data["id"], slug=data["slug"], name=data.get("name") or data["slug"], status=data["status"],
                   is_muted=bool(data.get("isMuted")), config=dict(data.get("config") or {}),
                   environments=tuple(MonitorEnvironment(
                       name=item["name"], status=item["status"], last_check_in=item.get("lastCheckIn"),
                       next_check_in=item.get("nextCheckIn")) for item in data.get("environments") or ()))


@dataclass(frozen=True)
class CheckIn:
    status: str  # ok, error, in_progress, missed, timeout
    created: str | None
    duration_ms: int | None
    environment: str


PAGE_SIZE = 100
# A project holds at most 1,000 monitors; an organization's list read without the project's id stops here.
MAX_PAGES = 50


class MonitorsApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @staticmethod
    def _path(project_path: str, monitor_id: str | None = None) -> str:
        organization, _project = sentry_slugs(project_path)
        return f"/organizations/{quote(organization, safe='')}/monitors/" + (
            f"{quote(monitor_id, safe='')}/" if monitor_id else "")

    async def monitors(self, project_path: str, project_id: int | None = None) -> list[Monitor]:
        """The project's monitors: its organization's list (which holds every project's), narrowed by the
        project's id when it is known, read page by page, so other projects' monitors never crowd it out."""
        _organization, slug = sentry_slugs(project_path)
        params: dict[str, Any] = {"per_page": PAGE_SIZE}
        if project_id is not None:
            params["project"] = str(project_id)
        found: list[Monitor] = []
        for _ in range(MAX_PAGES):
            response = await self.client.sentry_request(self._path(project_path), params=params)
            found.extend(Monitor.from_json(item) for item in response.json()
                         if (item.get("project") or {}).get("slug") == slug)
            following = response.links.get("next") or {}
            if following.get("results") != "true" or not following.get("cursor"):
                break
            params = {**params, "cursor": following["cursor"]}
        return found

    async def check_ins(self, project_path: str, monitor_id: str) -> list[CheckIn]:
        """The latest check-ins, newest first."""
        response = await self.client.sentry_request(f"{self._path(project_path, monitor_id)}checkins/",
                                                    params={"per_page": 50})
        return [CheckIn(status=item["status"], created=item.get("dateCreated"), duration_ms=item.get("duration"),
                        environment=item.get("environment") or "") for item in response.json()]

    async def update(self, project_path: str, monitor_id: str, changes: dict[str, Any]) -> Monitor:
        response = await self.client.sentry_request(self._path(project_path, monitor_id), method="PUT", json=changes)
        return Monitor.from_json(response.json())
