"""End-to-end tests: several real server processes, kill -9, and what ends up in the logs.

Tests marked `postgres` need a PostgreSQL server (OUTPOST_TEST_PG_ADMIN_URL, as CI sets it), tests
marked `nginx` Debian's nginx (CI installs it). Without them they are deselected, and pytest's
summary line says how many, rather than skipped.
"""

import os

from tests.e2e.nginx import nginx_binary

PG_ADMIN_ENV = "OUTPOST_TEST_PG_ADMIN_URL"


def pytest_configure(config):
    config.addinivalue_line("markers", f"postgres: needs PostgreSQL ({PG_ADMIN_ENV}); deselected without it")
    config.addinivalue_line("markers", "nginx: needs nginx on PATH or in /usr/sbin; deselected without it")


def pytest_collection_modifyitems(config, items):
    missing = set()
    if not os.environ.get(PG_ADMIN_ENV):
        missing.add("postgres")
    if not nginx_binary():
        missing.add("nginx")
    unrunnable = [item for item in items if any(item.get_closest_marker(name) for name in missing)]
    if unrunnable:
        config.hook.pytest_deselected(items=unrunnable)
        items[:] = [item for item in items if item not in unrunnable]
