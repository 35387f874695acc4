"""Error tracking storage: settings, client keys, errors (groups), events, release sessions."""

from __future__ import annotations

import datetime as dt

from sqlalchemy import Boolean, ForeignKey, Index, Integer, LargeBinary, String, Text, UniqueConstraint
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

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    public_key: Mapped[str] = mapped_column(String(255), unique=True)
    active: Mapped[bool] = mapped_column(Boolean, default=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class TrackedError(Base):
    """One error: the events sharing a fingerprint, with running aggregates."""

    __tablename__ = "error_tracking_errors"
    __table_args__ = (UniqueConstraint("project_id", "fingerprint"),)

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
    # Events whose payload is still kept (at most the configured number per error).
    payloads_kept: Mapped[int] = mapped_column(Integer, default=0)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)


class ErrorEvent(Base):
    """One received event; its row stays (event ids are unique per project) after its payload goes."""

    __tablename__ = "error_tracking_error_events"
    __table_args__ = (UniqueConstraint("project_id", "event_id"),)

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


class ErrorEventPayload(Base):
    """The event JSON as received, kept for the newest events of each error."""

    __tablename__ = "error_tracking_event_payloads"
    __table_args__ = (Index("ix_error_tracking_event_payloads_error_id_id", "error_id", "id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"))
    event_id: Mapped[str] = mapped_column(String(32))
    payload: Mapped[bytes] = mapped_column(LargeBinary)


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
