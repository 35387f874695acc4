"""The API's shapes: GlitchTip's ProjectAlertSchema and AlertRecipientSchema (camelCase), plus Outpost's
extension fields, and a delivery log line."""

from __future__ import annotations

from typing import Any

from outpost_server.compat.gitlab_time import iso

from .models import AlertDelivery, AlertRecipient, AlertRule


def recipient_json(recipient: AlertRecipient, url: str, new_secret: str | None = None) -> dict[str, Any]:
    """`url`: the URL as the caller may see it (service.shown_url)."""
    body: dict[str, Any] = {
        "id": recipient.id, "recipientType": recipient.recipient_type, "url": url,
        "config": {}, "tagsToAdd": [],
        # Outpost extensions.
        "addresses": list(recipient.addresses), "hasSecret": recipient.encrypted_secret is not None,
    }
    if new_secret is not None:
        body["secret"] = new_secret  # shown once, when the recipient is made
    return body


def rule_json(rule: AlertRule, urls: dict[int, str], new_secrets: dict[int, str] | None = None) -> dict[str, Any]:
    """`urls`: each recipient's URL as the caller may see it, by recipient id."""
    new_secrets = new_secrets or {}
    environments = list(rule.environments or [])
    return {
        "id": rule.id, "name": rule.name, "timespanMinutes": rule.timespan_minutes, "quantity": rule.quantity,
        "uptime": False,
        "alertRecipients": [recipient_json(r, urls[r.id], new_secrets.get(r.id)) for r in rule.recipients],
        # GlitchTip's single environment filter: the one environment, "" when any (or several) match.
        "environment": environments[0] if len(environments) == 1 else "",
        # Outpost extensions.
        "environments": environments, "users": rule.users, "onNewError": rule.on_new_error,
        "onRegression": rule.on_regression, "onMonitorFailure": rule.on_monitor_failure,
        "monitorSlug": rule.monitor_slug, "minLevel": rule.min_level, "release": rule.release,
        "cooldownMinutes": rule.cooldown_minutes, "hourlyCap": rule.hourly_cap,
    }


def delivery_json(delivery: AlertDelivery) -> dict[str, Any]:
    return {
        "id": delivery.id, "created": iso(delivery.created_at), "trigger": delivery.trigger,
        "channel": delivery.channel, "target": delivery.target, "status": delivery.status,
        "attempts": delivery.attempts, "lastError": delivery.last_error, "issueId": delivery.error_id,
        "nextAttempt": iso(delivery.next_attempt_at) if delivery.status == "pending" else None,
        "finished": iso(delivery.finished_at) if delivery.finished_at else None,
        "title": (delivery.details or {}).get("title"),
    }
