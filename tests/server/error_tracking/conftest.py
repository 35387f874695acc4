from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.accounts.models import Project
from outpost_server.db import make_engine
from outpost_server.error_tracking.read import integrated, release_health, tracked_errors
from outpost_server.error_tracking.read.search import SearchQuery
from tests.support import ApiHelper, RunningServer


def server_sessionmaker(server: RunningServer) -> sessionmaker[Session]:
    """Sessions on the running server's own database, to read what it stored."""
    url = server.env.get("OUTPOST_DATABASE_URL") or f"sqlite:///{(server.data_dir / 'outpost.sqlite3').resolve()}"
    return sessionmaker(make_engine(url), expire_on_commit=False)


@dataclass
class TrackedProject:
    server: RunningServer
    id: int
    public_key: str
    dsn: str
    sessions: sessionmaker[Session]

    def collector_path(self, endpoint: str, slash: bool = True) -> str:
        return f"/api/v4/error_tracking/collector/api/{self.id}/{endpoint}" + ("/" if slash else "")

    def errors(self, status: str = "unresolved") -> list:
        self.server.wait_for_digest()
        with self.sessions() as session:
            return integrated.list_errors(session, project_id=self.id, status=status, query=SearchQuery(),
                                          sort="last_seen", cursor=None, limit=100).errors

    def error_titled(self, title: str):
        matches = [error for error in self.errors() if error.title == title]
        assert len(matches) == 1, [error.title for error in self.errors()]
        return matches[0]

    def latest_payload(self, error) -> dict | None:
        self.server.wait_for_digest()
        with self.sessions() as session:
            return tracked_errors.latest_event_payload(session, error=error)

    def release_health(self) -> list:
        self.server.wait_for_digest()
        with self.sessions() as session:
            project = session.get(Project, self.id)
            assert project is not None  # make_tracked_project created it
            return release_health.release_health(session, project=project)


def make_tracked_project(server: RunningServer, sessions: sessionmaker[Session]) -> TrackedProject:
    helper = ApiHelper(server)
    project = helper.project()
    setting = helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                              json={"active": True, "integrated": True})
    assert setting.status_code == 200, setting.text
    keys = helper.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()
    return TrackedProject(server, project["id"], keys[0]["public_key"], keys[0]["sentry_dsn"], sessions)


@pytest.fixture(scope="session")
def et_sessions(server) -> sessionmaker[Session]:
    return server_sessionmaker(server)


@pytest.fixture
def tracked(server, et_sessions) -> TrackedProject:
    """A fresh project with integrated error tracking enabled and its first client key."""
    return make_tracked_project(server, et_sessions)


@pytest.fixture
def collector(server) -> Iterator[httpx.Client]:
    """An HTTP client without credentials, as an SDK would be."""
    with httpx.Client(base_url=server.url, timeout=30) as client:
        yield client
