"""One bug stays one error across rebuilds: three esbuild builds of the shop (tests/fixtures/sourcemap_app/
src/shop), differing in unrelated code and in whether the SDK is bundled, so the minifier names the class
and the top-level function differently in each. Each throws the same bug from `Cart.checkout`, called by
the top-level `main`, under the real @sentry/node and in headless Chromium with @sentry/browser. The frames
are named from the map's scopes and names, as Sentry names them, so the three events are one error with
original names in every frame: through debug-id bundles (sentry-cli 3) for Node and through release files
(sentry-cli 2, `--url-prefix '~/<build>/static'`) for the browser."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import httpx

from tests.server.error_tracking.through_api import ErrorsApi

from .sourcemap_app import build, run_node, sentry_cli_2
from .test_browser_events import open_shop

TITLE = "Error: cart total 110 is over the limit of 100"
WAIT_SECONDS = 30
SHOP = "src/shop/main.js"
# The same app three ways: as it is, with unrelated code injected, and with the SDK bundled or not the
# other way round (Node bundles @sentry/node; the browser loads @sentry/browser from a script of its own).
VARIANTS: dict[str, dict[str, Any]] = {
    "plain": {"entry": SHOP}, "extras": {"entry": SHOP, "extras": True}, "sdk": {"entry": SHOP}}
SDK_FLIPPED = {"node": "inside", "browser": "outside"}
EXPECTED = [("main", "src/shop/main.js", 13), ("Cart.checkout", "src/shop/cart.js", 16)]
PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>shop</title>
<script>window.OUTPOST_APP = JSON.parse(decodeURIComponent(location.hash.slice(1)));</script>
{sdk}<script src="static/app.min.js"></script></head><body>shop</body></html>"""


def builds(platform: str) -> dict[str, Path]:
    made = {}
    for name, variant in VARIANTS.items():
        if name == "sdk":
            variant = {**variant, "sdk": SDK_FLIPPED[platform]}
        made[name] = build(f"shop-{platform}-{name}", variant=variant)
    return made


def minified_names(directory: Path) -> tuple[str, str]:
    """The class's and main's minified names in the build, read from the minified code."""
    code = (directory / "app.min.js").read_text()
    klass = re.search(r"(?:var |class )([\w$]+)=?(?:class)?\{constructor\(\w+\)\{this\.limit=", code)
    main = re.search(r"function ([\w$]+)\(\)\{return new [\w$]+\(100\)", code)
    assert klass and main, "the shop's class or main not found in the minified code"
    return klass.group(1), main.group(1)


def all_event_frames(server, error_id: int) -> list[list[tuple]]:
    """Each stored event's in-app frames (function, file, line), from Sentry's event API in full."""
    events = httpx.get(f"{server.url}/api/0/issues/{error_id}/events/", params={"full": "true"}, timeout=30,
                       headers={"Authorization": f"Bearer {server.root_token}"}).json()
    found = []
    for event in events:
        [exception] = [entry for entry in event["entries"] if entry["type"] == "exception"]
        frames = exception["data"]["values"][-1]["stacktrace"]["frames"]
        found.append([(frame["function"], frame["filename"], frame["lineNo"]) for frame in frames
                      if frame["inApp"]])
    return found


def test_three_node_builds_of_one_bug_are_one_error_with_original_names(server, upload_project, tmp_path):
    made = builds("node")
    names = {minified_names(directory / "node") for directory in made.values()}
    assert len(names) > 1, f"the builds should name the class or main differently: {names}"
    tracked = upload_project.tracked
    for name, directory in made.items():
        copy = tmp_path / name
        shutil.copytree(directory, copy)
        upload_project.uploader(server).inject_and_upload(copy)
        run_node(copy, dsn=tracked.dsn, release=f"shop@{name}")
    # Each run flushed before it ended; errors() waits for the digest to store what was sent.
    errors = ErrorsApi.of(server, tracked.id).errors()
    assert len(errors) == 1, [(error["title"], error["culprit"], error["count"], all_event_frames(server, error["id"]))
                              for error in errors]
    [error] = errors
    assert (error["title"], error["count"]) == (TITLE, 3)
    assert all_event_frames(server, error["id"]) == [EXPECTED] * 3
    assert error["culprit"] == "Cart.checkout(src/shop/cart.js)"


def test_three_browser_builds_of_one_bug_are_one_error_with_original_names(server, upload_project, browser,
                                                                           site, tmp_path):
    made = builds("browser")
    names = {minified_names(directory / "browser") for directory in made.values()}
    assert len(names) > 1, f"the builds should name the class or main differently: {names}"
    url, static = site
    cli = upload_project.uploader(server, executable=sentry_cli_2())
    tracked = upload_project.tracked
    for name, directory in made.items():
        # Each build has a page of its own (a page differing only in its hash would not load again).
        page = static.parent / name
        shutil.copytree(directory / "browser", page / "static")
        sdk = '<script src="static/sdk.min.js"></script>\n' if (page / "static" / "sdk.min.js").exists() else ""
        (page / "index.html").write_text(PAGE.format(sdk=sdk))
        release = f"shop@{name}"
        cli.run("releases", "new", release)
        cli.run("releases", "files", release, "upload-sourcemaps", str(page / "static"), "--url-prefix",
                f"~/{name}/static")
        open_shop(browser, f"{url}/{name}", dsn=tracked.dsn, release=release)
    # Each run flushed before it ended; errors() waits for the digest to store what was sent.
    [error] = ErrorsApi.of(server, tracked.id).errors()
    assert (error["title"], error["count"]) == (TITLE, 3)
    assert all_event_frames(server, error["id"]) == [EXPECTED] * 3

