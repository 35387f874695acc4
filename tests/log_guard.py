"""Unexpected log records at WARNING or above fail the test that caused them (tests/conftest.py).

A warning nobody asked for is a defect caught early or noise that hides the next one. The records of the
test process are watched: the console's, and those of server modules and in-process receivers the server
tests use (test servers are subprocesses; their logs are theirs). A test that provokes a record on purpose
declares it with `@pytest.mark.expected_log(pattern, ...)`; each pattern is a regular expression searched in
"LEVEL logger message".
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

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
