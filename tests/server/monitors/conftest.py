from __future__ import annotations

import pytest

from tests.server.error_tracking.conftest import TrackedProject, make_tracked_project, server_sessionmaker

from .monitors_api import MonitorsApi


@pytest.fixture(scope="session")
def monitor_sessions(server):
    return server_sessionmaker(server)


@pytest.fixture
def tracked(server, monitor_sessions) -> TrackedProject:
    """A fresh project with integrated error tracking and its first client key."""
    return make_tracked_project(server, monitor_sessions)


@pytest.fixture
def monitors(server, tracked) -> MonitorsApi:
    return MonitorsApi.of(server, tracked)
