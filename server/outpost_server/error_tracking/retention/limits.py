"""Retention: how long and how much of a project's events are kept, and the pruning that enforces it.

Three limits, each an instance default (OUTPOST_ERROR_TRACKING_*) that a project may override:
events older than `retention_days` go; an error keeps at most `events_per_error` events (its first
and its latest ones); a project's stored payloads stay within `max_stored_bytes` (oldest events go
first). Zero means no limit.

Pruning only removes events (their rows, tags and payloads). An error's aggregates (count, users
affected, first and last seen, hourly counts, tag value counts) live on the error and in their own
tables, so they stay true.
Deletions run in small transactions of BATCH events with a pause between them: on SQLite ingestion
needs the same write lock, so it never waits for more than one batch. On PostgreSQL the pass first
drops the day partitions no project keeps any more (partition_retention.py); what this module deletes
is what is left.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import bindparam, delete, func, select, tuple_, update
from sqlalchemy.orm import Session

from outpost_server.accounts.models import Project
from outpost_server.config import ServerConfig
from outpost_server.db import read_only_scope, session_scope
from outpost_server.error_tracking.digest.batch_sql import day_of
from outpost_server.error_tracking.models import (
    ErrorEvent,
    ErrorEventPayload,
    ErrorStoredDay,
    EventKey,
    EventTag,
    ProjectStoredDay,
    RetentionOverride,
)
from outpost_server.error_tracking.retention import partitions

BATCH = 200
# Between two batches the pruner steps aside this long: SQLite's write lock is not fair, and without
# a pause the pruner would take it again before the ingestion writer, which polls for it, gets a turn.
PAUSE_SECONDS = 0.01
LIMIT_NAMES = ("retention_days", "events_per_error", "max_stored_bytes")


@dataclass(frozen=True)
class RetentionPolicy:
    retention_days: int
    events_per_error: int
    max_stored_bytes: int

    def cutoff(self, now: dt.datetime) -> dt.datetime | None:
        """Events received before it go; None keeps every event (no limit, or one reaching back before year 1,
        which the API accepts: days up to 2^31 - 1)."""
        if self.retention_days <= 0:
            return None
        try:
            return now - dt.timedelta(days=self.retention_days)
        except OverflowError:
            return None


def instance_policy(config: ServerConfig) -> RetentionPolicy:
    return RetentionPolicy(retention_days=config.error_tracking_retention_days,
                           events_per_error=config.error_tracking_events_per_error,
                           max_stored_bytes=config.error_tracking_project_bytes)


def project_policy(defaults: RetentionPolicy, override: RetentionOverride | None) -> RetentionPolicy:
    if override is None:
        return defaults
    return RetentionPolicy(**{name: getattr(defaults, name) if getattr(override, name) is None
                              else getattr(override, name) for name in LIMIT_NAMES})


def find_override(session: Session, *, project_id: int) -> RetentionOverride | None:
    return session.get(RetentionOverride, project_id)


def save_override(session: Session, *, project_id: int, changes: dict[str, int | None]) -> RetentionOverride:
    """Sets the named limits (None: back to the instance default); other limits stay as they were."""
    override = find_override(session, project_id=project_id)
    if override is None:
        override = RetentionOverride(project_id=project_id)
        session.add(override)
    for name, value in changes.items():
        setattr(override, name, value)
    session.flush()
    return override


@dataclass(frozen=True)
class StoredUsage:
    events: int
    payload_bytes: int


def stored_usage(session: Session, *, project_id: int) -> StoredUsage:
    """The project's stored events and payload bytes, from its storage counters (kept exact by the
    writer, the pruner and partition drops)."""
    events, payload_bytes = session.execute(
        select(func.coalesce(func.sum(ProjectStoredDay.events), 0), func.coalesce(func.sum(ProjectStoredDay.bytes), 0))
        .where(ProjectStoredDay.project_id == project_id)).one()
    return StoredUsage(events=int(events), payload_bytes=int(payload_bytes))


@dataclass
class Removed:
    events: int = 0
    bytes: int = 0

    def add(self, victims: list[Victim]) -> None:
        self.events += len(victims)
        self.bytes += sum(victim.size for victim in victims)


@dataclass
class ProjectPrune:
    """What one pass removed from a project (or would remove, in a dry run), by reason."""

    project_id: int
    full_path: str
    by_age: Removed = field(default_factory=Removed)
    over_cap: Removed = field(default_factory=Removed)
    over_budget: Removed = field(default_factory=Removed)

    @property
    def events(self) -> int:
        return self.by_age.events + self.over_cap.events + self.over_budget.events

    @property
    def bytes(self) -> int:
        return self.by_age.bytes + self.over_cap.bytes + self.over_budget.bytes


@dataclass(frozen=True)
class Victim:
    row_id: int
    error_id: int
    event_id: str
    received_at: dt.datetime
    payload_id: int | None
    size: int
    project_id: int


def select_victims(session: Session, condition, order, limit: int, offset: int = 0) -> list[Victim]:
    size = func.coalesce(func.length(ErrorEventPayload.payload), 0)
    same_event = ((ErrorEventPayload.error_id == ErrorEvent.error_id)
                  & (ErrorEventPayload.event_id == ErrorEvent.event_id))
    if partitions.in_use(session):
        same_event &= ErrorEventPayload.received_at == ErrorEvent.received_at  # the same day's partition
    rows = session.execute(
        select(ErrorEvent.id, ErrorEvent.error_id, ErrorEvent.event_id, ErrorEvent.received_at,
               ErrorEventPayload.id, size, ErrorEvent.project_id)
        .outerjoin(ErrorEventPayload, same_event)
        .where(condition).order_by(*order).limit(limit).offset(offset))
    return [Victim(*row) for row in rows]


def delete_victims(session: Session, victims: list[Victim]) -> None:
    """Removes the events with their payloads, keeping the storage counters exact."""
    if not victims:
        return
    partitioned = partitions.in_use(session)

    def received(column) -> list:
        # PostgreSQL: the victims' received range, so only their day partitions are searched.
        if not partitioned:
            return []
        return [column >= min(victim.received_at for victim in victims),
                column <= max(victim.received_at for victim in victims)]

    payload_ids = [victim.payload_id for victim in victims if victim.payload_id is not None]
    if payload_ids:
        session.execute(delete(ErrorEventPayload).where(ErrorEventPayload.id.in_(payload_ids),
                                                        *received(ErrorEventPayload.received_at)))
    session.execute(delete(EventTag).where(tuple_(EventTag.event_id, EventTag.error_id).in_(
        [(victim.event_id, victim.error_id) for victim in victims]), *received(EventTag.received_at)))
    session.execute(delete(ErrorEvent).where(ErrorEvent.id.in_([victim.row_id for victim in victims]),
                                             *received(ErrorEvent.received_at)))
    if partitioned:
        # The event ids are free again, as on SQLite where the unique constraint went with the row.
        session.execute(delete(EventKey).where(tuple_(EventKey.project_id, EventKey.event_id).in_(
            [(victim.project_id, victim.event_id) for victim in victims])))
    per_error: dict[tuple[int, dt.datetime], Removed] = {}
    per_project: dict[tuple[int, dt.datetime], Removed] = {}
    for victim in victims:
        day = day_of(victim.received_at)
        per_error.setdefault((victim.error_id, day), Removed()).add([victim])
        per_project.setdefault((victim.project_id, day), Removed()).add([victim])
    # In key order, error counters before project ones, as the digest takes them: writers wait, never deadlock.
    # Run on the session's connection: executemany of plain UPDATE and DELETE statements, one row each.
    connection = session.connection()
    counters: tuple[tuple[type[ErrorStoredDay] | type[ProjectStoredDay], Any, dict], ...] = (
        (ErrorStoredDay, ErrorStoredDay.error_id, per_error),
        (ProjectStoredDay, ProjectStoredDay.project_id, per_project))
    for counter, owner, removed in counters:
        key = (owner == bindparam("b_owner")) & (counter.received_day == bindparam("b_day"))
        rows = [{"b_owner": owner_id, "b_day": day, "b_events": gone.events, "b_bytes": gone.bytes}
                for (owner_id, day), gone in sorted(removed.items())]
        connection.execute(update(counter).where(key).values(events=counter.events - bindparam("b_events"),
                                                             bytes=counter.bytes - bindparam("b_bytes")), rows)
        connection.execute(delete(counter).where(key, counter.events <= 0), rows)


# A step hands out batches of victims. In a real pass each batch is deleted before the next is asked
# for; in a dry run nothing is deleted, so the steps page with cursors and skip what earlier steps chose.
Apply = Callable[[list[Victim]], None]


def prune_project(session_factory: Callable[[], Session], *, project: Project, policy: RetentionPolicy,
                  now: dt.datetime, dry_run: bool, keep_going: Callable[[], bool] = lambda: True,
                  on_batch: Callable[[Session], None] = lambda session: None) -> ProjectPrune:
    """One project's pass: by age, then per-error cap, then disk budget.

    Each batch runs in its own session from `session_factory`, committed unless `dry_run`;
    `on_batch` runs inside it (the pruner renews its lease there).
    """
    result = ProjectPrune(project_id=project.id, full_path=project.full_path)
    cutoff = policy.cutoff(now)
    chosen: set[int] = set()

    def apply(session: Session, victims: list[Victim], removed: Removed) -> None:
        removed.add(victims)
        if dry_run:
            chosen.update(victim.row_id for victim in victims)
        else:
            delete_victims(session, victims)
            on_batch(session)

    def run(step) -> None:
        while keep_going():
            # A dry run reads in a scope that never commits.
            with (read_only_scope(session_factory) if dry_run else session_scope(session_factory)) as session:
                more = step(session)
            if not more:
                return
            if not dry_run:
                time.sleep(PAUSE_SECONDS)

    if cutoff is not None:
        cursor: list[tuple[dt.datetime, int]] = []

        def by_age(session: Session) -> bool:
            condition = (ErrorEvent.project_id == project.id) & (ErrorEvent.received_at < cutoff)
            if cursor:
                condition &= tuple_(ErrorEvent.received_at, ErrorEvent.id) > cursor[-1]
            victims = select_victims(session, condition, (ErrorEvent.received_at, ErrorEvent.id), BATCH)
            if victims and dry_run:
                cursor.append((victims[-1].received_at, victims[-1].row_id))
            apply(session, victims, result.by_age)
            return len(victims) == BATCH

        run(by_age)

    if policy.events_per_error > 0:
        for error_id in _errors_over_cap(session_factory, project_id=project.id, cap=policy.events_per_error):
            run(_cap_step(error_id, policy.events_per_error, cutoff, dry_run, chosen,
                          lambda session, victims: apply(session, victims, result.over_cap)))

    if policy.max_stored_bytes > 0:
        with session_factory() as session:
            stored = stored_usage(session, project_id=project.id).payload_bytes
        # A dry run deleted nothing: what the earlier steps chose still counts in `stored`.
        chosen_bytes = result.by_age.bytes + result.over_cap.bytes if dry_run else 0
        excess = [stored - chosen_bytes - policy.max_stored_bytes]
        after = [0]

        def over_budget(session: Session) -> bool:
            if excess[0] <= 0:
                return False
            condition = (ErrorEvent.project_id == project.id) & (ErrorEvent.id > after[0])
            if cutoff is not None:
                condition &= ErrorEvent.received_at >= cutoff
            candidates = select_victims(session, condition, (ErrorEvent.id,), BATCH)
            if not candidates:
                return False
            after[0] = candidates[-1].row_id
            victims = []
            for victim in candidates:
                if excess[0] <= 0:
                    break
                if victim.row_id in chosen:
                    continue
                victims.append(victim)
                excess[0] -= victim.size
            apply(session, victims, result.over_budget)
            return excess[0] > 0

        run(over_budget)
    return result


def _errors_over_cap(session_factory: Callable[[], Session], *, project_id: int, cap: int) -> list[int]:
    with session_factory() as session:
        return list(session.scalars(select(ErrorStoredDay.error_id).where(ErrorStoredDay.project_id == project_id)
                                    .group_by(ErrorStoredDay.error_id).having(func.sum(ErrorStoredDay.events) > cap)
                                    .order_by(ErrorStoredDay.error_id)))


def _cap_step(error_id: int, cap: int, cutoff: dt.datetime | None, dry_run: bool, chosen: set[int],
              apply: Callable[[Session, list[Victim]], None]):
    """Batches of an error's events beyond its first one and its latest `cap - 1`, newest first.

    With a cap of 1 only the latest stays: its stack trace is the one people look at.
    """
    offset = [0]

    def step(session: Session) -> bool:
        condition = ErrorEvent.error_id == error_id
        if cutoff is not None:
            condition &= ErrorEvent.received_at >= cutoff
        first = session.scalar(select(func.min(ErrorEvent.id)).where(condition))
        if first is None:
            return False
        if cap > 1:
            condition &= ErrorEvent.id > first
        victims = select_victims(session, condition, (ErrorEvent.id.desc(),), BATCH, offset=max(cap - 1, 1) + offset[0])
        if dry_run:
            offset[0] += len(victims)
        apply(session, victims)
        return len(victims) == BATCH

    return step


def prune_all(session_factory: Callable[[], Session], *, defaults: RetentionPolicy, now: dt.datetime,
              dry_run: bool, keep_going: Callable[[], bool] = lambda: True,
              on_batch: Callable[[Session], None] = lambda session: None) -> list[ProjectPrune]:
    """A pass over every project that has stored events; returns what each lost (or would lose)."""
    with session_factory() as session:
        # Projects with stored events, read from their storage counters (not from every event row).
        with_events = select(ProjectStoredDay.project_id).where(ProjectStoredDay.events > 0)
        projects = list(session.scalars(select(Project).where(Project.id.in_(with_events)).order_by(Project.id)))
        overrides = {row.project_id: row for row in session.scalars(select(RetentionOverride))}
        session.expunge_all()
    results = []
    for project in projects:
        if not keep_going():
            break
        policy = project_policy(defaults, overrides.get(project.id))
        results.append(prune_project(session_factory, project=project, policy=policy, now=now, dry_run=dry_run,
                                     keep_going=keep_going, on_batch=on_batch))
    return results


def describe(results: Iterable[ProjectPrune]) -> list[str]:
    """Lines for `outpost-server prune`: one per project, then the total."""
    def amount(removed: Removed) -> str:
        return f"{removed.events} events ({human_size(removed.bytes)})"

    lines, events, size = [], 0, 0
    for result in results:
        lines.append(f"{result.full_path}: by age {amount(result.by_age)}, over the per-error limit "
                     f"{amount(result.over_cap)}, over the disk budget {amount(result.over_budget)}")
        events += result.events
        size += result.bytes
    lines.append(f"total: {events} events, {human_size(size)}")
    return lines


def human_size(count: int) -> str:
    size: float = count
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if size < 1024 or unit == "GiB":
            return f"{count} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return f"{count} bytes"
