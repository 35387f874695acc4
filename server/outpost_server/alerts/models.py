"""Alert storage: rules and their recipients, the outbox of deliveries (which is also the delivery log),
and the per-error and per-hour counters evaluation keeps."""

from __future__ import annotations

import datetime as dt
from typing import Any

from sqlalchemy import JSON, Boolean, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column, relationship

from outpost_server.db import Base, UTCDateTime, utcnow

LEVELS = ("debug", "info", "warning", "error", "fatal")


class AlertRule(Base):
    """GlitchTip's ProjectAlert (name, timespan_minutes, quantity) plus Outpost's conditions and filters."""

    __tablename__ = "alert_rules"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases).
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    name: Mapped[str] = mapped_column(String(255), default="")
    # "At least `quantity` events of one error within `timespan_minutes`" (GlitchTip's condition).
    timespan_minutes: Mapped[int | None] = mapped_column(Integer)
    quantity: Mapped[int | None] = mapped_column(Integer)
    # "At least `users` distinct users of one error within `timespan_minutes`".
    users: Mapped[int | None] = mapped_column(Integer)
    on_new_error: Mapped[bool] = mapped_column(Boolean, default=False)
    on_regression: Mapped[bool] = mapped_column(Boolean, default=False)
    # "A monitor fails" (and recovers): cron monitors turning failing or ok, of `monitor_slug` only when set.
    on_monitor_failure: Mapped[bool] = mapped_column(Boolean, default=False)
    monitor_slug: Mapped[str | None] = mapped_column(String(50))
    # Filters: any of these environments (empty: every one), at least this level, this release.
    environments: Mapped[list[str]] = mapped_column(JSON, default=list)
    min_level: Mapped[str | None] = mapped_column(String(16))
    release: Mapped[str | None] = mapped_column(String(255))
    cooldown_minutes: Mapped[int] = mapped_column(Integer, default=60)
    hourly_cap: Mapped[int] = mapped_column(Integer, default=30)
    # Where links in notifications point when OUTPOST_EXTERNAL_URL is unset: the address the rule was saved at.
    link_base: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    updated_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)

    recipients: Mapped[list[AlertRecipient]] = relationship(
        back_populates="rule", order_by="AlertRecipient.id", cascade="all, delete-orphan", passive_deletes=True)


class AlertRecipient(Base):
    """GlitchTip's AlertRecipient: a channel (`recipient_type`) and its target."""

    __tablename__ = "alert_recipients"
    # Ids are never reused (SQLite AUTOINCREMENT; migrations 0014-0018 for existing databases).
    __table_args__ = {"sqlite_autoincrement": True}

    id: Mapped[int] = mapped_column(primary_key=True)
    rule_id: Mapped[int] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"), index=True)
    recipient_type: Mapped[str] = mapped_column(String(32))
    # The webhook's URL ("" for email), encrypted with the server's SecretBox: Slack's and Discord's, and
    # many others, carry a token in the path (migration 0024 encrypted those stored before).
    encrypted_url: Mapped[str] = mapped_column(Text, default="")
    # What the delivery log and a reader may see of it: the addresses, or the URL's scheme and host.
    target: Mapped[str] = mapped_column(Text, default="")
    # Email: the addresses (empty: the project's members).
    addresses: Mapped[list[str]] = mapped_column(JSON, default=list)
    # The webhook's signing secret or GitLab's authorization key, encrypted with the server's SecretBox.
    encrypted_secret: Mapped[str | None] = mapped_column(Text)

    rule: Mapped[AlertRule] = relationship(back_populates="recipients")


class AlertDelivery(Base):
    """One notification to one recipient: the outbox row while it waits, then its line in the delivery log.

    Written in the digest's transaction, so a trigger has exactly one row per recipient; the sender
    worker claims due rows with a lease, so two processes never send one row at the same time.
    """

    __tablename__ = "alert_deliveries"
    __table_args__ = (
        Index("ix_alert_deliveries_due", "status", "next_attempt_at"),
        Index("ix_alert_deliveries_rule", "rule_id", "id"),
        {"sqlite_autoincrement": True},  # ids are never reused
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    rule_id: Mapped[int] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"))
    recipient_id: Mapped[int] = mapped_column(ForeignKey("alert_recipients.id", ondelete="CASCADE"), index=True)
    project_id: Mapped[int] = mapped_column(ForeignKey("projects.id", ondelete="CASCADE"), index=True)
    error_id: Mapped[int | None] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="SET NULL"),
                                                 index=True)
    # new_error, regression, frequency, users, monitor_failure, monitor_recovery, summary or test.
    trigger: Mapped[str] = mapped_column(String(16))
    channel: Mapped[str] = mapped_column(String(32))
    # What the log shows as the target: an address list or the URL's scheme and host, never a secret.
    target: Mapped[str] = mapped_column(String(255))
    # What the trigger saw (batch counts, environment, the error's title at the time).
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    # pending, sending, sent or failed.
    status: Mapped[str] = mapped_column(String(16), default="pending")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    lease_owner: Mapped[str | None] = mapped_column(String(128))
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    last_error: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime, default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)


class AlertErrorState(Base):
    """Per rule and error: the current counting window and when it last fired (the cooldown)."""

    __tablename__ = "alert_error_states"

    rule_id: Mapped[int] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"), primary_key=True)
    error_id: Mapped[int] = mapped_column(ForeignKey("error_tracking_errors.id", ondelete="CASCADE"),
                                          primary_key=True, index=True)
    window_started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    window_events: Mapped[int] = mapped_column(Integer, default=0)
    # Distinct user keys seen in the window, at most the rule's `users` of them.
    window_users: Mapped[list[str]] = mapped_column(JSON, default=list)
    last_fired_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime)
    # Notifications the cooldown held back since the last one (the next one's `suppressed`).
    held_back: Mapped[int] = mapped_column(Integer, default=0, server_default="0")


class AlertHourlyCount(Base):
    """Per rule and clock hour: how many notifications were triggered; those beyond the cap were held back."""

    __tablename__ = "alert_hourly_counts"

    rule_id: Mapped[int] = mapped_column(ForeignKey("alert_rules.id", ondelete="CASCADE"), primary_key=True)
    hour: Mapped[dt.datetime] = mapped_column(UTCDateTime, primary_key=True)
    triggered: Mapped[int] = mapped_column(Integer, default=0)


class AlertRulesVersion(Base):
    """One row, bumped by every change of a rule or recipient: evaluation reloads its cached rules when it moves."""

    __tablename__ = "alert_rules_version"

    id: Mapped[int] = mapped_column(primary_key=True)
    version: Mapped[int] = mapped_column(Integer, default=0)
