from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from outpost_server.accounts import access
from tests.server.error_tracking.conftest import TrackedProject, make_tracked_project, server_sessionmaker
from tests.server.error_tracking.test_browser_sdk import CHROMIUM_FLAGS
from tests.support import ApiHelper, RunningServer

from .sourcemap_app import Uploader, sentry_cli_3


@dataclass
class UploadProject:
    """A project with error tracking on, and tokens of a Maintainer and a Developer of it."""

    tracked: TrackedProject
    organization: str
    slug: str
    maintainer: str
    developer: str

    def uploader(self, server: RunningServer, *, token: str | None = None, executable=None) -> Uploader:
        return Uploader(server, token or self.maintainer, self.organization, self.slug,
                        executable or sentry_cli_3())

    def api0(self, suffix: str) -> str:
        return f"/api/0/projects/{self.organization}/{self.slug}/{suffix}"


@pytest.fixture(scope="session")
def sm_sessions(server):
    return server_sessionmaker(server)


def make_upload_project(server: RunningServer, sessions) -> UploadProject:
    tracked = make_tracked_project(server, sessions)
    helper = ApiHelper(server)
    project = helper.root.get(f"/projects/{tracked.id}").json()
    tokens = {}
    for role, level in (("maintainer", access.MAINTAINER), ("developer", access.DEVELOPER)):
        user, token = helper.user()
        helper.member("projects", tracked.id, user["id"], level)
        tokens[role] = token
    organization, _, slug = project["path_with_namespace"].partition("/")
    return UploadProject(tracked, organization, slug.replace("/", "~"), tokens["maintainer"], tokens["developer"])


@pytest.fixture
def upload_project(server, sm_sessions) -> UploadProject:
    return make_upload_project(server, sm_sessions)


PAGE = """<!doctype html><html><head><meta charset="utf-8"><title>shop</title>
<script>window.OUTPOST_APP = JSON.parse(decodeURIComponent(location.hash.slice(1)));</script>
<script src="static/app.min.js"></script></head><body>shop</body></html>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's signature
        pass


@pytest.fixture
def site(tmp_path) -> Iterator[tuple[str, Path]]:
    """A loopback site serving index.html and static/ (the build's browser directory, copied in by the test)."""
    root = tmp_path / "site"
    (root / "static").mkdir(parents=True)
    (root / "index.html").write_text(PAGE)
    handler = functools.partial(_QuietHandler, directory=str(root))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}", root / "static"
    finally:
        httpd.shutdown()
        thread.join()
        httpd.server_close()


@pytest.fixture
def browser(tmp_path) -> Iterator:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from tests.server.error_tracking.toolchains import require_tool

    options = webdriver.ChromeOptions()
    options.binary_location = require_tool("chromium", "chromium")
    for flag in [*CHROMIUM_FLAGS, f"--user-data-dir={tmp_path / 'profile'}"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options,
                              service=Service(executable_path=require_tool("chromedriver", "chromium-driver")))
    try:
        yield driver
    finally:
        driver.quit()
