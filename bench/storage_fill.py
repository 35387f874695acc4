"""Filling a database for bench.storage_scale: projects, then events through the digest stage's store_batch.

Events are deterministic: event `i` of a run of N goes to an error chosen with a skew (a few errors get
most events, as in real projects), its project is the error's number modulo the project count, and its
received time moves steadily from SPAN_DAYS ago to now, so a run is written in time order, as ingestion
writes it. Payloads are small Python SDK events (about 700 bytes: an exception with three frames).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import multiprocessing
import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlalchemy import insert, select, text
from sqlalchemy.engine import Engine

from outpost_server.accounts.models import Group, Project, User
from outpost_server.db import make_engine
from outpost_server.error_tracking.digest.batch_store import Accepted, store_batch
from outpost_server.error_tracking.digest.decode import IngestRequest
from outpost_server.error_tracking.digest.normalize import NormalizedEvent, normalize_event
from outpost_server.error_tracking.ingest.dsn import AuthInfo
from outpost_server.error_tracking.models import ErrorTrackingSetting
from outpost_server.migrations import upgrade_database

PROJECTS = 50
SPAN_DAYS = 90
SKEW = 4  # error number = errors * u**SKEW: the hottest error gets about 1.8 % of all events
FILL_BATCH = 10_000
SEED = 29
RELEASES = ["shop@1.2.0", "shop@1.3.0", "shop@1.3.2", "shop@1.4.0"]
ENVIRONMENTS = ["production", "production", "production", "staging"]
MODULES = ["shop.checkout", "shop.cart", "shop.payments", "shop.search", "shop.accounts", "shop.inventory"]
EXCEPTIONS = ["ValueError", "KeyError", "TypeError", "ZeroDivisionError", "RuntimeError", "IndexError"]


@dataclass(frozen=True)
class Plan:
    """What a database holds: `events` over `errors` possible errors, ending at `end`."""

    events: int
    errors: int
    end: dt.datetime

    @property
    def start(self) -> dt.datetime:
        return self.end - dt.timedelta(days=SPAN_DAYS)

    def received_at(self, number: int) -> dt.datetime:
        return self.start + dt.timedelta(seconds=SPAN_DAYS * 86_400 * number / self.events)

    def error_numbers(self) -> Iterator[int]:
        draw = random.Random(SEED).random
        for _ in range(self.events):
            yield min(int(self.errors * draw() ** SKEW), self.errors - 1)


def project_paths(count: int = PROJECTS) -> list[str]:
    return [f"bench-storage/shop-{number:02d}" for number in range(count)]


def create_projects(engine: Engine) -> list[int]:
    """The schema, a user, a group and PROJECTS projects with integrated error tracking; their ids in order."""
    upgrade_database(engine)
    with engine.begin() as connection:
        owner = connection.scalar(insert(User).returning(User.id), {
            "username": "bench-storage", "name": "Storage bench", "email": "bench-storage@example.com",
            "state": "active", "is_admin": True, "bio": "", "can_create_group": True, "projects_limit": 1000})
        group = connection.scalar(insert(Group).returning(Group.id), {
            "kind": "group", "name": "bench-storage", "path": "bench-storage", "full_path": "bench-storage",
            "full_name": "bench-storage", "description": "", "visibility": "private"})
        ids = []
        for full_path in project_paths():
            path = full_path.rsplit("/", 1)[1]
            project_id = connection.scalar(insert(Project).returning(Project.id), {
                "name": path, "path": path, "full_path": full_path, "description": "", "visibility": "private",
                "namespace_id": group, "creator_id": owner, "default_branch": "main",
                "monitor_access_level": "enabled"})
            assert project_id is not None
            connection.execute(insert(ErrorTrackingSetting), {"project_id": project_id, "enabled": True,
                                                              "integrated": True, "rejected_origin_count": 0})
            ids.append(project_id)
    return ids


def project_ids(engine: Engine) -> list[int]:
    with engine.connect() as connection:
        return list(connection.scalars(select(Project.id).where(Project.full_path.in_(project_paths()))
                                       .order_by(Project.id)))


def _frame(module: str, function: str, line: int) -> dict:
    return {"filename": module.replace(".", "/") + ".py", "module": module, "function": function, "lineno": line,
            "in_app": True, "context_line": f"    return {function}(order)"}


def _raw_event(error: int, event_id: str) -> dict:
    module = MODULES[error % len(MODULES)]
    kind = EXCEPTIONS[error % len(EXCEPTIONS)]
    frames = [_frame(module, f"handler_{depth}", 20 + depth * 7 + error % 13) for depth in range(3)]
    return {"event_id": event_id, "platform": "python", "level": "error", "release": RELEASES[0],
            "environment": ENVIRONMENTS[0], "server_name": "web-0",
            "exception": {"values": [{"type": kind, "value": f"order {error} could not be priced",
                                      "stacktrace": {"frames": frames}}]},
            "tags": {"transaction": f"/orders/{error % 40}"}, "user": {"id": "u0"},
            "sdk": {"name": "sentry.python", "version": "1.40.0"}}


class EventMaker:
    """NormalizedEvents as the ingestion stage would hand them to store_batch, one template per error."""

    def __init__(self, received_at: dt.datetime) -> None:
        self._templates: dict[int, NormalizedEvent] = {}
        self._now = received_at

    def event(self, error: int, number: int, received_at: dt.datetime, prefix: str = "") -> NormalizedEvent:
        template = self._templates.get(error)
        if template is None:
            raw = _raw_event(error, "0" * 32)
            template = normalize_event(raw, received_at=self._now, raw_payload=json.dumps(raw).encode())
            template = dataclasses.replace(template, fingerprint=f"bench-storage-{error:08d}")
            self._templates[error] = template
        event_id = f"{prefix}{number:x}".rjust(32, "0")
        release, environment = RELEASES[number % 4], ENVIRONMENTS[(number // 4) % 4]
        user = f"id:u{number % 5000}"
        server = f"web-{number % 8}"
        payload = json.dumps({**_raw_event(error, event_id), "release": release, "environment": environment,
                              "server_name": server, "timestamp": received_at.timestamp()},
                             separators=(",", ":")).encode()
        tags = [("level", "error"), ("release", release), ("environment", environment), ("user", user),
                ("server_name", server), ("transaction", f"/orders/{error % 40}")]
        return dataclasses.replace(template, event_id=event_id, occurred_at=received_at, release=release,
                                   environment=environment, user_key=user, raw_payload=payload, tags=tags)


def accepted(project_id: int, event: NormalizedEvent, received_at: dt.datetime) -> Accepted:
    return Accepted(project_id, IngestRequest(AuthInfo("bench", None), event.event_id, [event]), received_at)


def _fill_part(url: str, plan: Plan, projects: list[int], part: int, parts: int, batch_size: int) -> int:
    """Stores the events of the projects whose position modulo `parts` is `part`; returns how many."""
    engine = make_engine(url)
    maker = EventMaker(plan.end)
    stored = 0
    batch: list[Accepted] = []

    # Like the digester, the writer remembers which (error, user) pairs exist (bounded here by a reset).
    known_users: set[tuple[int, str]] = set()

    def flush() -> None:
        with engine.begin() as connection:
            result = store_batch(connection, batch, known_users=known_users)
        if len(known_users) > 2_000_000:
            known_users.clear()
        known_users.update(result.user_pairs)
        batch.clear()

    for number, error in enumerate(plan.error_numbers()):
        position = error % len(projects)
        if position % parts != part:
            continue
        received_at = plan.received_at(number)
        batch.append(accepted(projects[position], maker.event(error, number, received_at), received_at))
        stored += 1
        if len(batch) >= batch_size:
            flush()
            if stored % (batch_size * 100) == 0:
                print(f"  part {part + 1}/{parts}: {stored:,} events stored, up to {received_at:%Y-%m-%d}",
                      flush=True)
    if batch:
        flush()
    engine.dispose()
    return stored


def fill(url: str, plan: Plan, projects: list[int], *, jobs: int, batch_size: int = FILL_BATCH,
         progress: Callable[[str], None] = print) -> float:
    """Fills the database in `jobs` processes (each its own projects); returns events per second."""
    started = time.monotonic()
    if jobs == 1:
        _fill_part(url, plan, projects, 0, 1, batch_size)
    else:
        with multiprocessing.get_context("spawn").Pool(jobs) as pool:
            pending = [pool.apply_async(_fill_part, (url, plan, projects, part, jobs, batch_size))
                       for part in range(jobs)]
            for result in pending:
                result.get()
    seconds = time.monotonic() - started
    progress(f"  filled {plan.events:,} events in {seconds:,.0f} s ({plan.events / seconds:,.0f} events/s, "
             f"{jobs} process{'es' if jobs > 1 else ''})")
    return plan.events / seconds


def stored_events(engine: Engine) -> int:
    with engine.connect() as connection:
        return int(connection.scalar(text("SELECT count(*) FROM error_tracking_error_events")) or 0)
