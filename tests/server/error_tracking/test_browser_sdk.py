"""A browser app reporting to the server: real Chromium (headless, driven by Selenium) runs a page served
on 127.0.0.1 that loads the newest @sentry/browser, bundled from npm, and throws in a named function.

The page's origin (its own port) differs from the server's, so every report is a cross-origin request:
the error arrives only because the collector answers CORS, and a project that allows other origins
stores nothing and counts the refusal. `deno bundle` fetches its esbuild from npm on first use (cached
under .sdks/deno).
"""

from __future__ import annotations

import functools
import http.server
import os
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from .through_api import ErrorsApi
from .toolchains import HERE, NODE_LATEST, SDK_CACHE, node_latest_modules, require_tool

BROWSER_APP = HERE / "browser_app"
WAIT_SECONDS = 30
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    """The page and the bundled SDK, served on a loopback port of their own (so: another origin)."""
    modules = node_latest_modules()
    root = Path(tempfile.mkdtemp(prefix="browser-app-"))
    shutil.copy(BROWSER_APP / "index.html", root / "index.html")
    entry = NODE_LATEST / "sentry_entry.js"
    shutil.copy(BROWSER_APP / "sentry_entry.js", entry)
    try:
        # deno resolves @sentry/browser from node_latest's node_modules and bundles it with esbuild.
        subprocess.run([str(modules / ".bin" / "deno"), "bundle", "--platform", "browser", "--minify",
                        "-o", str(root / "sentry.min.js"), entry.name], cwd=NODE_LATEST, check=True, timeout=600,
                       env={**os.environ, "DENO_DIR": str(SDK_CACHE / "deno"), "NO_COLOR": "1"})
    finally:
        entry.unlink()
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}"
    finally:
        httpd.shutdown()
        thread.join()
        httpd.server_close()
        shutil.rmtree(root, ignore_errors=True)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture
def browser(tmp_path) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    chromium = require_tool("chromium", "chromium")
    driver_path = require_tool("chromedriver", "chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def open_page(browser, site: str, tracked, amount: int) -> None:
    browser.get(f"{site}/index.html?amount={amount}#" + urlencode({"dsn": tracked.dsn}))
    assert browser.find_element("id", "state").text == "ready"


def test_browser_error_arrives_with_its_browser_context(browser, site, tracked, server):
    open_page(browser, site, tracked, 42)
    api = ErrorsApi.of(server, tracked.id)
    assert len(api.wait_for(1, WAIT_SECONDS)) == 1
    error = api.titled("TypeError: card declined for 42")
    assert error["culprit"] == f"chargeCard({site}/index.html?amount=42)"
    details = api.details(error)
    assert (details["platform"], details["level"], details["last_release_version"]) == (
        "javascript", "error", "shop-web@1.0.0")
    assert details["tags"]["browser"].startswith("Chrome ")
    assert details["tags"]["url"].startswith(f"{site}/index.html?amount=42")
    assert api.functions(error)[-1] == "chargeCard"


def test_disallowed_origin_stores_nothing_and_is_counted(browser, site, tracked, server, api):
    settings = f"/projects/{tracked.id}/error_tracking/settings"
    assert api.root.patch(settings, json={"active": True, "allowed_origins": ["https://shop.example.com"]}
                          ).status_code == 200
    open_page(browser, site, tracked, 7)
    deadline = time.monotonic() + WAIT_SECONDS
    while api.root.get(settings).json()["rejected_origins"]["count"] == 0 and time.monotonic() < deadline:
        time.sleep(0.2)
    rejected = api.root.get(settings).json()["rejected_origins"]
    assert rejected["count"] >= 1 and rejected["last_origin"] == site
    assert ErrorsApi.of(server, tracked.id).errors() == []

    # Allowing the page's origin lets the same page report.
    assert api.root.patch(settings, json={"active": True, "allowed_origins": [site]}).status_code == 200
    open_page(browser, site, tracked, 8)
    assert [error["title"] for error in ErrorsApi.of(server, tracked.id).wait_for(1, WAIT_SECONDS)] == [
        "TypeError: card declined for 8"]
