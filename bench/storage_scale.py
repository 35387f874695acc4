"""Storage at scale: reads, retention and insert rate with millions of events, against a small baseline.

    .venv/bin/python -m bench.storage_scale [--events 10000000] [--baseline 200000] [--postgres ADMIN_URL]
                                            [--errors 100000] [--jobs N] [--repeat 40] [--keep]

Two databases (SQLite files by default; with --postgres, databases `bench_storage_<events>` created
through ADMIN_URL) are filled through the digest stage's own store_batch (bench.storage_fill: 50
projects, up to --errors errors, received times over 90 days), the baseline first. Then, in ROUNDS
rounds alternating between the two databases (each figure is the median of its rounds):

- server time (p95 of --repeat calls, each in its own committed session, HTTP left out, after
  WARM_CALLS calls that prepare the statements as a running server's connections have) of the reads
  the routes make: the error list's first page by each sort, an error's details and stack trace, a
  page of its events by cursor, its tag facets, a tag-filtered page of its events, and a search
  (release:, environment: and words), all on the project and error with the most events; the first
  call of each is printed too;
- the insert rate: 20,000 new events stored in batches of 500 (the digester's largest batch) by one
  writer, as the digester stores them, received on the day after the fill's end; that day is emptied
  before and after the rounds, so a kept database stays as it was filled.

Then, once on each:

- retention: the time and WAL bytes (PostgreSQL) to remove the oldest day's events row by row through
  the pruner (its pauses between batches left out), and by dropping that day's partition when the
  events table is partitioned ("n/a" otherwise).

A table gives both sizes, the ratio and the goals: every read at most 50 ms p95 at the large size and
within 2x of the baseline, a day's retention under 1 s, an insert rate no more than 20 % lower. The
databases are dropped at the end unless --keep, which also reuses databases a previous --keep run
filled (retention removes one more day from them on each run). It fails when a goal is missed.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import create_engine, func, select, text
from sqlalchemy.engine import Engine

from bench import storage_fill, storage_retention
from bench.storage_fill import Plan
from outpost_server.accounts.models import Project
from outpost_server.db import make_engine, make_sessionmaker, read_only_scope, session_scope
from outpost_server.error_tracking.digest.batch_store import store_batch
from outpost_server.error_tracking.models import ErrorEvent, ErrorStoredDay, TrackedError
from outpost_server.error_tracking.read import events, reading
from outpost_server.migrations import upgrade_database

READ_AIM_MS = 50.0
READ_RATIO = 2.0
RETENTION_AIM_S = 1.0
INSERT_DROP = 0.20
INSERT_EVENTS = 20_000
DIGEST_BATCH = 500
SEARCH = "release:shop@1.4.0 environment:production could not be priced"
# Calls before the timed ones, as a running server's pooled connections have made them: the driver
# prepares a statement on its 5th run, and PostgreSQL weighs a generic plan after 5 custom ones. Before
# that, planning a read over every day partition costs more than running it; the first call is printed
# apart.
WARM_CALLS = 12
ROUNDS = 3


@dataclass
class Figures:
    """What one database measured."""

    events: int
    fill_rate: float | None = None
    size_bytes: int = 0
    reads: dict[str, float] = field(default_factory=dict)  # name -> p95 ms
    first_calls: dict[str, float] = field(default_factory=dict)  # name -> ms of its first call
    insert_rate: float = 0.0
    retention: storage_retention.DayRemoval | None = None


@dataclass
class Target:
    url: str
    drop: Callable[[], None]


@contextlib.contextmanager
def database(admin_url: str | None, events: int, keep: bool, scratch: Path) -> Iterator[tuple[Target, bool]]:
    """The database for `events` and whether it already holds a complete fill (only with --keep)."""
    if admin_url is None:
        path = (Path(tempfile.gettempdir()) if keep else scratch) / f"outpost-bench-storage-{events}.sqlite3"
        reuse = keep and path.exists()
        if path.exists() and not reuse:
            path.unlink()

        def unlink() -> None:
            for suffix in ("", "-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)

        target = Target(f"sqlite:///{path}", unlink)
    else:
        name = f"bench_storage_{events}"
        admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
        with admin.connect() as connection:
            exists = connection.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}) is not None
            reuse = keep and exists
            if exists and not reuse:
                connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
            if not reuse:
                connection.execute(text(f'CREATE DATABASE "{name}"'))

        def drop() -> None:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            admin.dispose()

        target = Target(admin_url.rsplit("/", 1)[0] + "/" + name, drop)
    filled = reuse and _filled(target.url, events)
    try:
        yield target, filled
    finally:
        if not keep:
            target.drop()


def _filled(url: str, events: int) -> bool:
    engine = create_engine(url)
    try:
        with engine.connect() as connection:
            return connection.scalar(text("SELECT events FROM bench_storage_filled")) == events
    except Exception:  # noqa: BLE001 - no marker table: an unfinished or foreign fill
        return False
    finally:
        engine.dispose()


def _mark_filled(engine: Engine, events: int) -> None:
    with engine.begin() as connection:
        connection.execute(text("CREATE TABLE bench_storage_filled (events BIGINT)"))
        connection.execute(text("INSERT INTO bench_storage_filled VALUES (:n)"), {"n": events})


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, round(len(ordered) * 0.95) - 1)]


def measure_reads(engine: Engine, repeat: int) -> tuple[dict[str, float], dict[str, float]]:
    """Per read: the p95 of `repeat` calls after the warm-up ones, and the first call's time."""
    factory = make_sessionmaker(engine)
    with read_only_scope(factory) as session:
        error = session.scalar(select(TrackedError).order_by(TrackedError.count.desc()).limit(1))
        assert error is not None, "no errors stored"
        error_id, project_id = error.id, error.project_id
        stored = session.scalar(select(func.sum(ErrorStoredDay.events)).where(ErrorStoredDay.error_id == error_id)) or 0
        timeline = list(session.scalars(select(ErrorEvent.id).where(ErrorEvent.error_id == error_id)
                                        .order_by(ErrorEvent.occurred_at.desc(), ErrorEvent.id.desc())
                                        .limit(1).offset(stored // 2)))
    middle = timeline[0] if timeline else None

    def source(session) -> reading.ErrorSource:
        return reading.open_source(session, project=session.get(Project, project_id), secret_key="bench",
                                   external_timeout=5.0, base_url="http://bench.invalid")

    def page(session, **options) -> None:
        stored = session.get(TrackedError, error_id)
        window = events.events_window(session, error=stored, limit=100, **options)
        events.stored_tags(session, error_id=error_id, event_ids=[row.event_id for row in window.rows],
                           received=[row.received_at for row in window.rows])

    reads: dict[str, Callable] = {f"error list, sort {sort}": (lambda session, sort=sort:
                                                                reading.list_page(source(session), sort=sort))
                                  for sort in reading.SORTS}
    reads.update({
        "error details": lambda session: reading.error_details(source(session), str(error_id)),
        "stack trace": lambda session: reading.error_stack_trace(source(session), str(error_id)),
        "event page by cursor": lambda session: page(session, boundary_id=middle),
        "tag facets": lambda session: events.tag_facets(session, error=session.get(TrackedError, error_id)),
        "tag-filtered event page": lambda session: page(session, tags={"server_name": "web-3"}),
        "search": lambda session: reading.list_page(source(session), search_term=SEARCH),
    })
    results, first_calls = {}, {}
    for name, read in reads.items():
        samples = []
        for attempt in range(repeat + WARM_CALLS):
            started = time.perf_counter()
            # Committed, as the server's request sessions are: a rollback would also discard the
            # connection's prepared statements (psycopg clears them on ROLLBACK), which a server keeps.
            with session_scope(factory) as session:
                read(session)
            elapsed = (time.perf_counter() - started) * 1000
            if attempt == 0:
                first_calls[name] = elapsed
            elif attempt >= WARM_CALLS:
                samples.append(elapsed)
        results[name] = p95(samples)
    return results, first_calls


def insert_rate(engine: Engine, plan: Plan, projects: list[int], day: dt.date) -> float:
    """Events per second stored by one writer in digester-sized batches, received on `day`."""
    maker = storage_fill.EventMaker(plan.end)
    run = f"{int(time.time()):x}"
    chosen = Plan(INSERT_EVENTS, plan.errors, plan.end).error_numbers()
    batches = []
    for number, error in enumerate(chosen):
        received_at = dt.datetime.combine(day, dt.time(), dt.timezone.utc) + dt.timedelta(milliseconds=number)
        event = maker.event(error, number, received_at, prefix=run + "f")
        batches.append(storage_fill.accepted(projects[error % len(projects)], event, received_at))
    known: set[tuple[int, str]] = set()
    started = time.perf_counter()
    for start in range(0, len(batches), DIGEST_BATCH):
        with engine.begin() as connection:
            known.update(store_batch(connection, batches[start:start + DIGEST_BATCH], known_users=known).user_pairs)
    return len(batches) / (time.perf_counter() - started)


def database_size(engine: Engine) -> int:
    with engine.connect() as connection:
        if engine.dialect.name == "postgresql":
            return int(connection.scalar(text("SELECT pg_database_size(current_database())")))
        return int(connection.scalar(text("PRAGMA page_count")) * connection.scalar(text("PRAGMA page_size")))


@contextlib.contextmanager
def opened(args: argparse.Namespace, events_count: int, scratch: Path, end: dt.datetime
           ) -> Iterator[tuple[Engine, Plan, list[int], Figures]]:
    """A database of `events_count` events, filled (or reused with --keep) and analysed."""
    figures = Figures(events_count)
    plan = Plan(events_count, args.errors, end)
    with database(args.postgres, events_count, args.keep, scratch) as (target, filled):
        engine = make_engine(target.url)
        try:
            if filled:
                print(f"reusing the filled database of {events_count:,} events", flush=True)
                upgrade_database(engine)  # a database kept by an older checkout gets this one's revisions
                projects = storage_fill.project_ids(engine)
            else:
                print(f"filling {events_count:,} events…", flush=True)
                projects = storage_fill.create_projects(engine)
                storage_retention.prepare(engine, plan)
                jobs = args.jobs or (2 if engine.dialect.name == "postgresql" else 1)
                figures.fill_rate = storage_fill.fill(target.url, plan, projects, jobs=jobs)
                _mark_filled(engine, events_count)
            storage_retention.analyze(engine)
            figures.size_bytes = database_size(engine)
            yield engine, plan, projects, figures
        finally:
            engine.dispose()


def measure(args: argparse.Namespace, scratch: Path, end: dt.datetime) -> tuple[Figures, Figures]:
    """Both databases measured in ROUNDS alternating rounds (baseline, large, baseline, ...), each figure the
    median of its rounds, so a shared machine's slower minutes weigh on both sides alike; then retention."""
    with contextlib.ExitStack() as stack:
        sides = [stack.enter_context(opened(args, events, scratch, end)) for events in (args.baseline, args.events)]
        reads: list[list[dict[str, float]]] = [[], []]
        inserts: list[list[float]] = [[], []]
        # The day after the fill's end holds nothing else (see storage_retention.clear_day).
        insert_day = end.date() + dt.timedelta(days=1)
        for engine, *_ in sides:
            storage_retention.clear_day(engine, insert_day)
        for round_number in range(ROUNDS):
            for side, (engine, plan, projects, figures) in enumerate(sides):
                measured, first_calls = measure_reads(engine, args.repeat)
                reads[side].append(measured)
                if round_number == 0:
                    figures.first_calls = first_calls
                inserts[side].append(insert_rate(engine, plan, projects, insert_day))
            print(f"  round {round_number + 1} of {ROUNDS} measured", flush=True)
        for side, (engine, _, _, figures) in enumerate(sides):
            storage_retention.clear_day(engine, insert_day)
            figures.reads = {name: statistics.median(rounds[name] for rounds in reads[side])
                             for name in reads[side][0]}
            figures.insert_rate = statistics.median(inserts[side])
            figures.retention = storage_retention.remove_oldest_day(engine)
        return sides[0][3], sides[1][3]


def report(base: Figures, large: Figures, backend: str) -> bool:
    print(f"\nStorage at scale: {large.events:,} events against {base.events:,}, {backend}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    for figures in (base, large):
        fill = f"filled at {figures.fill_rate:,.0f} events/s" if figures.fill_rate else "reused (--keep)"
        print(f"  {figures.events:>12,} events: {fill}, database {figures.size_bytes / 2**30:.2f} GiB")
    head = f"{'':34} {'baseline':>12} {'large':>12} {'ratio':>7}  goal"
    print(head + "\n" + "-" * (len(head) + 30))
    ok = True
    for name, baseline in base.reads.items():
        value = large.reads[name]
        passed = value <= READ_AIM_MS and value <= READ_RATIO * max(baseline, 1.0)
        ok &= passed
        print(f"{name + ' (p95)':34} {baseline:>9.1f} ms {value:>9.1f} ms {value / baseline:>6.2f}x  "
              f"≤ {READ_AIM_MS:.0f} ms and ≤ {READ_RATIO:.0f}x: {'ok' if passed else 'MISSED'}")
    drop = 1 - large.insert_rate / base.insert_rate
    passed = drop <= INSERT_DROP
    ok &= passed
    print(f"{'insert rate (events/s)':34} {base.insert_rate:>12,.0f} {large.insert_rate:>12,.0f} "
          f"{large.insert_rate / base.insert_rate:>6.2f}x  drop ≤ {INSERT_DROP:.0%}: "
          f"{'ok' if passed else 'MISSED'} (rate {-drop:+.0%})")
    for label, pick in (("a day by deleting rows", "delete"), ("a day by dropping partitions", "drop")):
        cells = [storage_retention.cell(figures.retention, pick) for figures in (base, large)]
        # The goal holds for the way the server removes a day: by partition when there are partitions.
        seconds = storage_retention.day_seconds(large.retention)
        goal = ""
        if large.retention and seconds is not None and (pick == "drop") == (large.retention.drop_seconds is not None):
            passed = seconds < RETENTION_AIM_S
            ok &= passed
            goal = f"< {RETENTION_AIM_S:.0f} s: {'ok' if passed else 'MISSED'}"
        print(f"{label:34} {cells[0]:>12} {cells[1]:>12} {'':>7}  {goal}")
    print("  first call of each read on its connection (before its plan is prepared), ms: "
          + ", ".join(f"{name} {large.first_calls[name]:.0f}" for name in large.reads))
    for figures in (base, large):
        if figures.retention:
            print(f"  {figures.events:,} events: the oldest day held {figures.retention.rows:,} events; "
                  f"{storage_retention.wal_text(figures.retention)}")
    return ok


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=10_000_000)
    parser.add_argument("--baseline", type=int, default=200_000)
    parser.add_argument("--errors", type=int, default=100_000)
    parser.add_argument("--postgres", metavar="ADMIN_URL", help="PostgreSQL (SQLite files when left out)")
    parser.add_argument("--jobs", type=int, default=0, help="filling processes (default 2 on PostgreSQL, else 1)")
    parser.add_argument("--repeat", type=int, default=40, help="calls per read (p95 over them)")
    parser.add_argument("--keep", action="store_true", help="keep the databases, and reuse kept ones")
    args = parser.parse_args(argv)
    # Days start at midnight UTC (partition days too), so the oldest day is a whole one.
    end = dt.datetime.now(dt.timezone.utc).replace(hour=0, minute=0, second=0, microsecond=0)
    with tempfile.TemporaryDirectory(prefix="outpost-bench-storage-") as scratch:
        base, large = measure(args, Path(scratch), end)
    return 0 if report(base, large, "PostgreSQL" if args.postgres else "SQLite") else 1


if __name__ == "__main__":
    sys.exit(main())
