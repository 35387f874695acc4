"""Sending one notification: gathering what it says (the error as it is now, its top application frames) and
carrying it over its channel. Outbound HTTP goes through the external Sentry client's pinned transport, with
the same URL policy checked again at send time, so a DNS answer changed since the rule was saved cannot
reach a private address."""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

import httpx
from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_model.alerts import AlertTestResult
from outpost_server.accounts.models import Project, User
from outpost_server.compat.gitlab_time import iso
from outpost_server.config import ServerConfig
from outpost_server.db import parse_id, utcnow
from outpost_server.error_tracking.digest.grouping import exception_values, frames_of, in_app_frames
from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import tracked_errors
from outpost_server.mail import MailError, MailSettings, build_message, send_message
from outpost_server.outbound.transport import (
    BodyTooLarge,
    FailureCause,
    UnexpectedStatus,
    failure_cause,
    send_pinned,
)
from outpost_server.outbound.url_policy import BlockedUrl, local_requests_allowed, pin_url
from outpost_server.security import SecretBox

from . import messages
from .messages import ErrorFacts, Frame, Notice, console_error_link
from .models import AlertDelivery, AlertHourlyCount, AlertRecipient, AlertRule
from .service import blocked_text, member_addresses, recipient_url

TIMEOUT = httpx.Timeout(10.0, connect=5.0)
MAX_ANSWER_BYTES = 64 * 1024
TOP_FRAMES = 5
SIGNATURE_HEADER = "X-Outpost-Signature"


class DeliveryFailed(Exception):
    """The reason, fit for the delivery log: never a URL path, token or secret."""


@dataclass(frozen=True)
class DeliveryContext:
    box: SecretBox
    mail: MailSettings | None
    external_url: str
    # Keys the Message-IDs: unique to this installation, the same for every attempt of one delivery.
    message_id_key: bytes


def context_of(config: ServerConfig, *, secret_key: str) -> DeliveryContext:
    return DeliveryContext(SecretBox(secret_key), MailSettings.from_config(config), config.external_url.rstrip("/"),
                           hashlib.sha256(("outpost-message-id:" + secret_key).encode()).digest())


def message_id(context: DeliveryContext, delivery_id: int, domain: str) -> str:
    """`<alert-<delivery id>.<20 hex>@<mail domain>>`: the hex part is keyed with the installation's secret, so
    two installations never repeat one, and every attempt of a delivery carries the same."""
    part = hmac.new(context.message_id_key, str(delivery_id).encode(), hashlib.sha256).hexdigest()[:20]
    return f"<alert-{delivery_id}.{part}@{domain}>"


def deliver(session: Session, row: AlertDelivery, context: DeliveryContext) -> None:
    """Sends the row's notification; raises DeliveryFailed."""
    recipient = session.get(AlertRecipient, row.recipient_id)
    rule = session.get(AlertRule, row.rule_id)
    project = session.get(Project, row.project_id)
    if recipient is None or rule is None or project is None:
        raise DeliveryFailed("the rule or recipient was deleted")
    error = session.get(TrackedError, row.error_id) if row.error_id is not None else None
    extra = {}
    if row.trigger == "summary":  # counted until the hour ended
        count = session.get(AlertHourlyCount, (rule.id, dt.datetime.fromisoformat(row.details["hour"])))
        extra["suppressed"] = max(0, (count.triggered if count else 0) - rule.hourly_cap)
    notice = notice_for(session, row=row, rule=rule, project=project, error=error, context=context, extra=extra)
    send(session, recipient, notice, project=project, context=context)


def notice_for(session: Session, *, row: AlertDelivery, rule: AlertRule, project: Project,
               error: TrackedError | None, context: DeliveryContext, extra: dict[str, Any] | None = None) -> Notice:
    base = context.external_url or rule.link_base
    organization, _, below = project.full_path.partition("/")
    rule_url = f"{base}/api/0/projects/{organization}/{below.replace('/', '~')}/alerts/{rule.id}/"
    details = dict(row.details or {}) | (extra or {})
    # A new error is told by the event that made it; later events of its batch may have retitled it.
    first_title = details.get("title") if row.trigger == "new_error" else None
    facts = None
    if error is not None:
        facts = ErrorFacts(
            id=error.id, title=first_title or error.title, culprit=error.culprit, level=error.level,
            status=error.status, count=error.count, users=error.users_count, first_seen=iso(error.first_seen_at),
            last_seen=iso(error.last_seen_at), environment=details.get("environment") or error.last_environment,
            release=details.get("release") or error.last_release,
            url=f"{base}/{project.full_path}/-/error_tracking/{error.id}/details",
            console_url=console_error_link(base, project.full_path, error.id),
            frames=_top_frames(tracked_errors.latest_event_payload(session, error=error)))
    elif "title" in details and row.trigger != "summary" and not row.trigger.startswith("monitor_"):
        details.setdefault("note", "the error has since been deleted")
    return Notice(delivery_id=row.id, trigger=row.trigger, rule_id=rule.id, rule_name=rule.name or f"#{rule.id}",
                  rule_url=rule_url, project_id=project.id, project_path=project.full_path,
                  project_name=project.name, details={k: v for k, v in details.items() if k != "title"},
                  error=facts, created=iso(row.created_at) or "")


def _top_frames(payload: dict[str, Any] | None) -> list[Frame]:
    if not payload:
        return []
    values = exception_values(payload)
    if not values:
        return []
    frames = in_app_frames(frames_of(values[-1]))
    lineno = [frame.get("lineno") for frame in frames]
    return [Frame(filename=frame.get("filename") or frame.get("module"), function=frame.get("function"),
                  lineno=number if isinstance(number, int) else None)
            for frame, number in zip(reversed(frames), reversed(lineno), strict=True)][:TOP_FRAMES]


def send(session: Session, recipient: AlertRecipient, notice: Notice, *, project: Project,
         context: DeliveryContext) -> None:
    kind = recipient.recipient_type
    if kind == "email":
        _send_email(session, recipient, notice, project=project, context=context,
                    to=list(recipient.addresses) or member_addresses(session, project))
        return
    if kind == "assignee":
        _send_email(session, recipient, notice, project=project, context=context, to=_assignee_address(session, notice))
        return
    headers = {"Content-Type": "application/json", "User-Agent": "Outpost-Alerts/1"}
    if kind == "json_webhook":
        body = messages.encode(messages.json_payload(notice))
        secret = context.box.decrypt(recipient.encrypted_secret or "")
        if secret is None:
            raise DeliveryFailed("the signing secret cannot be decrypted (was OUTPOST_SECRET_KEY changed?)")
        headers[SIGNATURE_HEADER] = "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()
        headers["X-Outpost-Delivery"] = str(notice.delivery_id)
        headers["X-Outpost-Event"] = notice.trigger
    elif kind == "gitlab":
        body = messages.encode(messages.gitlab_payload(notice))
        key = context.box.decrypt(recipient.encrypted_secret or "")
        if key is None:
            raise DeliveryFailed("the authorization key cannot be decrypted (was OUTPOST_SECRET_KEY changed?)")
        headers["Authorization"] = f"Bearer {key}"
    elif kind == "discord":
        body = messages.encode(messages.discord_payload(notice))
    else:
        body = messages.encode(messages.slack_payload(notice))
    _post(session, recipient_url(recipient, context.box), headers, body)


def _post(session: Session, url: str, headers: dict[str, str], body: bytes) -> None:
    allow_local = local_requests_allowed(session)
    try:
        send_pinned("POST", url, headers=headers, content=body, pin=lambda u: pin_url(u, allow_local=allow_local),
                    timeout=TIMEOUT, max_bytes=MAX_ANSWER_BYTES)
    except BlockedUrl as blocked:
        raise DeliveryFailed(blocked_text(blocked)) from None
    except UnexpectedStatus as status:
        raise DeliveryFailed(f"the receiver answered {status.status}") from None
    except BodyTooLarge:
        raise DeliveryFailed(f"the receiver's answer exceeded {MAX_ANSWER_BYTES} bytes") from None
    except httpx.TimeoutException:
        raise DeliveryFailed("the receiver did not answer in time") from None
    except httpx.TransportError as failure:
        raise DeliveryFailed(f"cannot reach the receiver ({_cause(failure)})") from None


def _cause(failure: BaseException) -> str:
    """The cause's kind, without the failure's text (which may repeat the URL)."""
    cause = failure_cause(failure)
    if cause is FailureCause.REFUSED:
        return "connection refused"
    if cause is FailureCause.NAME_RESOLUTION:
        return "name resolution failed"
    return type(failure).__name__


def _assignee_address(session: Session, notice: Notice) -> list[str]:
    """The address of the member the error is assigned to when the notification is sent."""
    error = session.get(TrackedError, notice.error.id) if notice.error is not None else None
    assignee = session.get(User, error.assignee_id) if error is not None and error.assignee_id else None
    if assignee is None or not assignee.email:
        raise DeliveryFailed("the error is not assigned to anyone")
    return [assignee.email]


def _send_email(session: Session, recipient: AlertRecipient, notice: Notice, *, project: Project,
                context: DeliveryContext, to: list[str]) -> None:
    if context.mail is None:
        raise DeliveryFailed("email is not configured on this server (OUTPOST_SMTP_HOST is unset)")
    if not to:
        raise DeliveryFailed("the project has no members with an email address")
    domain = context.mail.sender.rpartition("@")[2] or "localhost"
    headers = {
        # The same id if a delivery is ever sent again, so mail clients show it once.
        "Message-ID": message_id(context, notice.delivery_id, domain),
        "List-Id": f"Outpost alert {notice.rule_id} <alert-{notice.rule_id}.{project.id}.{domain}>",
        "List-Unsubscribe": f"<{notice.rule_url}>",
    }
    if notice.error:  # one thread per error
        headers["References"] = f"<error-{notice.error.id}@{domain}>"
    message = build_message(sender=context.mail.sender, to=to, subject=messages.email_subject(notice),
                            text=messages.email_text(notice), html=messages.email_html(notice), headers=headers)
    try:
        send_message(context.mail, message)
    except MailError as failure:
        raise DeliveryFailed(str(failure)) from None


def send_tests(session: Session, *, rule: AlertRule, recipient_id: str | None,
               context: DeliveryContext) -> list[AlertTestResult]:
    """Sends a test notification to each recipient now (about the project's latest error, if any, as GlitchTip
    does) and logs each in the delivery log."""
    project = session.get(Project, rule.project_id)
    assert project is not None  # the rule was found through it
    wanted = parse_id(recipient_id) if recipient_id is not None else None
    recipients = [r for r in rule.recipients if wanted is None or r.id == wanted]
    latest = session.scalar(select(TrackedError).where(TrackedError.project_id == project.id)
                            .order_by(TrackedError.last_seen_at.desc()).limit(1))
    results: list[AlertTestResult] = []
    for recipient in recipients:
        row = AlertDelivery(rule_id=rule.id, recipient_id=recipient.id, project_id=project.id,
                            error_id=latest.id if latest else None, trigger="test", channel=recipient.recipient_type,
                            target=recipient.target, details={}, status="sending", attempts=1)
        session.add(row)
        session.flush()
        try:
            send(session, recipient, notice_for(session, row=row, rule=rule, project=project, error=latest,
                                                context=context), project=project, context=context)
        except DeliveryFailed as failure:
            row.status, row.last_error = "failed", str(failure)
            results.append(AlertTestResult(recipientType=recipient.recipient_type, status="error",
                                           message=str(failure)))
        else:
            row.status = "sent"
            results.append(AlertTestResult(recipientType=recipient.recipient_type, status="sent", message=None))
        row.finished_at = utcnow()
    return results
