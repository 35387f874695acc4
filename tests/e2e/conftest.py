"""End-to-end tests: several real server processes, kill -9, and what ends up in the logs.

Tests marked `postgres` need a PostgreSQL server (OUTPOST_TEST_PG_ADMIN_URL, as CI sets it).
Without it they are deselected, and pytest's summary line says how many, rather than skipped.
"""

import os

PG_ADMIN_ENV = "OUTPOST_TEST_PG_ADMIN_URL"


def pytest_configure(config):
    config.addinivalue_line("markers", f"postgres: needs PostgreSQL ({PG_ADMIN_ENV}); deselected without it")


def pytest_collection_modifyitems(config, items):
    if os.environ.get(PG_ADMIN_ENV):
        return
    needs_postgres = [item for item in items if item.get_closest_marker("postgres")]
    if needs_postgres:
        config.hook.pytest_deselected(items=needs_postgres)
        items[:] = [item for item in items if not item.get_closest_marker("postgres")]
