"""Alert rules as GlitchTip's project alerts API renders them (ProjectAlertSchema, AlertRecipientSchema, in
camelCase) with Outpost's extension fields, a rule's delivery log line and a test notification's result."""

from __future__ import annotations

from typing import Any

from outpost_model.base import UNSET, Entity, Text, Time, UnsetType


class AlertRecipient(Entity):
    id: int
    # "email", "webhook", "slack", "discord", "gitlab_issue", ...
    recipientType: str
    # The address as the caller may see it (a webhook's URL masked below Maintainer).
    url: Text
    config: dict[str, Any]
    tagsToAdd: list[Any]
    # Outpost's: the mail recipients, and whether a signing secret is kept.
    addresses: list[str]
    hasSecret: bool
    # The signing secret, shown once: in the answer that made it.
    secret: str | UnsetType = UNSET


class AlertRule(Entity):
    id: int
    name: Text
    timespanMinutes: int | None
    quantity: int | None
    uptime: bool
    alertRecipients: list[AlertRecipient]
    # GlitchTip's single environment filter: the one environment, "" when any (or several) match.
    environment: str
    # Outpost's extensions.
    environments: list[str]
    users: int | None
    onNewError: bool
    onRegression: bool
    onMonitorFailure: bool
    monitorSlug: Text
    minLevel: Text
    release: Text
    cooldownMinutes: int
    hourlyCap: int


class AlertDelivery(Entity):
    """One notification of a rule: what set it off, where it went, and how it went."""

    id: int
    created: Time
    # "new_error", "regression", "frequency", "monitor", "test", ...
    trigger: str
    channel: str
    target: Text
    # "pending", "sending", "sent" or "failed".
    status: str
    attempts: int
    lastError: Text
    issueId: int | None
    nextAttempt: Time
    finished: Time
    title: Text


class AlertTestResult(Entity):
    recipientType: str
    # "sent" or "error".
    status: str
    message: Text
