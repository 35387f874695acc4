"""The pruning lease on a real database file: one holder at a time, passes spaced by the interval."""

from __future__ import annotations

import datetime as dt

from outpost_server.db import make_engine, make_sessionmaker
from outpost_server.error_tracking.retention import pruner
from outpost_server.migrations import upgrade_database
from tests.support import database_url_for

NOW = dt.datetime(2026, 11, 23, 6, 0, tzinfo=dt.timezone.utc)


def _factory(tmp_path):
    url = database_url_for(tmp_path) or f"sqlite:///{tmp_path / 'outpost.sqlite3'}"
    engine = make_engine(url)
    upgrade_database(engine)
    return make_sessionmaker(engine)


def test_one_process_holds_the_lease_until_it_expires(tmp_path):
    factory = _factory(tmp_path)
    with factory() as session:
        assert pruner.claim(session, owner="a", interval_seconds=60, now=NOW)
        assert not pruner.claim(session, owner="b", interval_seconds=60, now=NOW)
        # A holder that stopped renewing (crashed) loses the lease once it expires.
        later = NOW + dt.timedelta(seconds=pruner.LEASE_SECONDS + 1)
        assert pruner.claim(session, owner="b", interval_seconds=60, now=later)


def test_a_finished_pass_makes_the_next_one_wait_for_the_interval(tmp_path):
    factory = _factory(tmp_path)
    with factory() as session:
        assert pruner.claim(session, owner="a", interval_seconds=60, now=NOW)
        pruner.release(session, owner="a", finished=True)
        finished_at = session.get(pruner.PruneLease, pruner.LEASE_ID).last_finished_at
        assert not pruner.claim(session, owner="b", interval_seconds=60, now=finished_at + dt.timedelta(seconds=30))
        assert pruner.claim(session, owner="b", interval_seconds=60, now=finished_at + dt.timedelta(seconds=61))


def test_a_forced_pass_ignores_the_interval_but_not_the_holder(tmp_path):
    factory = _factory(tmp_path)
    with factory() as session:
        assert pruner.claim(session, owner="a", interval_seconds=60, now=NOW)
        assert not pruner.claim(session, owner="cli", interval_seconds=0, now=NOW, force=True)
        pruner.release(session, owner="a", finished=True)
        assert pruner.claim(session, owner="cli", interval_seconds=0, now=NOW, force=True)
