"""Projects with error tracking, events sent to the collector, and the alerts API, as tests use them."""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import sqlalchemy

from tests.support import ApiHelper, RunningServer, start_server


@dataclass
class AlertProject:
    server: RunningServer
    id: int
    path: str
    public_key: str

    @property
    def alerts_path(self) -> str:
        organization, _, below = self.path.partition("/")
        return f"/projects/{organization}/{below.replace('/', '~')}/alerts/"

    def sentry(self, token: str | None = None) -> httpx.Client:
        return httpx.Client(base_url=self.server.url + "/api/0", timeout=30,
                            headers={"Authorization": f"Bearer {token or self.server.root_token}"})

    def send(self, title: str, *, environment: str | None = "production", level: str = "error",
             user: str | None = None, release: str | None = None) -> str:
        """Posts one event to the collector (the store endpoint, as raven-python does); its event id."""
        event: dict[str, Any] = {
            "event_id": uuid.uuid4().hex, "timestamp": time.time(), "platform": "python", "level": level,
            "exception": {"values": [{"type": "RuntimeError", "value": title, "stacktrace": {"frames": [
                {"filename": "shop/views.py", "function": "checkout", "lineno": 42, "in_app": True},
                {"filename": "shop/payment.py", "function": "charge", "lineno": 7, "in_app": True}]}}]},
            "fingerprint": [title]}
        if environment:
            event["environment"] = environment
        if release:
            event["release"] = release
        if user:
            event["user"] = {"id": user}
        response = httpx.post(f"{self.server.url}/api/v4/error_tracking/collector/api/{self.id}/store", json=event,
                              headers={"X-Sentry-Auth": f"Sentry sentry_key={self.public_key}"}, timeout=30)
        assert response.status_code == 200, response.text
        return event["event_id"]

    def create_rule(self, body: dict[str, Any]) -> dict[str, Any]:
        with self.sentry() as client:
            response = client.post(self.alerts_path, json=body)
        assert response.status_code == 201, response.text
        return response.json()

    def deliveries(self, rule_id: int) -> list[dict[str, Any]]:
        with self.sentry() as client:
            response = client.get(f"{self.alerts_path}{rule_id}/deliveries/")
        assert response.status_code == 200, response.text
        return response.json()


def alert_project(server: RunningServer, helper: ApiHelper | None = None, *, group_id: int | None = None
                  ) -> AlertProject:
    helper = helper or ApiHelper(server)
    project = helper.project(group_id=group_id)
    helper.root.put(f"/projects/{project['id']}/error_tracking/settings",
                    json={"active": True, "integrated": True}).raise_for_status()
    key = helper.root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()[0]["public_key"]
    return AlertProject(server, project["id"], project["path_with_namespace"], key)


@contextlib.contextmanager
def mailing_server(data_dir, mail_port: int) -> Iterator[RunningServer]:
    """A server sending its mail to 127.0.0.1:`mail_port`, retrying deliveries quickly, that may post to
    local receivers."""
    env = {"OUTPOST_SMTP_HOST": "127.0.0.1", "OUTPOST_SMTP_PORT": str(mail_port),
           "OUTPOST_MAIL_FROM": "alerts@outpost.example.com", "OUTPOST_ALERT_RETRY_SECONDS": "0.5"}
    with start_server(data_dir, extra_env=env) as running:
        allow_local_requests(running)
        yield running


def allow_local_requests(server: RunningServer, allowed: bool = True) -> None:
    with server.client() as client:
        client.put("/application/settings",
                   json={"allow_local_requests_from_web_hooks_and_services": allowed}).raise_for_status()


@contextlib.contextmanager
def database(server: RunningServer) -> Iterator[sqlalchemy.Connection]:
    """A connection to the running server's own database, to check what it stored."""
    url = server.env.get("OUTPOST_DATABASE_URL") or f"sqlite:///{server.data_dir / 'outpost.sqlite3'}"
    engine = sqlalchemy.create_engine(url)
    try:
        with engine.connect() as connection:
            yield connection
    finally:
        engine.dispose()
