"""The source maps repository (no Qt) against the real server: a project's releases and their files read into
outpost_model's entities, held per project, read again after a deletion, and nothing written by a read that lands
after the connection changed."""

from __future__ import annotations

import asyncio

import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.sentry_events import sentry_project_path
from console.core.api.source_maps import SourceMapsApi, release_file_debug_id
from console.core.repositories.source_maps import SourceMapsRepository
from console.core.store import Store

DEBUG_ID = "c0ffee00-1234-4abc-8def-000000000001"


@pytest.mark.asyncio
async def test_releases_and_files_are_read_typed_and_read_again_after_a_deletion(server, api):
    project = api.project()
    path = project["path_with_namespace"]
    sentry = f"{server.url}/api/0{sentry_project_path(path)}"
    bearer = {"Authorization": f"Bearer {server.root_token}"}
    api.root.post(f"{sentry}releases/", json={"version": "shop@1.0.0"}, headers=bearer).raise_for_status()
    api.root.post(f"{sentry}releases/shop@1.0.0/files/", headers=bearer,
                  files={"file": ("app.min.js.map", b'{"version":3,"sources":[],"mappings":""}')},
                  data={"name": "~/static/app.min.js.map", "header": f"debug-id:{DEBUG_ID}"}).raise_for_status()
    store = Store()
    maps = SourceMapsRepository(store)
    store.begin("root at the test server")
    assert maps.held(path) is None and maps.is_stale(path)
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        source_maps = SourceMapsApi(client, path)
        await maps.fetch(source_maps, path)
        held = maps.held(path)
        assert held is not None and not held.empty and held.bundles == () and not maps.is_stale(path)
        [(release, [stored])] = held.releases
        assert release.version == "shop@1.0.0" and stored.name == "~/static/app.min.js.map"
        assert release_file_debug_id(stored) == DEBUG_ID and stored.size > 0

        await maps.delete_release_file(source_maps, path, release.version, stored.id)
        held = maps.held(path)
        assert held is not None and held.empty  # what is left is read, not guessed

        late = asyncio.ensure_future(maps.fetch(source_maps, path))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert maps.held(path) is None and maps.is_stale(path)
