"""The log guard (tests/log_guard.py) collects this process's records at WARNING or above and lets only the
declared ones through."""

from __future__ import annotations

import logging
import re
import time

import httpx
import pytest

from tests import log_guard
from tests.support import SERVER_LOGS, start_server


def test_the_collector_keeps_warnings_and_above():
    collector = log_guard.Collector()
    logger = logging.getLogger("outpost.guard-sample")
    logger.propagate = False  # its records go to this collector alone, not to the guard of this very test
    logger.setLevel(logging.INFO)
    logger.addHandler(collector)
    try:
        logger.info("started")
        logger.warning("no SMTP server for %s", "alerts")
        logger.error("delivery failed")
    finally:
        logger.removeHandler(collector)
    assert collector.lines == ["WARNING outpost.guard-sample no SMTP server for alerts",
                               "ERROR outpost.guard-sample delivery failed"]


def test_only_declared_records_pass():
    lines = ["WARNING console.context No scope chosen: pick one", "ERROR qasync._QEventLoop Task was destroyed"]
    assert log_guard.unexpected(lines, [re.compile(r"No scope chosen")]) == [lines[1]]
    assert log_guard.unexpected(lines, []) == lines


BAN = {"OUTPOST_AUTH_BAN_MAX_FAILURES": "3", "OUTPOST_AUTH_BAN_WINDOW_SECONDS": "60", "OUTPOST_AUTH_BAN_SECONDS": "60",
       "OUTPOST_AUTH_BAN_ALLOWLIST": ""}


BANNED = r"WARNING outpost\.auth banning 127\.0\.0\.1 "


@pytest.mark.expected_log(BANNED)
def test_a_test_servers_warnings_reach_the_guard(tmp_path):
    """A real server's WARNING record is read from its log as the guard reads it; this test declares it, so
    the guard, which reads the logs of the servers a test starts, lets it through."""
    with start_server(tmp_path / "server", extra_env=BAN) as server:
        since = log_guard.log_sizes([server.log_path])
        for attempt in range(3):
            assert httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": f"glpat-wrong-{attempt}"},
                             timeout=30).status_code == 401
        deadline = time.monotonic() + 60
        while not (found := log_guard.server_records([server.log_path], since)):
            assert time.monotonic() < deadline, server.log_text()[-2000:]
            time.sleep(0.1)
    assert server.log_path in SERVER_LOGS
    assert found[0].startswith("WARNING outpost.auth banning 127.0.0.1 until ")
    assert log_guard.unexpected(found, [re.compile(BANNED)]) == []
    assert log_guard.unexpected(found, []) == found

