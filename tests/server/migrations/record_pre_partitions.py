"""Records tests/server/migrations/pre_partitions.sql: a PostgreSQL database as the server stored it
before migration 0019_error_event_partitions, as a data-only SQL dump.

The fixture was recorded once from commit 207f40f (the last revision with plain event tables):

    git worktree add --detach OLD 207f40f
    python -m tests.server.migrations.record_pre_partitions OLD/server tests/server/migrations/pre_partitions.sql \\
        --admin-url postgresql+psycopg://postgres@HOST:PORT/postgres
    git worktree remove OLD

It runs that checkout's own code in a child process: the migrations to its heads, three projects, and
three hundred events over nine days stored through its digest's store function (events, payloads,
tags and every aggregate as that version wrote them), some duplicated as SDK retries are; then
pg_dump writes the rows (not the schema, which the test builds with the same revisions).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import uuid
from pathlib import Path

import sqlalchemy

PREVIOUS_HEADS = ("0003_variables", "0014_accounts_autoincrement", "0015_export_options", "0016_error_tracking_ids",
                  "0017_alerts_autoincrement", "0018_source_maps_autoincrement")

SEEDED_BY_REVISIONS = ("alembic_version", "alert_rules_version", "error_tracking_prune_lease")

FILL = r'''
import datetime as dt, json, random, sys
from alembic import command
import outpost_server
from outpost_server.db import make_engine, make_sessionmaker, session_scope
from outpost_server.migrations import alembic_config
from outpost_server.accounts.users import ensure_root
from outpost_server.accounts.namespaces import create_project
from outpost_server.error_tracking.batch_store import Accepted, store_batch
from outpost_server.error_tracking.dsn import AuthInfo
from outpost_server.error_tracking.normalize import normalize_event
from outpost_server.error_tracking.protocol import IngestRequest

url, old_root, heads = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
assert outpost_server.__file__.startswith(old_root), outpost_server.__file__
engine = make_engine(url)
for head in heads:
    command.upgrade(alembic_config(engine), head)
factory = make_sessionmaker(engine)
with session_scope(factory) as session:
    root = ensure_root(session, token="glpat-pre-partitions-root", secret_key="pre-partitions-secret")
    ids = [create_project(session, name=f"Shop {n}", path=f"shop-{n}", creator=root).id for n in range(3)]
rng = random.Random(29)
start = dt.datetime(2026, 11, 17, 6, 0, tzinfo=dt.timezone.utc)
sent = []
for number in range(300):
    project_id = ids[number % 3]
    received = start + dt.timedelta(minutes=rng.randint(0, 9 * 24 * 60 - 1))
    group = rng.randint(0, 5)
    raw = {"event_id": f"{number:08x}" + "%024x" % rng.getrandbits(96), "timestamp": received.timestamp() - 2,
           "platform": "python", "level": rng.choice(["error", "error", "warning"]),
           "environment": rng.choice(["production", "staging"]), "release": f"shop@1.{rng.randint(0, 3)}.0",
           "user": {"id": f"user-{rng.randint(0, 40)}"},
           "tags": {"shard": str(number % 4), "browser": rng.choice(["Firefox 120", "Chrome 119", "Safari 17"])},
           "exception": {"values": [{"type": f"ValueError{group}", "value": f"failure {number}",
                                     "stacktrace": {"frames": [{"module": "shop.cart", "function": f"step_{group}",
                                                                "filename": "shop/cart.py", "lineno": 40 + group,
                                                                "in_app": True}]}}]}}
    sent.append((project_id, raw, received))
sent += [sent[n] for n in range(0, 300, 30)]  # SDK retries: the same event ids again, stored once
sent.sort(key=lambda item: item[2])
for first in range(0, len(sent), 25):
    batch = []
    for project_id, raw, received in sent[first:first + 25]:
        event = normalize_event(raw, received_at=received, raw_payload=json.dumps(raw).encode())
        batch.append(Accepted(project_id, IngestRequest(AuthInfo("record", None), event.event_id, [event]), received))
    with engine.begin() as connection:
        store_batch(connection, batch)
'''


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old_server", type=Path, help="the server/ directory of a checkout before 0019")
    parser.add_argument("output", type=Path)
    parser.add_argument("--admin-url", required=True, help="a PostgreSQL URL allowed to create databases")
    args = parser.parse_args()
    name = "outpost_pre_partitions_" + uuid.uuid4().hex[:8]
    admin = sqlalchemy.create_engine(args.admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    url = args.admin_url.rsplit("/", 1)[0] + "/" + name
    try:
        old_root = str(args.old_server.resolve())
        subprocess.run([sys.executable, "-c", FILL, url, old_root, ",".join(PREVIOUS_HEADS)], check=True,
                       env={**os.environ, "PYTHONPATH": old_root})
        plain = sqlalchemy.engine.make_url(url).set(drivername="postgresql")
        # Not the rows the revisions write themselves (the test's database gets them from the same revisions).
        seeded = [f"--exclude-table-data={table}" for table in SEEDED_BY_REVISIONS]
        dump = subprocess.run(["pg_dump", "--data-only", "--column-inserts", "--no-owner", *seeded,
                               plain.render_as_string(hide_password=False)],
                              check=True, capture_output=True, text=True).stdout
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}"')
    # psql's own commands (\restrict and the like) are not SQL; comments and blank lines are noise.
    lines = [line for line in dump.splitlines() if line and not line.startswith(("\\", "--"))]
    args.output.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
