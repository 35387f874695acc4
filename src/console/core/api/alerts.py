"""A project's alert rules, their delivery log and test notifications, through GlitchTip's project alerts API
on an Outpost server (``/api/0/projects/:org/:project/alerts/``), and the server's mail settings
(``/application/mail``, an Outpost extension for administrators)."""

from __future__ import annotations

from dataclasses import dataclass, field

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_project_path
from outpost_model import decode
from outpost_model.alerts import AlertDelivery, AlertRecipient, AlertRule, AlertTestResult
from outpost_model.instance import MailSettings, MailTest

__all__ = ["AlertDelivery", "AlertRecipient", "AlertRule", "AlertTestResult", "AlertsApi", "MailSettings",
           "RecipientDraft", "RuleDraft", "delivery_failing", "recipient_target"]


def recipient_target(recipient: AlertRecipient | RecipientDraft) -> str:
    """Where a recipient's notifications go, in words."""
    if recipient.recipientType == "email":
        return ", ".join(recipient.addresses) or "project members"
    if recipient.recipientType == "assignee":
        return "the error's assignee"
    return recipient.url or ""


def delivery_failing(delivery: AlertDelivery) -> bool:
    return delivery.status == "failed" or bool(delivery.lastError)


@dataclass(frozen=True)
class RecipientDraft:
    """A recipient as the rule editor holds it and sends it (GlitchTip's AlertRecipientIn, with Outpost's
    addresses and GitLab's authorization key); the server answers an :class:`AlertRecipient`."""

    recipientType: str
    url: str = ""
    addresses: tuple[str, ...] = ()
    # GitLab's key as typed, sent once (None: keep the stored one).
    authorizationKey: str | None = None

    @classmethod
    def of(cls, recipient: AlertRecipient) -> RecipientDraft:
        return cls(recipientType=recipient.recipientType, url=recipient.url or "",
                   addresses=tuple(recipient.addresses))

    def body(self) -> dict[str, object]:
        item: dict[str, object] = {"recipientType": self.recipientType, "url": self.url}
        if self.recipientType == "email":
            item["addresses"] = list(self.addresses)
        if self.authorizationKey:
            item["authorizationKey"] = self.authorizationKey
        return item


@dataclass(frozen=True)
class RuleDraft:
    """A rule as the editor sends it (GlitchTip's ProjectAlertIn in camelCase, with Outpost's fields); the
    server answers an :class:`AlertRule`."""

    name: str
    onNewError: bool = False
    onRegression: bool = False
    quantity: int | None = None
    users: int | None = None
    timespanMinutes: int | None = None
    environments: tuple[str, ...] = ()
    minLevel: str | None = None
    release: str | None = None
    cooldownMinutes: int = 60
    hourlyCap: int = 30
    alertRecipients: tuple[RecipientDraft, ...] = field(default_factory=tuple)
    # "A monitor fails" (and recovers), of one monitor when a slug is set.
    onMonitorFailure: bool = False
    monitorSlug: str | None = None

    def body(self) -> dict[str, object]:
        return {**{name: getattr(self, name) for name in (
                    "name", "onNewError", "onRegression", "quantity", "users", "timespanMinutes", "minLevel",
                    "release", "cooldownMinutes", "hourlyCap", "onMonitorFailure", "monitorSlug")},
                "environments": list(self.environments),
                "alertRecipients": [recipient.body() for recipient in self.alertRecipients]}


class AlertsApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @staticmethod
    def _path(project_path: str) -> str:
        return sentry_project_path(project_path) + "alerts/"

    async def rules(self, project_path: str) -> list[AlertRule]:
        response = await self.client.sentry_request(self._path(project_path))
        return decode(response.content, list[AlertRule])

    async def save(self, project_path: str, rule: RuleDraft, rule_id: int | None = None) -> AlertRule:
        """Creates the rule (``rule_id`` None) or replaces it; the answer carries a new webhook's secret, once."""
        if rule_id is None:
            response = await self.client.sentry_request(self._path(project_path), method="POST", json=rule.body())
        else:
            response = await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/", method="PUT",
                                                        json=rule.body())
        return decode(response.content, AlertRule)

    async def delete(self, project_path: str, rule_id: int) -> None:
        await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/", method="DELETE")

    async def deliveries(self, project_path: str, rule_id: int) -> list[AlertDelivery]:
        response = await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/deliveries/")
        return decode(response.content, list[AlertDelivery])

    async def send_test(self, project_path: str, rule_id: int, recipient_id: int | None = None
                        ) -> list[AlertTestResult]:
        params = {"recipient_id": recipient_id} if recipient_id is not None else None
        response = await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/test/", method="POST",
                                                    params=params)
        return decode(response.content, list[AlertTestResult])

    async def mail_status(self) -> MailSettings:
        response = await self.client.request("GET", "/application/mail")
        return decode(response.content, MailSettings)

    async def send_test_email(self, to: str | None = None) -> str:
        """The address the server sent the test to."""
        response = await self.client.request("POST", "/application/mail/test", json={"to": to} if to else {})
        return decode(response.content, MailTest).to
