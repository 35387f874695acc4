"""Real headless Chromium (Selenium) runs the esbuild-minified app with @sentry/browser from a page on a
loopback port of its own: its error maps through the debug id sentry-cli injected, and the same bug from
Node groups with it; the legacy `~/` upload maps the page's script by release and URL."""

from __future__ import annotations

import json
import shutil
import time

from tests.server.error_tracking.through_api import ErrorsApi

from .sourcemap_app import build, inject, run_node, sentry_cli_2

WAIT_SECONDS = 30
TITLE = "Error: discount code SPRING expired"


def open_shop(browser, url: str, *, dsn: str, release: str) -> None:
    browser.get(f"{url}/index.html#" + json.dumps({"dsn": dsn, "release": release}))
    deadline = time.monotonic() + WAIT_SECONDS
    while not browser.execute_script("return window.OUTPOST_SENT === true"):
        assert time.monotonic() < deadline, browser.get_log("browser") if hasattr(browser, "get_log") else ""
        time.sleep(0.1)


def in_app(api: ErrorsApi, error: dict) -> list[tuple]:
    frames = api.stack_trace(error)["exceptions"][-1]["frames"]
    return [(frame["function"], frame["filename"], frame["lineNo"]) for frame in frames if frame["in_app"]]


EXPECTED = [("placeOrder", "src/app.js", 18), ("checkout", "src/checkout.js", 4),
            ("computeTotal", "src/cart.js", 5), ("applyDiscount", "src/pricing.js", 4)]


def test_browser_and_node_errors_map_by_debug_id_and_group_as_one(server, upload_project, browser, site, tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(inject(build("browser-events")), copy)
    upload_project.uploader(server).run("sourcemaps", "upload", str(copy))
    url, static = site
    shutil.copytree(copy / "browser", static, dirs_exist_ok=True)
    tracked = upload_project.tracked
    open_shop(browser, url, dsn=tracked.dsn, release="shop@1.0.0")
    api = ErrorsApi.of(server, tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    assert (error["title"], error["culprit"]) == (TITLE, "applyDiscount(src/pricing.js)")
    assert in_app(api, error) == EXPECTED
    crash = api.stack_trace(error)["exceptions"][-1]["frames"][-1]
    assert [4, "    throw new Error(`discount code ${code.name} expired`);"] in crash["context"]

    run_node(copy, dsn=tracked.dsn, release="shop@1.0.0")
    deadline = time.monotonic() + WAIT_SECONDS
    while api.titled(TITLE)["count"] < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(api.errors()) == 1 and api.titled(TITLE)["count"] == 2


def test_the_legacy_url_prefix_maps_the_pages_script_by_release(server, upload_project, browser, site, tmp_path):
    copy = tmp_path / "app"
    shutil.copytree(build("browser-legacy"), copy)
    cli = upload_project.uploader(server, executable=sentry_cli_2())
    cli.run("releases", "new", "shop@5.0.0")
    cli.run("releases", "files", "shop@5.0.0", "upload-sourcemaps", str(copy / "browser"), "--url-prefix", "~/static")
    url, static = site
    shutil.copytree(copy / "browser", static, dirs_exist_ok=True)
    open_shop(browser, url, dsn=upload_project.tracked.dsn, release="shop@5.0.0")
    api = ErrorsApi.of(server, upload_project.tracked.id)
    [error] = api.wait_for(1, WAIT_SECONDS)
    assert in_app(api, error) == EXPECTED
