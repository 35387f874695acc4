"""The alert rule editor's logic, without Qt: what the form holds, why it cannot be saved yet (checked as
the user types, with the server's own rules), and the rule it becomes."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from console.core.api.alerts import AlertRule, RecipientDraft, RuleDraft

LEVELS = ("", "debug", "info", "warning", "error", "fatal")
# (value, label) of the channels, in the order the editor offers them.
CHANNELS = (("email", "Email"), ("webhook", "Slack / Mattermost"), ("discord", "Discord"),
            ("json_webhook", "Webhook (signed JSON)"), ("gitlab", "GitLab alert endpoint"),
            ("assignee", "Email to the error's assignee"))
# Channels with nothing to enter: the server knows where to send.
NO_TARGET = ("assignee",)
CHANNEL_LABELS = dict(CHANNELS)
_EMAIL = re.compile(r"\A[^@\s,;<>]+@[^@\s,;<>]+\.[^@\s,;<>]+\Z")


@dataclass
class RuleForm:
    name: str = ""
    on_new_error: bool = True
    on_regression: bool = False
    count_events: bool = False
    quantity: int = 10
    count_users: bool = False
    users: int = 5
    timespan_minutes: int = 5
    environments: str = ""
    min_level: str = ""
    release: str = ""
    cooldown_minutes: int = 60
    hourly_cap: int = 30
    recipients: list[RecipientDraft] = field(default_factory=list)
    on_monitor_failure: bool = False
    monitor_slug: str = ""

    @classmethod
    def of(cls, rule: AlertRule) -> RuleForm:
        return cls(name=rule.name or "", on_new_error=rule.onNewError, on_regression=rule.onRegression,
                   count_events=rule.quantity is not None, quantity=rule.quantity or 10,
                   count_users=rule.users is not None, users=rule.users or 5,
                   timespan_minutes=rule.timespanMinutes or 5, environments=", ".join(rule.environments),
                   min_level=rule.minLevel or "", release=rule.release or "",
                   cooldown_minutes=rule.cooldownMinutes, hourly_cap=rule.hourlyCap,
                   recipients=[RecipientDraft.of(recipient) for recipient in rule.alertRecipients],
                   on_monitor_failure=rule.onMonitorFailure, monitor_slug=rule.monitorSlug or "")

    def environment_names(self) -> tuple[str, ...]:
        return tuple(sorted({name.strip() for name in self.environments.split(",") if name.strip()}))

    def problems(self) -> list[str]:
        """Why the rule cannot be saved yet, in words; empty when it can."""
        found = []
        if not self.name.strip():
            found.append("Give the rule a name.")
        if not (self.on_new_error or self.on_regression or self.count_events or self.count_users
                or self.on_monitor_failure):
            found.append("Choose at least one condition.")
        if len(self.name) > 255:
            found.append("The name is longer than 255 characters.")
        if not self.recipients:
            found.append("Add a recipient: a rule without one notifies nobody.")
        return found

    def to_rule(self) -> RuleDraft:
        counting = self.count_events or self.count_users
        return RuleDraft(
            name=self.name.strip(), onNewError=self.on_new_error, onRegression=self.on_regression,
            quantity=self.quantity if self.count_events else None, users=self.users if self.count_users else None,
            timespanMinutes=self.timespan_minutes if counting else None, environments=self.environment_names(),
            minLevel=self.min_level or None, release=self.release.strip() or None,
            cooldownMinutes=self.cooldown_minutes, hourlyCap=self.hourly_cap, alertRecipients=tuple(self.recipients),
            onMonitorFailure=self.on_monitor_failure, monitorSlug=self.monitor_slug.strip() or None)


def recipient_problem(channel: str, target: str, key: str, *, stored: bool = False) -> str | None:
    """Why this recipient cannot be added, or None. `stored`: GitLab's key is kept on the server already."""
    target = target.strip()
    if channel in NO_TARGET:
        return None
    if channel == "email":
        addresses = [part.strip() for part in target.split(",") if part.strip()]
        bad = [address for address in addresses if not _EMAIL.match(address)]
        return f"Not an email address: {', '.join(bad)}" if bad else None
    if not target.lower().startswith(("http://", "https://")):
        return "Enter the receiver's http:// or https:// URL."
    if channel == "gitlab" and not key.strip() and not stored:
        return "Enter the authorization key of GitLab's HTTP alert endpoint."
    return None


def make_recipient(channel: str, target: str, key: str) -> RecipientDraft:
    if channel in NO_TARGET:
        return RecipientDraft(channel)
    if channel == "email":
        return RecipientDraft("email", addresses=tuple(sorted({p.strip() for p in target.split(",") if p.strip()})))
    return RecipientDraft(channel, url=target.strip(), authorizationKey=key.strip() or None)
