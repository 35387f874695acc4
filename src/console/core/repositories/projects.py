"""The projects the signed-in user may look at, as the server last listed them; no Qt here.

The Error tracking tab's project picker lists what is held here, and the project a page works on is one of
these values (outpost_model's ``Project``), never a dict: every page reads ``project.id`` and
``project.path_with_namespace`` by name. A project found gone (deleted, or access lost, after the list came)
is dropped from what is held and the list marked stale, so the next look reads it again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.core.api.errors import NotFound
from console.core.repositories.base import Repository
from console.core.store import Kind
from outpost_model.projects import Project

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi

INSTANCE = ""  # the list is the user's, not a project's
ALL = ""  # the store's id of the whole list (its order is the server's)
PROJECTS: Kind[tuple[Project, ...]] = Kind("projects")


class ProjectsRepository(Repository):
    kind = PROJECTS

    def projects(self) -> list[Project] | None:
        """The projects in the server's order (by path); None when they were not read on this connection."""
        held = self.store.get(PROJECTS, INSTANCE, ALL)
        return None if held is None else list(held)

    def project(self, path: str) -> Project | None:
        return next((project for project in self.projects() or () if project.path_with_namespace == path), None)

    # reads ---------------------------------------------------------------------------------------------------
    async def fetch(self, api: ErrorTrackingApi) -> list[Project]:
        current = self.scope_guard()
        projects = await api.projects()
        if current():
            self.store.put(PROJECTS, INSTANCE, ALL, tuple(projects))
            self.read_now(INSTANCE)
        return projects

    async def is_gone(self, api: ErrorTrackingApi, project: Project) -> bool:
        """Whether ``project`` no longer exists for this user; if so it leaves the held list, which is stale."""
        current = self.scope_guard()
        try:
            await api.project(project.id)
        except NotFound:
            held = self.projects()
            if current() and held is not None:
                self.store.put(PROJECTS, INSTANCE, ALL, tuple(item for item in held if item.id != project.id))
                self.mark_stale(INSTANCE)
            return True
        return False
