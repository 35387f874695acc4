"""Rules and recipients: saving them (with the URL policy checked at save time), reading them, the delivery log."""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from outpost_server.accounts.models import GroupMember, Namespace, Project, ProjectMember, User
from outpost_server.db import parse_id, utcnow
from outpost_server.outbound.url_policy import BlockedUrl, LocalNetworkBlocked, check_url, local_requests_allowed
from outpost_server.security import SecretBox

from .models import AlertDelivery, AlertRecipient, AlertRule, AlertRulesVersion
from .rule_input import (
    DEFAULT_COOLDOWN_MINUTES,
    DEFAULT_HOURLY_CAP,
    RecipientInput,
    RuleInput,
    RuleInvalid,
    check_complete,
)

# What stands for the part of a webhook URL only Maintainers see (GitLab's masked value).
MASK = "*****"
RULE_DEFAULTS: dict[str, Any] = {
    "name": "", "timespan_minutes": None, "quantity": None, "users": None, "on_new_error": False,
    "on_regression": False, "on_monitor_failure": False, "monitor_slug": None,
    "environments": [], "min_level": None, "release": None,
    "cooldown_minutes": DEFAULT_COOLDOWN_MINUTES, "hourly_cap": DEFAULT_HOURLY_CAP,
}


@dataclass
class SavedRule:
    rule: AlertRule
    # Webhook signing secrets made by this save, by recipient id: shown once, in this answer only.
    new_secrets: dict[int, str] = field(default_factory=dict)


def rules_of(session: Session, *, project: Project) -> list[AlertRule]:
    return list(session.scalars(select(AlertRule).where(AlertRule.project_id == project.id).order_by(AlertRule.id)))


def find_rule(session: Session, *, project: Project, rule_id: str | int) -> AlertRule | None:
    row_id = parse_id(rule_id)
    rule = session.get(AlertRule, row_id) if row_id is not None else None
    return rule if rule is not None and rule.project_id == project.id else None


def create_rule(session: Session, *, project: Project, data: RuleInput, box: SecretBox, link_base: str) -> SavedRule:
    values = {**RULE_DEFAULTS, **data.fields}
    _check(session, values, data.recipients or [], box)
    rule = AlertRule(project_id=project.id, link_base=link_base[:255], **values)
    session.add(rule)
    session.flush()
    saved = SavedRule(rule)
    _replace_recipients(session, saved, data.recipients or [], box)
    _bump_version(session)
    return saved


def update_rule(session: Session, *, rule: AlertRule, data: RuleInput, box: SecretBox, link_base: str) -> SavedRule:
    values = {name: getattr(rule, name) for name in RULE_DEFAULTS} | data.fields
    recipients = data.recipients
    current = [RecipientInput(r.recipient_type, recipient_url(r, box), list(r.addresses)) for r in rule.recipients]
    _check(session, values, recipients if recipients is not None else current, box, existing=rule)
    for name, value in values.items():
        setattr(rule, name, value)
    rule.link_base = link_base[:255]
    rule.updated_at = utcnow()
    saved = SavedRule(rule)
    if recipients is not None:
        _replace_recipients(session, saved, recipients, box)
    _bump_version(session)
    session.flush()
    return saved


def delete_rule(session: Session, *, rule: AlertRule) -> None:
    session.delete(rule)
    _bump_version(session)
    session.flush()


def blocked_text(blocked: BlockedUrl) -> str:
    """`url is blocked: <GitLab's reason>`, and for a local target the setting that allows it."""
    text = f"url is blocked: {blocked}"
    if isinstance(blocked, LocalNetworkBlocked):
        text += (". An administrator allows it with the application setting "
                 "allow_local_requests_from_web_hooks_and_services.")
    return text


def _check(session: Session, values: dict[str, Any], recipients: list[RecipientInput], box: SecretBox,
           existing: AlertRule | None = None) -> None:
    messages = check_complete(values)
    allow_local = local_requests_allowed(session)
    stored_keys = {(r.recipient_type, recipient_url(r, box)) for r in existing.recipients
                   if r.encrypted_secret} if existing else set()
    # Recipients are named by their position counted from 1, as a person counts them.
    for position, recipient in enumerate(recipients, start=1):
        if recipient.url:
            try:
                check_url(recipient.url, allow_local=allow_local)
            except BlockedUrl as blocked:
                messages.setdefault("alertRecipients", []).append(f"recipient {position}: {blocked_text(blocked)}")
        if (recipient.recipient_type == "gitlab" and recipient.authorization_key is None
                and ("gitlab", recipient.url) not in stored_keys):
            messages.setdefault("alertRecipients", []).append(
                f"recipient {position}: authorizationKey is required (GitLab's key of the HTTP endpoint).")
    if messages:
        raise RuleInvalid(messages)


def _replace_recipients(session: Session, saved: SavedRule, wanted: list[RecipientInput], box: SecretBox) -> None:
    """As GlitchTip: recipients matching one given (type and url) stay, with their id and secret; others go."""
    rule = saved.rule
    existing = {(r.recipient_type, recipient_url(r, box), tuple(r.addresses)): r for r in rule.recipients}
    keep = []
    for item in wanted:
        recipient = existing.pop((item.recipient_type, item.url, tuple(item.addresses)), None)
        if recipient is None:
            recipient = AlertRecipient(rule_id=rule.id, recipient_type=item.recipient_type,
                                       encrypted_url=box.encrypt(item.url) if item.url else "",
                                       target=target_of(item.recipient_type, item.url, item.addresses),
                                       addresses=list(item.addresses))
            if item.recipient_type == "json_webhook":
                secret = "whsec_" + secrets.token_urlsafe(32)
                recipient.encrypted_secret = box.encrypt(secret)
                session.add(recipient)
                session.flush()
                saved.new_secrets[recipient.id] = secret
        if item.authorization_key is not None:
            recipient.encrypted_secret = box.encrypt(item.authorization_key)
        keep.append(recipient)
    for gone in existing.values():
        session.delete(gone)
    rule.recipients = keep
    session.flush()


def _bump_version(session: Session) -> None:
    session.execute(update(AlertRulesVersion).where(AlertRulesVersion.id == 1)
                    .values(version=AlertRulesVersion.version + 1))


def target_of(recipient_type: str, url: str, addresses: list[str]) -> str:
    """What the delivery log may show: the addresses, or the URL's scheme, host and port (paths carry tokens)."""
    if recipient_type == "email":
        return ", ".join(addresses) or "project members"
    if recipient_type == "assignee":
        return "the error's assignee"
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc.rpartition('@')[2]}"


def recipient_url(recipient: AlertRecipient, box: SecretBox) -> str:
    """The webhook's URL in clear ("" for email, or when OUTPOST_SECRET_KEY changed and it cannot be read)."""
    return (box.decrypt(recipient.encrypted_url) or "") if recipient.encrypted_url else ""


def shown_url(recipient: AlertRecipient, box: SecretBox, *, maintainer: bool) -> str:
    """The URL as the API shows it: whole to the project's Maintainers, else only its scheme and host, the
    rest masked (a Slack or Discord URL's path is its token)."""
    if maintainer or not recipient.encrypted_url:
        return recipient_url(recipient, box)
    return f"{recipient.target}/{MASK}"


def member_addresses(session: Session, project: Project) -> list[str]:
    """Emails of the project's active members, direct or through its groups."""
    namespace_ids = []
    namespace: Namespace | None = project.namespace
    while namespace is not None:
        namespace_ids.append(namespace.id)
        namespace = session.get(Namespace, namespace.parent_id) if namespace.parent_id else None
    direct = select(ProjectMember.user_id).where(ProjectMember.project_id == project.id)
    inherited = select(GroupMember.user_id).where(GroupMember.group_id.in_(namespace_ids))
    owners = select(Namespace.owner_id).where(Namespace.id == project.namespace_id, Namespace.owner_id.is_not(None))
    emails = session.scalars(select(User.email).where(
        User.id.in_(direct.union(inherited, owners)), User.state == "active").order_by(User.email))
    return [email for email in emails if email]


def deliveries_of(session: Session, *, rule: AlertRule, limit: int, offset: int) -> list[AlertDelivery]:
    return list(session.scalars(select(AlertDelivery).where(AlertDelivery.rule_id == rule.id)
                                .order_by(AlertDelivery.id.desc()).limit(limit).offset(offset)))
