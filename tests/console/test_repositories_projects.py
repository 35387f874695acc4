"""The projects repository against the real server: the list held as outpost_model's Project values in the
server's order, a project found gone leaving it, and nothing of an earlier connection."""

from __future__ import annotations

import asyncio

import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.repositories.projects import INSTANCE, PROJECTS, ProjectsRepository
from console.core.store import Change, Store
from outpost_model.projects import Project


@pytest.mark.asyncio
async def test_the_projects_are_held_typed_in_the_servers_order_and_a_gone_one_leaves(server, api):
    first, second = api.project(), api.project()
    store, heard = Store(), []
    projects = ProjectsRepository(store)
    store.begin("root at the test server")
    store.subscribe(heard.append)
    assert projects.projects() is None and projects.is_stale(INSTANCE)
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        errors = ErrorTrackingApi(client)
        read = await projects.fetch(errors)
        paths = [project.path for project in read]
        assert paths == sorted(paths)  # the server's order, which the picker keeps: by the project's path
        held = projects.project(first["path_with_namespace"])
        assert isinstance(held, Project) and held.id == first["id"] and held.namespace.full_path
        assert projects.projects() == read and not projects.is_stale(INSTANCE)
        assert heard == [Change(PROJECTS, INSTANCE, frozenset({""}))]

        assert not await projects.is_gone(errors, held)
        assert api.root.delete(f"/projects/{second['id']}").status_code == 202
        gone = projects.project(second["path_with_namespace"])
        assert gone is not None and await projects.is_gone(errors, gone)
        assert projects.project(second["path_with_namespace"]) is None and projects.is_stale(INSTANCE)
        assert projects.project(first["path_with_namespace"]) == held

        late = asyncio.ensure_future(projects.fetch(errors))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert projects.projects() is None and projects.is_stale(INSTANCE)
