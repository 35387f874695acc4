"""Error tracking storage: settings, client keys, errors (groups), events, release sessions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import BigInteger, Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from outpost_server.db import Base, UTCDateTime, utcnow

ERROR_STATUSES = ("unresolved", "resolved", "ignored")


class ErrorTrackingSetting(Base):
    """GitLab's ProjectErrorTrackingSetting: `enabled` plus the backend (integrated or an external Sentry)."""

    __tablename__ = "error_tracking_settings"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), unique=True)
    enabled: Mapped[bool] = mapped_column(Boolean, default=False)
    integrated: Mapped[bool] = mapped_column(Boolean, default=True)
    # External backend: `https://sentry.example.com/api/0/projects/{org}/{project}/`.
    api_url: Mapped[str | None] = mapped_column(String(255))
    # The external system's auth token, encrypted with the server's SecretBox.
    encrypted_token: Mapped[str | None] = mapped_column(Text)
    project_name: Mapped[str | None] = mapped_column(String(255))
    organization_name: Mapped[str | None] = mapped_column(String(255))
    # Outpost extension, like Sentry's "Allowed Domains": origins browsers may send events from,
    # one per line; empty means any origin.
    allowed_origins: Mapped[str | None] = mapped_column(Text)
    # Browser requests refused for their origin, so the console can say why nothing arrives.
    rejected_origin_count: Mapped[int] = mapped_column(Integer, default=0)
    last_rejected_origin: Mapped[str | None] = mapped_column(String(255))
    last_rejected_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow, onupdate=utcnow)

    @property
    def integrated_enabled(self) -> bool:
        return self.enabled and self.integrated

    @property
    def sentry_external_url(self) -> str | None:
        """The external project's web URL: the API URL without `api/0/projects/`."""
        if not self.api_url:
            return None
        return self.api_url.replace("api/0/projects/", "", 1)


class ClientKey(Base):
    __tablename__ = "error_tracking_client_keys"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases).
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    public_key: Mapped[str] = mapped_column(String(255), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class TrackedError(Base):
    """One error: the events sharing a fingerprint, with running aggregates."""

    __tablename__ = "error_tracking_errors"
    # Ids are never reused (SQLite AUTOINCREMENT).
    __table_args__ = (UniqueConstraint("project_id", "fingerprint"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    fingerprint: Mapped[str] = mapped_column(String(64))
    title: Mapped[str] = mapped_column(String(255))
    # "error" (has an exception) or "default" (a message).
    kind: Mapped[str] = mapped_column(String(16))
    exception_type: Mapped[str | None] = mapped_column(String(255))
    culprit: Mapped[str | None] = mapped_column(String(255))
    message: Mapped[str | None] = mapped_column(Text)
    level: Mapped[str] = mapped_column(String(16))
    platform: Mapped[str | None] = mapped_column(String(255))
    count: Mapped[int] = mapped_column(Integer, default=0)
    users_count: Mapped[int] = mapped_column(Integer, default=0)
    first_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    last_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, index=True)
    status: Mapped[str] = mapped_column(String(16), default="unresolved")
    # Set when a resolved error happened again.
    regressed: Mapped[bool] = mapped_column(Boolean, default=False)
    first_release: Mapped[str | None] = mapped_column(String(255))
    last_release: Mapped[str | None] = mapped_column(String(255))
    last_environment: Mapped[str | None] = mapped_column(String(255))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    # When its events were received, first and last (kept wide: pruning leaves them): on PostgreSQL the
    # reads of its events search only the day partitions in between (NULL in SQLite rows older than them).
    first_received_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_received_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # Triage: the project member it is assigned to (Sentry's GroupAssignee, one user per error).
    assignee_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"), index=True)
    # Set once the error was merged into another (Sentry's GroupRedirect): its events, counts and tags moved
    # there, lists leave it out, its id answers as the other, and the digest groups its fingerprint there.
    merged_into_id: Mapped[int | None] = mapped_column(
        ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), index=True)


class ErrorSnooze(Base):
    """Sentry's GroupSnooze: an ignored error comes back unresolved once one of its conditions is met.

    `until` is a moment; `count` events (or `user_count` users) either within the last `window` minutes
    or, without a window, since it was ignored (counted from the error's totals when it was ignored).
    """

    __tablename__ = "error_tracking_error_snoozes"

    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), primary_key=True)
    until: Mapped[dt.datetime | None] = mapped_column(UTCDateTime, index=True)
    count: Mapped[int | None] = mapped_column(Integer)
    window: Mapped[int | None] = mapped_column(Integer)
    user_count: Mapped[int | None] = mapped_column(Integer)
    user_window: Mapped[int | None] = mapped_column(Integer)
    # The error's event and user totals when it was ignored, for the conditions without a window.
    times_seen: Mapped[int] = mapped_column(Integer, default=0)
    users_seen: Mapped[int] = mapped_column(Integer, default=0)
    actor_id: Mapped[int | None] = mapped_column(ForeignKey("users.id", ondelete="SET NULL"))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class ErrorEvent(Base):
    """One received event, with its payload and tag rows until the pruner removes them together.

    On PostgreSQL this table, its payloads and its tags are partitioned by received day
    (partitions.py); the primary key there is (id, received_at) and event ids are kept unique by
    `error_tracking_event_keys` instead of the unique constraint below, which SQLite keeps.
    """

    __tablename__ = "error_tracking_error_events"
    __table_args__ = (
        UniqueConstraint("project_id", "event_id"),
        # For pruning: a project's oldest arrivals, and an error's events in order.
        Index("ix_error_tracking_error_events_project_received", "project_id", "received_at", "id"),
        Index("ix_error_tracking_error_events_error_id_id", "error_id", "id"),
        # The events of one error in time order (keyset pagination, previous and next event).
        Index("ix_error_tracking_error_events_timeline", "error_id", "occurred_at", "id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), index=True)
    event_id: Mapped[str] = mapped_column(String(32))
    occurred_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    received_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    level: Mapped[str] = mapped_column(String(16))
    release: Mapped[str | None] = mapped_column(String(255))
    environment: Mapped[str | None] = mapped_column(String(255))
    user_key: Mapped[str | None] = mapped_column(String(255))


class EventTag(Base):
    """One tag of one event (`browser`, `release`, `user`, custom tags), to list the events carrying a value."""

    __tablename__ = "error_tracking_event_tags"
    __table_args__ = (
        Index("ix_error_tracking_event_tags_lookup", "error_id", "key", "value", "event_id"),
        Index("ix_error_tracking_event_tags_event", "event_id", "error_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(32))
    key: Mapped[str] = mapped_column(String(200))
    value: Mapped[str] = mapped_column(String(200))
    # The event's received time: the partition key on PostgreSQL (NULL in SQLite rows older than it).
    received_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class ErrorTagValue(Base):
    """How often each tag value occurred in an error's events: the tag facets, kept up to date at ingestion."""

    __tablename__ = "error_tracking_error_tag_values"
    __table_args__ = (Index("ix_error_tracking_error_tag_values_top", "error_id", "key", "times_seen"),)

    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), primary_key=True)
    key: Mapped[str] = mapped_column(String(200), primary_key=True)
    value: Mapped[str] = mapped_column(String(200), primary_key=True)
    times_seen: Mapped[int] = mapped_column(Integer, default=0)
    first_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    last_seen_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)


class ErrorEventPayload(Base):
    """The event JSON as received, one per stored event, until the pruner removes the event."""

    __tablename__ = "error_tracking_event_payloads"
    __table_args__ = (
        Index("ix_error_tracking_event_payloads_error_id_id", "error_id", "id"),
        Index("ix_error_tracking_event_payloads_error_event", "error_id", "event_id"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(32))
    payload: Mapped[bytes] = mapped_column(LargeBinary)
    # The event's received time: the partition key on PostgreSQL (NULL in SQLite rows older than it).
    received_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class EventKey(Base):
    """PostgreSQL only: each stored event's id, unique per project, beside the partitioned events.

    A unique index on a partitioned table must contain the partition key, so (project id, event id)
    cannot be unique on the events themselves; this narrow table is, and the digest claims an event
    id here (INSERT .. ON CONFLICT DO NOTHING) before storing the event, on every replica. Its rows go
    with their events: by row deletes, and by received range when a day's partitions are dropped.
    """

    __tablename__ = "error_tracking_event_keys"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    event_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    received_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, index=True)


class ErrorStoredDay(Base):
    """An error's stored events and their payloads' bytes, per received day (its storage counters).

    Kept by the writers of events: the digest adds, the pruner's row deletes subtract. On PostgreSQL
    it is partitioned by received day like the events (partitions.py), so dropping a day's partitions
    takes that day's counters with them and no error row is touched. An error's stored events are
    the sum of its rows.
    """

    __tablename__ = "error_tracking_error_stored_days"
    __table_args__ = (Index("ix_error_tracking_error_stored_days_project", "project_id", "error_id"),)

    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), primary_key=True)
    # The first instant (UTC) of the day its events were received: the partition key on PostgreSQL.
    received_day: Mapped[dt.datetime] = mapped_column(UTCDateTime, primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    events: Mapped[int] = mapped_column(Integer, default=0)
    bytes: Mapped[int] = mapped_column(BigInteger, default=0)


class ProjectStoredDay(Base):
    """A project's stored events and payload bytes per received day: ErrorStoredDay summed by project,
    kept by the same writers in the same transactions, so usage and budgets read a few rows per project."""

    __tablename__ = "error_tracking_project_stored_days"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    received_day: Mapped[dt.datetime] = mapped_column(UTCDateTime, primary_key=True)
    events: Mapped[int] = mapped_column(BigInteger, default=0)
    bytes: Mapped[int] = mapped_column(BigInteger, default=0)


class ErrorUser(Base):
    """Distinct users affected by an error (id, else email, else username, else IP)."""

    __tablename__ = "error_tracking_error_users"

    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), primary_key=True)
    user_key: Mapped[str] = mapped_column(String(255), primary_key=True)


class ErrorHourlyCount(Base):
    """Events per error per hour; daily counts are sums of these."""

    __tablename__ = "error_tracking_error_hourly_counts"

    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[dt.datetime] = mapped_column(UTCDateTime, primary_key=True)
    count: Mapped[int] = mapped_column(Integer, default=0)


class ReleaseSession(Base):
    """The latest state of one SDK session (`session` items), for release health."""

    __tablename__ = "error_tracking_sessions"
    __table_args__ = (UniqueConstraint("project_id", "sid"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    sid: Mapped[str] = mapped_column(String(255))
    release: Mapped[str] = mapped_column(String(255))
    environment: Mapped[str] = mapped_column(String(255))
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    status: Mapped[str] = mapped_column(String(16))
    errors: Mapped[int] = mapped_column(Integer, default=0)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class SessionAggregate(Base):
    """One bucket of a `sessions` item (request-mode aggregates)."""

    __tablename__ = "error_tracking_session_aggregates"

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    release: Mapped[str] = mapped_column(String(255))
    environment: Mapped[str] = mapped_column(String(255))
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    exited: Mapped[int] = mapped_column(Integer, default=0)
    errored: Mapped[int] = mapped_column(Integer, default=0)
    abnormal: Mapped[int] = mapped_column(Integer, default=0)
    crashed: Mapped[int] = mapped_column(Integer, default=0)


class RetentionOverride(Base):
    """A project's own retention limits; a NULL column means the instance default (an Outpost extension)."""

    __tablename__ = "error_tracking_retention_overrides"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    retention_days: Mapped[int | None] = mapped_column(Integer)
    events_per_error: Mapped[int | None] = mapped_column(Integer)
    max_stored_bytes: Mapped[int | None] = mapped_column(BigInteger)


class PruneLease(Base):
    """The one row naming the process allowed to prune now, so replicas never prune at the same time."""

    __tablename__ = "error_tracking_prune_lease"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # When the last complete pass ended: the next one is due an interval later, whichever process runs it.
    last_finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class PruneRun(Base):
    """One pruning pass, kept for the retention API and for checking that passes never overlap."""

    __tablename__ = "error_tracking_prune_runs"

    id: Mapped[int] = mapped_column(primary_key=True)
    worker_id: Mapped[str] = mapped_column(String(64))
    started_at: Mapped[dt.datetime] = mapped_column(UTCDateTime)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    events_deleted: Mapped[int] = mapped_column(Integer, default=0)
    bytes_deleted: Mapped[int] = mapped_column(BigInteger, default=0)


class RateWindow(Base):
    """Events admitted for a project in one wall-clock minute, summed over every server process."""

    __tablename__ = "error_tracking_rate_windows"

    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), primary_key=True)
    # Minutes since the epoch.
    window: Mapped[int] = mapped_column(Integer, primary_key=True)
    events: Mapped[int] = mapped_column(Integer, default=0)


class SpoolProgress(Base):
    """The last ingest spool entry digested, per spool, written in the transaction that stores it: a
    batch read again after a crash (stored, not yet removed from the spool) is then skipped whole,
    sessions included, which have no event id to recognise them by."""

    __tablename__ = "error_tracking_spool_progress"

    spool_id: Mapped[str] = mapped_column(String(32), primary_key=True)
    last_entry_id: Mapped[int] = mapped_column(BigInteger)
