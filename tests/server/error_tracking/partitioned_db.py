"""A fresh PostgreSQL database at the current revisions, filled through the digest's own store function.

For the partition tests: they need OUTPOST_TEST_PG_ADMIN_URL (CI sets it) and skip without it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import secrets
import time
import uuid
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest
import sqlalchemy
from sqlalchemy.orm import Session, sessionmaker

from outpost_server.accounts.models import Project
from outpost_server.accounts.namespaces import create_project
from outpost_server.accounts.users import ensure_root
from outpost_server.db import make_engine, make_sessionmaker, session_scope, utcnow
from outpost_server.error_tracking.digest.batch_store import Accepted, store_batch
from outpost_server.error_tracking.digest.decode import IngestRequest
from outpost_server.error_tracking.digest.normalize import normalize_event
from outpost_server.error_tracking.ingest.dsn import AuthInfo
from outpost_server.error_tracking.retention import pruner
from outpost_server.migrations import upgrade_database
from tests.support import database_url_for

RELEASES = ("shop@1.0.0", "shop@1.1.0", "shop@2.0.0")
ENVIRONMENTS = ("production", "staging")


def postgres_engine(tmp_path: Path) -> sqlalchemy.Engine:
    url = database_url_for(tmp_path)
    if url is None:
        pytest.skip("needs PostgreSQL: set OUTPOST_TEST_PG_ADMIN_URL")
    engine = make_engine(url)
    upgrade_database(engine)
    return engine


@contextlib.contextmanager
def pruner_held(engine: sqlalchemy.Engine, owner: str = "test") -> Iterator[None]:
    """Holds the pruning lease (once no pass is midway), so no server's pass runs until the block ends."""
    factory = make_sessionmaker(engine)
    deadline = time.monotonic() + 30
    while True:
        with session_scope(factory) as session:
            if pruner.claim(session, owner=owner, interval_seconds=0, now=utcnow(), force=True):
                break
        assert time.monotonic() < deadline, "the servers never left the pruning lease free"
        time.sleep(0.1)
    try:
        yield
    finally:
        with session_scope(factory) as session:
            pruner.release(session, owner=owner, finished=False)


def engine_for(dialect: str, directory: Path) -> sqlalchemy.Engine:
    """A fresh database at the current revisions: an SQLite file in `directory`, or PostgreSQL (skips without)."""
    if dialect == "postgresql":
        return postgres_engine(directory)
    engine = make_engine(f"sqlite:///{directory}/outpost.db")
    upgrade_database(engine)
    return engine


def projects(factory: sessionmaker[Session], count: int) -> list[int]:
    with session_scope(factory) as session:
        root = ensure_root(session, token="glpat-" + secrets.token_hex(8), secret_key=secrets.token_hex(16))
        made = [create_project(session, name=f"shop {n}", path=f"shop-{n}-{uuid.uuid4().hex[:6]}", creator=root)
                for n in range(count)]
        session.flush()
        return [project.id for project in made]


def event(*, group: int, number: int, moment: dt.datetime, event_id: str | None = None) -> dict:
    return {
        "event_id": event_id or uuid.uuid4().hex,
        "timestamp": moment.timestamp(),
        "platform": "python",
        "level": "error" if number % 7 else "warning",
        "environment": ENVIRONMENTS[number % 2],
        "release": RELEASES[number % 3],
        "user": {"id": f"user-{number % 50}"},
        "tags": {"shard": str(number % 5), "browser": f"Firefox {100 + number % 4}", "region": f"eu-{number % 3}",
                 "server_name": f"web-{number % 12}", "handled": "no", "mechanism": "django",
                 "tenant": f"t{number % 9}", "url": f"https://shop.example.com/cart/{number % 40}"},
        "exception": {"values": [{
            "type": f"ValueError{group}", "value": f"failure {group}",
            "stacktrace": {"frames": [{"module": "shop.cart", "function": f"checkout_{group}",
                                       "filename": "shop/cart.py", "lineno": 42, "in_app": True}]},
        }]},
    }


def accepted(project_id: int, raw: dict, received_at: dt.datetime) -> Accepted:
    normalized = normalize_event(raw, received_at=received_at, raw_payload=json.dumps(raw).encode())
    return Accepted(project_id, IngestRequest(AuthInfo("test", None), normalized.event_id, [normalized]), received_at)


def store(engine: sqlalchemy.Engine, batch: Iterable[Accepted], *, chunk: int = 500) -> None:
    items = list(batch)
    for start in range(0, len(items), chunk):
        with engine.begin() as connection:
            store_batch(connection, items[start:start + chunk])


def fill(engine: sqlalchemy.Engine, project_ids: list[int], *, days: int, per_day: int, groups: int,
         now: dt.datetime) -> None:
    """`per_day` events a day for `days` days up to `now`, per project, spread over `groups` errors."""
    batch = []
    for project_id in project_ids:
        for day in range(days):
            for number in range(per_day):
                moment = now - dt.timedelta(days=day, seconds=number * 80_000 // per_day)
                batch.append(accepted(project_id, event(group=number % groups, number=number, moment=moment), moment))
    store(engine, batch)


def project_of(factory: sessionmaker[Session], project_id: int) -> Project:
    with factory() as session:
        project = session.get_one(Project, project_id)
        session.expunge(project)
        return project


def factory_for(engine: sqlalchemy.Engine) -> sessionmaker[Session]:
    return make_sessionmaker(engine)
