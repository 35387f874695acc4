"""Unexpected log records at WARNING or above fail the test that caused them (tests/conftest.py).

A warning nobody asked for is a defect caught early or noise that hides the next one. Watched: the records of
the test process (the console's, and those of server modules and in-process receivers the server tests use),
and the whole logs of the test servers (tests/support.launch_server) the test started itself, up to its end.
A session or module server is shared: what it logs in the background cannot be told from one test to the
next, so its log is the tests' that read it (`server.log_text()`), not the guard's. Qt's messages
are pytest-qt's (`qt_log_level_fail = WARNING`: its qInstallMessageHandler is in place around every test). A
test that provokes a record on purpose declares it with `@pytest.mark.expected_log(pattern, ...)`; each
pattern is a regular expression searched in "LEVEL logger message".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable
from pathlib import Path

import pytest

MARKER = "expected_log"


class Collector(logging.Handler):
    """Keeps this process's records at WARNING or above while a test runs."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{record.levelname} {record.name} {record.getMessage()}")


def expected_patterns(item: pytest.Item) -> list[re.Pattern[str]]:
    return [re.compile(pattern) for marker in item.iter_markers(MARKER) for pattern in marker.args]


def unexpected(lines: Iterable[str], patterns: list[re.Pattern[str]]) -> list[str]:
    return [line for line in lines if not any(pattern.search(line) for pattern in patterns)]


# A server log line (server_log.py's format): "date time LEVEL logger message"; traceback lines follow it.
SERVER_LINE = re.compile(r"^\S+ \S+ (WARNING|ERROR|CRITICAL) (\S+) (.*)$")


def log_sizes(paths: Iterable[Path]) -> dict[Path, int]:
    """Where each server log stands now."""
    return {path: path.stat().st_size if path.exists() else 0 for path in paths}


def server_records(paths: Iterable[Path], since: dict[Path, int]) -> list[str]:
    """The WARNING-or-above records the server logs gained after `since` (a log not in it: all of it), as
    "LEVEL logger message"."""
    found = []
    for path in paths:
        if not path.exists():
            continue
        with path.open("rb") as log:
            log.seek(since.get(path, 0))
            text = log.read().decode(errors="replace")
        for line in text.splitlines():
            match = SERVER_LINE.match(line)
            if match:
                found.append(" ".join(match.groups()))
    return found
