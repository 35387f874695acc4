"""Uploading source maps with the real sentry-cli 3.8 (`sourcemaps inject` and `sourcemaps upload`) to a real
server, and Sentry's answers to what the CLI does not send: limits, malformed bundles, access."""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import time
import uuid
import zipfile

import httpx
import pytest

from .sourcemap_app import build, debug_id_of, inject
from .uploading import assemble, assembled_state, bearer, bundles_of, chunk_upload


@pytest.fixture(scope="module")
def built():
    """The app built and its debug ids injected."""
    return inject(build("uploads"))


def test_sentry_cli_injects_and_uploads_a_bundle_with_its_debug_ids(server, upload_project, built, tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(built, copy)
    upload_project.uploader(server).inject_and_upload(copy)
    expected = {debug_id_of(copy / runtime / "app.min.js") for runtime in ("browser", "node")}
    listed = bundles_of(server, upload_project)
    assert len(listed) == 1 and listed[0]["fileCount"] == 4 and listed[0]["associations"] == []
    files = httpx.get(server.url + upload_project.api0(f"artifact-bundles/{listed[0]['bundleId']}/files/"),
                      headers=bearer(upload_project.maintainer), timeout=30).json()["files"]
    assert {file["debugId"] for file in files} == expected
    assert sorted(file["filePath"] for file in files) == [
        "~/browser/app.min.js", "~/browser/app.min.js.map", "~/node/app.min.js", "~/node/app.min.js.map"]

    # The same upload again is recognised (nothing left to send) and keeps one bundle.
    upload_project.uploader(server).run("sourcemaps", "upload", str(copy))
    assert [bundle["bundleId"] for bundle in bundles_of(server, upload_project)] == [listed[0]["bundleId"]]


def test_a_developer_may_not_upload(server, upload_project, built, tmp_path):
    result = upload_project.uploader(server, token=upload_project.developer).run(
        "sourcemaps", "upload", str(built), check=False)
    assert result.returncode != 0
    answer = httpx.get(f"{server.url}/api/0/organizations/{upload_project.organization}/chunk-upload/",
                       headers=bearer(upload_project.developer), timeout=30)
    assert (answer.status_code, answer.json()) == (
        403, {"detail": "You do not have permission to perform this action."})
    assert bundles_of(server, upload_project) == []


def test_limits_and_malformed_uploads_get_sentrys_answers_and_store_nothing(server, upload_project):
    options = httpx.get(f"{server.url}/api/0/organizations/{upload_project.organization}/chunk-upload/",
                        headers=bearer(upload_project.maintainer), timeout=30).json()
    assert {"artifact_bundles", "release_files", "sources"} <= set(options["accept"])
    big = b"x" * (options["chunkSize"] + 1)
    answer = chunk_upload(server, upload_project, [(hashlib.sha1(big).hexdigest(), big)])
    assert (answer.status_code, answer.json()) == (400, {"error": "Chunk size too large"})
    answer = chunk_upload(server, upload_project, [("0" * 40, b"not what the name says")])
    assert (answer.status_code, answer.json()) == (400, {"error": "Checksum mismatch"})

    # Chunks that are not a source bundle: the assemble state says so, and no bundle is stored.
    garbage = b"this is not a zip archive"
    checksum = hashlib.sha1(garbage).hexdigest()
    body = {"checksum": checksum, "chunks": [checksum], "projects": [upload_project.slug]}
    assert assemble(server, upload_project, body).json() == {"state": "not_found", "missingChunks": [checksum]}
    assert chunk_upload(server, upload_project, [(checksum, garbage)]).status_code == 200
    assert assembled_state(server, upload_project, body) == {
        "state": "error", "detail": "the bundle is invalid", "missingChunks": []}

    # A readable bundle whose files carry neither debug ids nor a release is refused, as Sentry refuses it.
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("_/_/app.js", "console.log(1)")
        writer.writestr("manifest.json", '{"files": {"_/_/app.js": {"type": "minified_source", "url": "~/app.js"}}}')
    data = archive.getvalue()
    checksum = hashlib.sha1(data).hexdigest()
    assert chunk_upload(server, upload_project, [(checksum, data)]).status_code == 200
    state = assembled_state(server, upload_project,
                             {"checksum": checksum, "chunks": [checksum], "projects": [upload_project.slug]})
    assert state["detail"] == "uploading a bundle without debug ids or release is prohibited"
    assert bundles_of(server, upload_project) == []

    answer = assemble(server, upload_project, {"checksum": "xyz", "chunks": [], "projects": []})
    assert (answer.status_code, answer.json()) == (400, {
        "error": "The checksum field is required and must be a 40-character hexadecimal string."})
    answer = assemble(server, upload_project, {"checksum": checksum, "chunks": [], "projects": ["no-such"]})
    assert (answer.status_code, answer.json()) == (400, {"error": "One or more projects are invalid"})


def test_another_projects_maintainer_cannot_read_or_overwrite_bundles(server, upload_project, sm_sessions, built,
                                                                       tmp_path):
    from .conftest import make_upload_project

    other = make_upload_project(server, sm_sessions)
    upload_project.uploader(server).run("sourcemaps", "upload", str(built))
    # The other project's Maintainer does not see this project, so neither its bundles nor a way to upload.
    listed = httpx.get(server.url + upload_project.api0("files/artifact-bundles/"), headers=bearer(other.maintainer),
                       timeout=30)
    assert listed.status_code == 404
    refused = upload_project.uploader(server, token=other.maintainer).run("sourcemaps", "upload", str(built),
                                                                          check=False)
    assert refused.returncode != 0
    deleted = httpx.delete(server.url + upload_project.api0("files/artifact-bundles/"),
                           params={"bundleId": bundles_of(server, upload_project)[0]["bundleId"]},
                           headers=bearer(other.maintainer), timeout=30)
    assert deleted.status_code == 404
    assert len(bundles_of(server, upload_project)) == 1


def test_the_legacy_release_assemble_makes_release_files_of_the_bundle(server, upload_project):
    upload_project.uploader(server).run("releases", "new", "shop@4.0.0")
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("_/_/app.js", "console.log(1)\n//# sourceMappingURL=app.js.map")
        writer.writestr("_/_/app.js.map", '{"version":3,"sources":["a.js"],"names":[],"mappings":"AAAA"}')
        writer.writestr("manifest.json", json.dumps({
            "org": upload_project.organization, "release": "shop@4.0.0",
            "files": {"_/_/app.js": {"type": "minified_source", "url": "~/app.js"},
                      "_/_/app.js.map": {"type": "source_map", "url": "~/app.js.map"}}}))
    data = archive.getvalue()
    checksum = hashlib.sha1(data).hexdigest()
    assert chunk_upload(server, upload_project, [(checksum, data)]).status_code == 200
    url = f"{server.url}/api/0/organizations/{upload_project.organization}/releases/shop@4.0.0/assemble/"
    body = {"checksum": checksum, "chunks": [checksum]}
    deadline = time.monotonic() + 30
    while (state := httpx.post(url, json=body, headers=bearer(upload_project.maintainer), timeout=30).json()
           )["state"] not in ("ok", "error") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert state["state"] == "ok", state
    files = httpx.get(server.url + upload_project.api0("releases/shop@4.0.0/files/"),
                      headers=bearer(upload_project.maintainer), timeout=30).json()
    assert sorted(file["name"] for file in files) == ["~/app.js", "~/app.js.map"]


def test_an_event_whose_map_is_malformed_stays_minified_and_says_so(server, upload_project):
    from tests.server.error_tracking.through_api import ErrorsApi

    debug_id = "3f9a1c52-8d1e-4b7a-9c0d-2e5f6a7b8c9d"
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("_/_/app.js", "function a(){throw new Error('x')}a();")
        writer.writestr("_/_/app.js.map", "{not a source map")
        writer.writestr("manifest.json", json.dumps({"files": {
            "_/_/app.js": {"type": "minified_source", "url": "~/app.js", "headers": {"debug-id": debug_id}},
            "_/_/app.js.map": {"type": "source_map", "url": "~/app.js.map", "headers": {"debug-id": debug_id}}}}))
    data = archive.getvalue()
    checksum = hashlib.sha1(data).hexdigest()
    assert chunk_upload(server, upload_project, [(checksum, data)]).status_code == 200
    assert assembled_state(server, upload_project, {"checksum": checksum, "chunks": [checksum],
                                                     "projects": [upload_project.slug]})["state"] == "ok"
    tracked = upload_project.tracked
    event = {"platform": "javascript", "exception": {"values": [{"type": "Error", "value": "x", "stacktrace": {
        "frames": [{"abs_path": "https://shop.example.com/app.js", "filename": "/app.js", "function": "a",
                    "lineno": 1, "colno": 20, "in_app": True}]}}]},
             "debug_meta": {"images": [{"type": "sourcemap", "code_file": "https://shop.example.com/app.js",
                                        "debug_id": debug_id}]}}
    sent = httpx.post(f"{server.url}{tracked.collector_path('store')}", json=event, timeout=30,
                      params={"sentry_key": tracked.public_key, "sentry_version": "7"})
    assert sent.status_code == 200, sent.text
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, 30)
    [frame] = api.stack_trace(error)["exceptions"][-1]["frames"]
    assert (frame["function"], frame["unmapped_reason"]) == ("a", "malformed source map")


def test_the_same_bundle_assembled_for_another_project_lands_there_too(server, sm_sessions):
    from .conftest import make_upload_project

    shop, other = make_upload_project(server, sm_sessions), make_upload_project(server, sm_sessions)
    assert shop.organization == other.organization
    archive = io.BytesIO()
    with zipfile.ZipFile(archive, "w") as writer:
        writer.writestr("_/_/app.js", "function a(){}")
        writer.writestr("manifest.json", json.dumps({"files": {"_/_/app.js": {
            "type": "minified_source", "url": "~/app.js",
            "headers": {"debug-id": "7d3e6b1a-2c4f-4e8a-9b0c-1d2e3f4a5b6c"}}}}))
    data = archive.getvalue()
    checksum = hashlib.sha1(data).hexdigest()
    assert chunk_upload(server, shop, [(checksum, data)], token=server.root_token).status_code == 200
    for project in (shop, other):
        state = assembled_state(server, project, {"checksum": checksum, "chunks": [checksum],
                                                  "projects": [project.slug]}, token=server.root_token)
        assert state["state"] == "ok", state
        # Before the fix the second project's assemble read the first one's state and stored nothing.
        # (the bundle id is the checksum's, as the manifest names none)
        assert [bundle["bundleId"] for bundle in bundles_of(server, project, token=server.root_token)] == [
            str(uuid.UUID(checksum[:32]))]
