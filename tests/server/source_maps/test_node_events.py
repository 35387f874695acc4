"""Node (the real @sentry/node) runs the esbuild-minified app, whose maps sentry-cli 3.8 injected and uploaded:
the stored error names the original function, file, line and source line; without the bundle it stays
minified and says why."""

from __future__ import annotations

import shutil

import httpx
import pytest

from tests.server.error_tracking.through_api import ErrorsApi
from tests.server.graphql.support import DETAILED_ERROR_GID, data_of, graphql

from .sourcemap_app import build, debug_id_of, inject, run_node

TITLE = "Error: discount code SPRING expired"
WAIT_SECONDS = 30


@pytest.fixture(scope="module")
def built():
    return inject(build("node-events"))


def raised_frames(api: ErrorsApi, error: dict) -> list[dict]:
    return api.stack_trace(error)["exceptions"][-1]["frames"]


def test_a_node_error_maps_to_the_original_function_file_and_line(server, upload_project, built, tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(built, copy)
    upload_project.uploader(server).run("sourcemaps", "upload", str(copy))
    tracked = upload_project.tracked
    run_node(copy, dsn=tracked.dsn, release="shop@1.0.0")
    api = ErrorsApi.of(server, tracked.id)
    assert len(api.wait_for(1, WAIT_SECONDS)) == 1
    error = api.titled(TITLE)
    assert error["culprit"] == "applyDiscount(src/pricing.js)"
    frames = [frame for frame in raised_frames(api, error) if frame["in_app"]]
    assert [(frame["function"], frame["filename"], frame["lineNo"]) for frame in frames] == [
        ("placeOrder", "src/app.js", 18), ("checkout", "src/checkout.js", 4), ("computeTotal", "src/cart.js", 5),
        ("applyDiscount", "src/pricing.js", 4)]
    crash = frames[-1]
    assert [4, "    throw new Error(`discount code ${code.name} expired`);"] in crash["context"]
    assert crash["unmapped_reason"] is None
    raw = api.stack_trace(error)["exceptions"][-1]["raw_frames"]
    assert [frame["function"] for frame in raw if frame["filename"].endswith("app.min.js")] != [
        frame["function"] for frame in frames] and len(raw) == len(raised_frames(api, error))

    # GitLab's GraphQL stack trace and Sentry's event API give the mapped frames too.
    query = """query trace($fullPath: ID!, $id: GitlabErrorTrackingDetailedErrorID!) { project(fullPath: $fullPath) {
      sentryErrors { errorStackTrace(id: $id) { stackTraceEntries { fileName function line } } } } }"""
    variables = {"fullPath": api.project_path, "id": DETAILED_ERROR_GID.format(error["id"])}
    trace = data_of(graphql(server, query, variables))
    entries = trace["project"]["sentryErrors"]["errorStackTrace"]["stackTraceEntries"]
    assert ("src/pricing.js", "applyDiscount", "4") in [(entry["fileName"], entry["function"], entry["line"])
                                                        for entry in entries]
    latest = httpx.get(f"{server.url}/api/0/issues/{error['id']}/events/latest/", timeout=30,
                       headers={"Authorization": f"Bearer {server.root_token}"}).json()
    [exception] = [entry for entry in latest["entries"] if entry["type"] == "exception"]
    frame = exception["data"]["values"][-1]["stacktrace"]["frames"][-1]
    assert (frame["function"], frame["filename"], frame["lineNo"]) == ("applyDiscount", "src/pricing.js", 4)
    # Sentry's rawStacktrace: the frames as the SDK sent them, in the minified file (one line of it).
    sent = exception["data"]["values"][-1]["rawStacktrace"]["frames"]
    assert [(f["function"], f["lineNo"], f["colNo"]) for f in sent] == [
        (f["function"], f["lineNo"], f["colNo"]) for f in raw]
    minified_sent = [f for f in sent if f["filename"].endswith("app.min.js")]
    assert len(minified_sent) == 4 and len({f["lineNo"] for f in minified_sent}) == 1
    assert not any(f["filename"].startswith("src/") for f in sent)

    # GitLab's stack trace entries carry the mapped column (GitLab itself always sends 0).
    entries = api.stack_trace(error)["stack_trace_entries"]
    crash_entry = entries[-1]
    assert (crash_entry["function"], crash_entry["lineNo"]) == ("applyDiscount", 4)
    assert crash_entry["colNo"] == frame["colNo"] == crash["colNo"] > 1

    # The same bug from the same build again is the same error.
    run_node(copy, dsn=tracked.dsn, release="shop@1.0.0")
    assert len(api.wait_for(1, WAIT_SECONDS)) == 1 and api.titled(TITLE)["count"] == 2


def test_without_its_bundle_an_event_stays_minified_and_says_why(server, upload_project, built, tmp_path):
    # Uploaded, then deleted (as the console's Delete does): the bundle is gone for the events that follow.
    upload_project.uploader(server).run("sourcemaps", "upload", str(built))
    auth = {"Authorization": f"Bearer {upload_project.maintainer}"}
    listed = httpx.get(server.url + upload_project.api0("files/artifact-bundles/"), headers=auth, timeout=30).json()
    deleted = httpx.delete(server.url + upload_project.api0("files/artifact-bundles/"), headers=auth, timeout=30,
                           params={"bundleId": listed[0]["bundleId"]})
    assert deleted.status_code == 204
    tracked = upload_project.tracked
    run_node(built, dsn=tracked.dsn, release="shop@1.0.0")
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    debug_id = debug_id_of(built / "node" / "app.min.js")
    minified = [frame for frame in raised_frames(api, error) if frame["filename"].endswith("app.min.js")]
    assert minified and {frame["unmapped_reason"] for frame in minified} == {f"no bundle for debug id {debug_id}"}
    assert error["title"] == TITLE and error["culprit"] != "applyDiscount(src/pricing.js)"
