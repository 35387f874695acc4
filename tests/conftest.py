import os

# Set before pytest-qt creates the QApplication, so GUI tests run headless.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import logging  # noqa: E402

import pytest  # noqa: E402
from hypothesis import HealthCheck, settings  # noqa: E402

from tests import log_guard  # noqa: E402
from tests.support import SERVER_LOGS, ApiHelper, launch_server  # noqa: E402

# Hypothesis's clock checks (a 200 ms deadline per example, "input generation is slow") fail a property test
# when the suite's parallel workers keep the machine busy, not when the code is wrong. No example database:
# no test replays what another worker or an earlier run saved.
settings.register_profile("suite", deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
settings.load_profile("suite")

# A test that takes longer than this on CI's machine declares it (`budget`) and is listed, with why, in
# docs/development.md.
LONG_TEST_SECONDS = 60


def pytest_configure(config):
    config.addinivalue_line("markers", "budget(seconds): the test needs more than a minute on CI's machine "
                            "(docs/development.md says why); files holding one start first in a parallel run")
    config.addinivalue_line("markers", f"{log_guard.MARKER}(*patterns): log records at WARNING or above that the "
                            "test provokes on purpose, as regular expressions searched in 'LEVEL logger message'")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    """Files holding a declared long test go first, longest first, so that no parallel worker picks one up
    near the end of the run; every other file keeps its (random) place."""
    budgets: dict[object, float] = {}
    for item in items:
        marker = item.get_closest_marker("budget")
        if marker is not None:
            budgets[item.path] = max(budgets.get(item.path, 0), marker.args[0])
    items.sort(key=lambda item: -budgets.get(item.path, 0))


def pytest_terminal_summary(terminalreporter, config):
    seed = getattr(config.option, "randomly_seed", None)
    if seed is not None:
        terminalreporter.write_line(f"Tests ran in random order: -p randomly --randomly-seed={seed} repeats it")
    undeclared = [report for report in terminalreporter.getreports("passed") + terminalreporter.getreports("failed")
                  if report.when == "call" and report.duration > LONG_TEST_SECONDS
                  and "budget" not in report.keywords]
    for report in undeclared:
        terminalreporter.write_line(f"{report.nodeid} took {report.duration:.0f} s without a declared budget")


@pytest.fixture(autouse=True)
def no_unexpected_warnings(request):
    """Fails the test when this process, or a test server the test started, logged a record at WARNING or above
    that the test does not declare (tests/log_guard.py). Set up before the test's other function fixtures and
    torn down after them, so what their teardown logs counts too."""
    collector = log_guard.Collector()
    root = logging.getLogger()
    since = log_guard.log_sizes(SERVER_LOGS)
    root.addHandler(collector)
    try:
        yield
    finally:
        root.removeHandler(collector)
    # The servers this test started: a session or module server is shared, and what it logs in the
    # background (another test's leftovers) would be blamed on whichever test runs then.
    started = [path for path in SERVER_LOGS if path not in since]
    lines = collector.lines + log_guard.server_records(started, {})
    unexpected = log_guard.unexpected(lines, log_guard.expected_patterns(request.node))
    if unexpected:
        pytest.fail("unexpected log records at WARNING or above (declare intended ones with "
                    f"@pytest.mark.{log_guard.MARKER}):\n" + "\n".join(unexpected), pytrace=False)


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
