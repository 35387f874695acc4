"""A deleted artifact bundle's row id is not handed out again, so the digest's cache of parsed maps (kept
by row id) never maps a new build's events through the deleted build's map.

Without AUTOINCREMENT, SQLite gave the next upload the id of the newest bundle just deleted; the digest
found the old build's map in its cache under that id and named the new build's frames after whatever the
old map had at their positions (seen in a whole-suite run as a second error, framed in another app's files).
"""

from __future__ import annotations

import shutil

import httpx

from tests.server.error_tracking.conftest import server_sessionmaker
from tests.server.error_tracking.through_api import ErrorsApi
from tests.support import ApiHelper, start_server

from .conftest import make_upload_project
from .sourcemap_app import run_node
from .test_function_names import EXPECTED, TITLE, all_event_frames, builds


def test_a_build_uploaded_after_the_newest_bundle_was_deleted_is_mapped_by_its_own_map(tmp_path):
    with start_server(tmp_path / "server") as server:
        ApiHelper(server)
        upload_project = make_upload_project(server, server_sessionmaker(server))
        tracked = upload_project.tracked
        made = builds("node")
        bundles_url = server.url + upload_project.api0("files/artifact-bundles/")
        maintainer = {"Authorization": f"Bearer {upload_project.maintainer}"}
        for name in ("plain", "extras"):
            copy = tmp_path / name
            shutil.copytree(made[name], copy)
            upload_project.uploader(server).inject_and_upload(copy)
            run_node(copy, dsn=tracked.dsn, release=f"shop@{name}")
            ErrorsApi.of(server, tracked.id).errors()  # waits for the digest: the map is cached by then
            if name == "plain":
                [bundle] = httpx.get(bundles_url, headers=maintainer, timeout=30).json()
                deleted = httpx.delete(bundles_url, params={"bundleId": bundle["bundleId"]}, headers=maintainer,
                                       timeout=30)
                assert deleted.status_code == 204, deleted.text
        errors = ErrorsApi.of(server, tracked.id).errors()
        assert [(error["title"], error["count"]) for error in errors] == [(TITLE, 2)], [
            all_event_frames(server, error["id"]) for error in errors]
        assert all_event_frames(server, errors[0]["id"]) == [EXPECTED] * 2
