import os

# Set before pytest-qt creates the QApplication, so GUI tests run headless.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest  # noqa: E402

from tests.support import ApiHelper, launch_server  # noqa: E402


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """One real server process for the session, on 127.0.0.1, with demo data."""
    running = launch_server(tmp_path_factory.mktemp("server"), demo=True)
    yield running
    running.stop()


@pytest.fixture(scope="session")
def api(server):
    """REST helpers acting as the root administrator."""
    return ApiHelper(server)


@pytest.fixture
def root_client(server):
    with server.client() as client:
        yield client
