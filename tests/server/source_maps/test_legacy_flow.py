"""The legacy flow: sentry-cli 2.x creates a release and uploads the (not injected) build with
`releases files … upload-sourcemaps --url-prefix '~/…'`; events map by release and path. Release files
sent one by one (what sentry-cli 2.x sends to a server without chunked uploads) map the same way."""

from __future__ import annotations

import shutil

import httpx
import pytest

from tests.server.error_tracking.through_api import ErrorsApi

from .sourcemap_app import build, run_node, sentry_cli_2

WAIT_SECONDS = 30
CRASH = ("applyDiscount", "src/pricing.js", 4)


@pytest.fixture(scope="module")
def built():
    return build("legacy")


def crash_frame(api: ErrorsApi, error: dict) -> tuple:
    frame = [frame for frame in api.stack_trace(error)["exceptions"][-1]["frames"] if frame["in_app"]][-1]
    return frame["function"], frame["filename"], frame["lineNo"]


def test_sentry_cli_2_release_files_map_by_release_and_path(server, upload_project, built, tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(built, copy)
    cli = upload_project.uploader(server, executable=sentry_cli_2())
    cli.run("releases", "new", "shop@2.0.0")
    cli.run("releases", "files", "shop@2.0.0", "upload-sourcemaps", str(copy / "node"),
            "--url-prefix", f"~{copy / 'node'}")
    listed = httpx.get(server.url + upload_project.api0("releases/"), timeout=30,
                       headers={"Authorization": f"Bearer {upload_project.maintainer}"}).json()
    assert [release["version"] for release in listed] == ["shop@2.0.0"]
    # sentry-cli 2.58 sent them as a release bundle: not release files, but an artifact bundle of the release.
    assert "app.min.js" not in cli.run("releases", "files", "shop@2.0.0", "list").stdout
    bundles = httpx.get(server.url + upload_project.api0("files/artifact-bundles/"), timeout=30,
                        headers={"Authorization": f"Bearer {upload_project.maintainer}"}).json()
    assert [bundle["associations"][0]["release"] for bundle in bundles] == ["shop@2.0.0"]

    tracked = upload_project.tracked
    run_node(copy, dsn=tracked.dsn, release="shop@2.0.0")
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    assert crash_frame(api, error) == CRASH

    # Another release has no such files: its event stays minified and says so.
    run_node(copy, dsn=tracked.dsn, release="shop@9.9.9")
    errors = api.wait_for(2, WAIT_SECONDS)
    other = [candidate for candidate in errors if candidate["id"] != error["id"]]
    assert len(other) == 1
    reasons = {frame["unmapped_reason"] for frame in api.stack_trace(other[0])["exceptions"][-1]["frames"]
               if frame["filename"].endswith("app.min.js")}
    minified = copy / "node" / "app.min.js"
    assert reasons == {f"file not in release shop@9.9.9 (looked for {minified}, ~{minified})"}


def test_node_frames_map_against_tilde_names_as_sentry_matches_them(server, upload_project, built, tmp_path):
    """Uploaded with `--url-prefix '~/'`, the files are `~/app.min.js`: a Node frame's absolute path
    `/…/node/app.min.js` is looked up as itself and as `~/…/node/app.min.js` (Sentry's candidates), so it
    stays minified and says what was tried; with rewriteFramesIntegration the frame is `app:///app.min.js`,
    looked up as `~/app.min.js`, and maps."""
    copy = tmp_path / "app"
    shutil.copytree(built, copy)
    cli = upload_project.uploader(server, executable=sentry_cli_2())
    cli.run("releases", "new", "shop@4.0.0")
    cli.run("releases", "files", "shop@4.0.0", "upload-sourcemaps", str(copy / "node"), "--url-prefix", "~/")
    tracked = upload_project.tracked
    api = ErrorsApi.of(server, tracked.id)

    run_node(copy, dsn=tracked.dsn, release="shop@4.0.0")
    [unmapped] = api.wait_for(1, WAIT_SECONDS)
    minified = copy / "node" / "app.min.js"
    reasons = {frame["unmapped_reason"] for frame in api.stack_trace(unmapped)["exceptions"][-1]["frames"]
               if frame["filename"].endswith("app.min.js")}
    assert reasons == {f"file not in release shop@4.0.0 (looked for {minified}, ~{minified})"}

    run_node(copy, dsn=tracked.dsn, release="shop@4.0.0", rewrite_frames=True)
    [mapped] = [error for error in api.wait_for(2, WAIT_SECONDS) if error["id"] != unmapped["id"]]
    assert crash_frame(api, mapped) == CRASH
    sent = api.stack_trace(mapped)["exceptions"][-1]["raw_frames"]
    assert "app:///app.min.js" in {frame["filename"] for frame in sent}


def test_release_files_uploaded_one_by_one_are_listed_by_sentry_cli_and_map(server, upload_project, built, tmp_path):
    cli = upload_project.uploader(server, executable=sentry_cli_2())
    cli.run("releases", "new", "shop@3.0.0")
    prefix = f"~{built / 'node'}"
    url = server.url + upload_project.api0("releases/shop@3.0.0/files/")
    auth = {"Authorization": f"Bearer {upload_project.maintainer}"}
    for name, header in (("app.min.js", "Sourcemap:app.min.js.map"), ("app.min.js.map", None)):
        fields = {"name": f"{prefix}/{name}"} | ({"header": header} if header else {})
        answer = httpx.post(url, headers=auth, data=fields, timeout=30,
                            files={"file": (name, (built / "node" / name).read_bytes())})
        assert answer.status_code == 201, answer.text
    again = httpx.post(url, headers=auth, data={"name": f"{prefix}/app.min.js"}, timeout=30,
                       files={"file": ("app.min.js", b"x")})
    assert (again.status_code, again.json()) == (
        409, {"detail": "A file matching this name already exists for the given release"})
    listing = cli.run("releases", "files", "shop@3.0.0", "list").stdout
    assert f"{prefix}/app.min.js.map" in listing and f"{prefix}/app.min.js" in listing

    tracked = upload_project.tracked
    run_node(built, dsn=tracked.dsn, release="shop@3.0.0")
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    assert crash_frame(api, error) == CRASH

    cli.run("releases", "files", "shop@3.0.0", "delete", "--all")
    assert httpx.get(url, headers=auth, timeout=30).json() == []
