from __future__ import annotations

from dataclasses import dataclass

import pytest

from outpost_server.accounts import access
from tests.server.error_tracking.conftest import TrackedProject, make_tracked_project, server_sessionmaker
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
