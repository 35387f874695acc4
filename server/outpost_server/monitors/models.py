"""Cron monitors: a monitor per project and slug, its state per environment, its check-ins, and the one
lease row of the clock that marks missed and timed-out check-ins (Sentry's Monitor, MonitorEnvironment,
MonitorCheckIn)."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from outpost_server.db import Base, UTCDateTime, utcnow

from .schedule import MonitorConfig

# Sentry's check-in statuses; `missed` and `timeout` are only ever set by the clock.
CHECK_IN_STATUSES = ("ok", "error", "in_progress", "missed", "timeout", "unknown")
FAILED_STATUSES = ("error", "missed", "timeout")


class Monitor(Base):
    __tablename__ = "monitors"
    __table_args__ = (UniqueConstraint("project_id", "slug"), {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    # Sentry's public id of the monitor (32 hex digits).
    guid: Mapped[str] = mapped_column(String(32), unique=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    slug: Mapped[str] = mapped_column(String(50))
    name: Mapped[str] = mapped_column(String(128))
    # active, or disabled (paused: check-ins are refused and none is marked missed).
    status: Mapped[str] = mapped_column(String(16), default="active")
    # Muted: state is kept, nobody is notified.
    is_muted: Mapped[bool] = mapped_column(Boolean, default=False)
    schedule_type: Mapped[str] = mapped_column(String(16))
    # The crontab, or the interval's count.
    schedule: Mapped[str] = mapped_column(String(255))
    schedule_unit: Mapped[str | None] = mapped_column(String(16))
    checkin_margin: Mapped[int | None] = mapped_column(Integer)
    max_runtime: Mapped[int | None] = mapped_column(Integer)
    timezone: Mapped[str | None] = mapped_column(String(64))
    failure_issue_threshold: Mapped[int | None] = mapped_column(Integer)
    recovery_threshold: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    def config(self) -> MonitorConfig:
        return MonitorConfig(
            schedule_type=self.schedule_type,
            schedule=int(self.schedule) if self.schedule_type == "interval" else self.schedule,
            unit=self.schedule_unit, checkin_margin=self.checkin_margin, max_runtime=self.max_runtime,
            timezone=self.timezone, failure_issue_threshold=self.failure_issue_threshold,
            recovery_threshold=self.recovery_threshold)

    def configure(self, config: MonitorConfig) -> None:
        self.schedule_type, self.schedule, self.schedule_unit = config.schedule_type, str(config.schedule), config.unit
        self.checkin_margin, self.max_runtime = config.checkin_margin, config.max_runtime
        self.timezone = config.timezone
        self.failure_issue_threshold = config.failure_issue_threshold
        self.recovery_threshold = config.recovery_threshold


class MonitorEnvironment(Base):
    """A monitor's state in one environment; `next_checkin_latest` is when the clock marks a miss."""

    __tablename__ = "monitor_environments"
    __table_args__ = (UniqueConstraint("monitor_id", "environment"),
                      Index("ix_monitor_environments_due", "next_checkin_latest"),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    monitor_id: Mapped[int] = mapped_column(ForeignKey("monitors.id", ondelete="CASCADE"))
    environment: Mapped[str] = mapped_column(String(64))
    # active (no check-in yet), ok, or error (failing).
    status: Mapped[str] = mapped_column(String(16), default="active")
    last_checkin: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    next_checkin: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    next_checkin_latest: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class MonitorCheckIn(Base):
    __tablename__ = "monitor_checkins"
    __table_args__ = (Index("ix_monitor_checkins_environment", "monitor_environment_id", "id"),
                      Index("ix_monitor_checkins_running", "status", "timeout_at"),
                      Index("ix_monitor_checkins_age", "project_id", "created_at"),
                      {"sqlite_autoincrement": True})

    id: Mapped[int] = mapped_column(primary_key=True)
    guid: Mapped[str] = mapped_column(String(32), index=True)
    monitor_id: Mapped[int] = mapped_column(ForeignKey("monitors.id", ondelete="CASCADE"), index=True)
    monitor_environment_id: Mapped[int] = mapped_column(ForeignKey("monitor_environments.id", ondelete="CASCADE"))
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"))
    status: Mapped[str] = mapped_column(String(16))
    # Milliseconds, as Sentry stores it.
    duration: Mapped[int | None] = mapped_column(Integer)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    # The scheduled time this check-in answers (missed ones: the time nobody came).
    expected_time: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # In progress: when it times out.
    timeout_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class MonitorClock(Base):
    """The one lease row: the process holding it marks missed and timed-out check-ins for every replica."""

    __tablename__ = "monitor_clock"

    id: Mapped[int] = mapped_column(primary_key=True)
    owner: Mapped[str | None] = mapped_column(String(64))
    expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # When the check-ins of expired retention were last removed.
    last_pruned_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)

