"""@sentry/esbuild-plugin (from npm, uploading through @sentry/cli) injects debug ids and uploads the maps
while esbuild builds; the built app's Node errors then map."""

from __future__ import annotations

import httpx

from tests.server.error_tracking.through_api import ErrorsApi

from .sourcemap_app import build, run_node

WAIT_SECONDS = 30


def test_the_esbuild_plugin_uploads_during_the_build_and_events_map(server, upload_project):
    built = build("plugin", plugin={
        "url": server.url, "org": upload_project.organization, "project": upload_project.slug,
        "authToken": upload_project.maintainer, "release": {"name": "shop@6.0.0", "inject": False}})
    bundles = httpx.get(server.url + upload_project.api0("files/artifact-bundles/"), timeout=30,
                        headers={"Authorization": f"Bearer {upload_project.maintainer}"}).json()
    assert bundles and {association["release"] for bundle in bundles for association in bundle["associations"]} == {
        "shop@6.0.0"}
    assert "_sentryDebugIds" in (built / "node" / "app.min.js").read_text()
    released = httpx.get(f"{server.url}/api/0/organizations/{upload_project.organization}/releases/shop@6.0.0/",
                         headers={"Authorization": f"Bearer {upload_project.maintainer}"}, timeout=30).json()
    assert released["dateReleased"] is not None  # the plugin finalized the release

    tracked = upload_project.tracked
    run_node(built, dsn=tracked.dsn, release="shop@6.0.0")
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    assert error["culprit"] == "applyDiscount(src/pricing.js)"
    crash = [frame for frame in api.stack_trace(error)["exceptions"][-1]["frames"] if frame["in_app"]][-1]
    assert (crash["function"], crash["filename"], crash["lineNo"]) == ("applyDiscount", "src/pricing.js", 4)
