"""The log guard (tests/log_guard.py) collects this process's records at WARNING or above and lets only the
declared ones through."""

from __future__ import annotations

import logging
import re

from tests import log_guard


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
