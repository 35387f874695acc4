"""The API's entities: GlitchTip's ProjectAlertSchema and AlertRecipientSchema (camelCase), plus Outpost's
extension fields, and a delivery log line."""

from __future__ import annotations

from outpost_model import UNSET
from outpost_model.alerts import AlertDelivery as DeliveryEntity
from outpost_model.alerts import AlertRecipient as RecipientEntity
from outpost_model.alerts import AlertRule as RuleEntity
from outpost_server.compat.gitlab_time import iso

from .models import AlertDelivery, AlertRecipient, AlertRule


def recipient_json(recipient: AlertRecipient, url: str, new_secret: str | None = None) -> RecipientEntity:
    """`url`: the URL as the caller may see it (service.shown_url); `new_secret` only when just made."""
    return RecipientEntity(id=recipient.id, recipientType=recipient.recipient_type, url=url, config={}, tagsToAdd=[],
                           addresses=list(recipient.addresses), hasSecret=recipient.encrypted_secret is not None,
                           secret=UNSET if new_secret is None else new_secret)


def rule_json(rule: AlertRule, urls: dict[int, str], new_secrets: dict[int, str] | None = None) -> RuleEntity:
    """`urls`: each recipient's URL as the caller may see it, by recipient id."""
    new_secrets = new_secrets or {}
    environments = list(rule.environments or [])
    return RuleEntity(
        id=rule.id, name=rule.name, timespanMinutes=rule.timespan_minutes, quantity=rule.quantity, uptime=False,
        alertRecipients=[recipient_json(r, urls[r.id], new_secrets.get(r.id)) for r in rule.recipients],
        environment=environments[0] if len(environments) == 1 else "",
        environments=environments, users=rule.users, onNewError=rule.on_new_error,
        onRegression=rule.on_regression, onMonitorFailure=rule.on_monitor_failure, monitorSlug=rule.monitor_slug,
        minLevel=rule.min_level, release=rule.release, cooldownMinutes=rule.cooldown_minutes,
        hourlyCap=rule.hourly_cap)


def delivery_json(delivery: AlertDelivery) -> DeliveryEntity:
    return DeliveryEntity(
        id=delivery.id, created=iso(delivery.created_at), trigger=delivery.trigger, channel=delivery.channel,
        target=delivery.target, status=delivery.status, attempts=delivery.attempts, lastError=delivery.last_error,
        issueId=delivery.error_id,
        nextAttempt=iso(delivery.next_attempt_at) if delivery.status == "pending" else None,
        finished=iso(delivery.finished_at) if delivery.finished_at else None,
        title=(delivery.details or {}).get("title"))
