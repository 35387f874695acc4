"""A project's alert rules, their delivery log and test notifications, through GlitchTip's project alerts API
on an Outpost server (``/api/0/projects/:org/:project/alerts/``), and the server's mail settings
(``/application/mail``, an Outpost extension for administrators)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from console.core.api.client import ApiClient
from console.core.api.sentry_events import sentry_project_path


@dataclass(frozen=True)
class Recipient:
    recipient_type: str
    url: str = ""
    addresses: tuple[str, ...] = ()
    id: int | None = None
    has_secret: bool = False
    # Shown once, in the answer that made the recipient (a signed webhook's secret).
    secret: str | None = None
    # GitLab's key as typed, sent once (None: keep the stored one).
    authorization_key: str | None = None

    @property
    def target(self) -> str:
        if self.recipient_type == "email":
            return ", ".join(self.addresses) or "project members"
        if self.recipient_type == "assignee":
            return "the error's assignee"
        return self.url

    def body(self) -> dict[str, Any]:
        item: dict[str, Any] = {"recipientType": self.recipient_type, "url": self.url}
        if self.recipient_type == "email":
            item["addresses"] = list(self.addresses)
        if self.authorization_key:
            item["authorizationKey"] = self.authorization_key
        return item

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Recipient:
        return cls(recipient_type=data["recipientType"], url=data.get("url") or "",
                   addresses=tuple(data.get("addresses") or ()), id=data.get("id"),
                   has_secret=bool(data.get("hasSecret")), secret=data.get("secret"))


@dataclass(frozen=True)
class AlertRule:
    id: int | None
    name: str
    on_new_error: bool = False
    on_regression: bool = False
    quantity: int | None = None
    users: int | None = None
    timespan_minutes: int | None = None
    environments: tuple[str, ...] = ()
    min_level: str | None = None
    release: str | None = None
    cooldown_minutes: int = 60
    hourly_cap: int = 30
    recipients: tuple[Recipient, ...] = field(default_factory=tuple)
    # "A monitor fails" (and recovers), of one monitor when a slug is set.
    on_monitor_failure: bool = False
    monitor_slug: str | None = None

    def body(self) -> dict[str, Any]:
        return {"name": self.name, "onNewError": self.on_new_error, "onRegression": self.on_regression,
                "quantity": self.quantity, "users": self.users, "timespanMinutes": self.timespan_minutes,
                "environments": list(self.environments), "minLevel": self.min_level, "release": self.release,
                "cooldownMinutes": self.cooldown_minutes, "hourlyCap": self.hourly_cap,
                "onMonitorFailure": self.on_monitor_failure, "monitorSlug": self.monitor_slug,
                "alertRecipients": [recipient.body() for recipient in self.recipients]}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> AlertRule:
        return cls(id=data["id"], name=data.get("name") or "", on_new_error=bool(data.get("onNewError")),
                   on_regression=bool(data.get("onRegression")), quantity=data.get("quantity"),
                   users=data.get("users"), timespan_minutes=data.get("timespanMinutes"),
                   environments=tuple(data.get("environments") or ()), min_level=data.get("minLevel"),
                   release=data.get("release"), cooldown_minutes=data.get("cooldownMinutes", 60),
                   hourly_cap=data.get("hourlyCap", 30), on_monitor_failure=bool(data.get("onMonitorFailure")),
                   monitor_slug=data.get("monitorSlug"),
                   recipients=tuple(Recipient.from_json(item) for item in data.get("alertRecipients") or ()))


@dataclass(frozen=True)
class Delivery:
    id: int
    created: str | None
    trigger: str
    channel: str
    target: str
    status: str
    attempts: int
    last_error: str | None
    title: str | None

    @property
    def failing(self) -> bool:
        return self.status == "failed" or bool(self.last_error)


@dataclass(frozen=True)
class TestResult:
    recipient_type: str
    sent: bool
    message: str | None


@dataclass(frozen=True)
class MailStatus:
    configured: bool
    host: str | None
    port: int | None
    security: str | None
    sender: str | None


class AlertsApi:
    def __init__(self, client: ApiClient) -> None:
        self.client = client

    @staticmethod
    def _path(project_path: str) -> str:
        return sentry_project_path(project_path) + "alerts/"

    async def rules(self, project_path: str) -> list[AlertRule]:
        response = await self.client.sentry_request(self._path(project_path))
        return [AlertRule.from_json(item) for item in response.json()]

    async def save(self, project_path: str, rule: AlertRule) -> AlertRule:
        """Creates the rule (no id) or replaces it; the answer carries a new webhook's secret, once."""
        if rule.id is None:
            response = await self.client.sentry_request(self._path(project_path), method="POST", json=rule.body())
        else:
            response = await self.client.sentry_request(f"{self._path(project_path)}{rule.id}/", method="PUT",
                                                        json=rule.body())
        return AlertRule.from_json(response.json())

    async def delete(self, project_path: str, rule_id: int) -> None:
        await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/", method="DELETE")

    async def deliveries(self, project_path: str, rule_id: int) -> list[Delivery]:
        response = await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/deliveries/")
        return [Delivery(id=item["id"], created=item.get("created"), trigger=item["trigger"],
                         channel=item["channel"], target=item["target"], status=item["status"],
                         attempts=item["attempts"], last_error=item.get("lastError"), title=item.get("title"))
                for item in response.json()]

    async def send_test(self, project_path: str, rule_id: int, recipient_id: int | None = None) -> list[TestResult]:
        params = {"recipient_id": recipient_id} if recipient_id is not None else None
        response = await self.client.sentry_request(f"{self._path(project_path)}{rule_id}/test/", method="POST",
                                                    params=params)
        return [TestResult(item["recipientType"], item["status"] == "sent", item.get("message"))
                for item in response.json()]

    async def mail_status(self) -> MailStatus:
        data = await self.client.get_json("/application/mail")
        return MailStatus(configured=bool(data["configured"]), host=data.get("host"), port=data.get("port"),
                          security=data.get("security"), sender=data.get("from"))

    async def send_test_email(self, to: str | None = None) -> str:
        response = await self.client.request("POST", "/application/mail/test", json={"to": to} if to else {})
        return str(response.json()["to"])
