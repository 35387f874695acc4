"""A project's cron monitors and their check-ins through Sentry's monitors API on an Outpost server
(``/api/0/organizations/:org/monitors/``); muting and pausing are a PUT of ``isMuted`` or ``status``."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_slugs
from outpost_model import decode
from outpost_model.monitors import Monitor, MonitorCheckIn, MonitorConfig, MonitorEnvironment

__all__ = ["Monitor", "MonitorCheckIn", "MonitorConfig", "MonitorEnvironment", "MonitorsApi", "is_failing",
           "is_paused"]


def is_paused(monitor: Monitor) -> bool:
    return monitor.status == "disabled"


def is_failing(monitor: Monitor) -> bool:
    """Failing in some environment (paused or not)."""
    return any(environment.status == "error" for environment in monitor.environments)


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
            found.extend(monitor for monitor in decode(response.content, list[Monitor])
                         if monitor.project.slug == slug)
            following = response.links.get("next") or {}
            if following.get("results") != "true" or not following.get("cursor"):
                break
            params = {**params, "cursor": following["cursor"]}
        return found

    async def check_ins(self, project_path: str, monitor_id: str) -> list[MonitorCheckIn]:
        """The latest check-ins, newest first."""
        response = await self.client.sentry_request(f"{self._path(project_path, monitor_id)}checkins/",
                                                    params={"per_page": 50})
        return decode(response.content, list[MonitorCheckIn])

    async def update(self, project_path: str, monitor_id: str, *, muted: bool | None = None,
                     paused: bool | None = None) -> Monitor:
        """Mute or unmute, pause or resume (None: left as it is): Sentry's ``isMuted`` and ``status``."""
        body: dict[str, bool | str] = {}
        if muted is not None:
            body["isMuted"] = muted
        if paused is not None:
            body["status"] = "disabled" if paused else "active"
        response = await self.client.sentry_request(self._path(project_path, monitor_id), method="PUT", json=body)
        return decode(response.content, Monitor)
