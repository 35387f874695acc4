"""Demo errors and release health, fed through the real ingestion path.

The payloads have the shapes the real SDKs send (see the recorded requests in the Sentry
fixtures): sentry-python with `exception.values` and `logentry`, @sentry/node with float
timestamps and no level, raven-node's bare exception list, Go's nanosecond timestamps, Java's
message object and Ruby's empty message. Timestamps are spread over the last 30 days.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import uuid

from sqlalchemy.orm import Session

from outpost_server.db import utcnow
from outpost_server.error_tracking import settings
from outpost_server.error_tracking.digest.batch_store import Accepted, store_batch
from outpost_server.error_tracking.digest.decode import IngestRequest
from outpost_server.error_tracking.digest.normalize import normalize_event
from outpost_server.error_tracking.digest.session_items import SessionUpdate
from outpost_server.error_tracking.ingest.dsn import AuthInfo

DEMO_PROJECTS = ("acme/webshop", "acme/platform/billing")


def _frames(*frames: tuple[str, str, int, bool]) -> dict:
    return {"frames": [{"module": module, "filename": module.replace(".", "/") + ".py", "function": function,
                        "lineno": line, "in_app": in_app} for module, function, line, in_app in frames]}


def _python_key_error(release: str) -> dict:
    return {"platform": "python", "level": "error", "release": release, "environment": "production",
            "exception": {"values": [{"type": "KeyError", "value": "'sku'", "module": None,
                                      "mechanism": {"type": "generic", "handled": True},
                                      "stacktrace": _frames(("flask.app", "dispatch_request", 1799, False),
                                                            ("shop.views", "checkout", 42, True),
                                                            ("shop.cart", "line_total", 17, True))}]}}


def _python_chained(release: str) -> dict:
    return {"platform": "python", "level": "error", "release": release, "environment": "production",
            "exception": {"values": [
                {"type": "FileNotFoundError", "value": "[Errno 2] No such file or directory: 'rates.json'",
                 "stacktrace": _frames(("shop.rates", "load_rates", 8, True))},
                {"type": "RuntimeError", "value": "exchange rates could not be loaded",
                 "stacktrace": _frames(("shop.rates", "current_rates", 21, True))}]}}


def _python_log(release: str) -> dict:
    return {"platform": "python", "level": "error", "logger": "billing", "release": release,
            "environment": "production",
            "logentry": {"message": "Payment %s failed for user %s", "params": [f"pay_{random.randint(100, 999)}",
                                                                                random.randint(1, 90)]}}


def _node_type_error(release: str) -> dict:
    return {"platform": "node", "release": release, "environment": "staging",
            "exception": {"values": [{"type": "TypeError",
                                      "value": "Cannot read properties of undefined (reading 'toFixed')",
                                      "mechanism": {"type": "generic", "handled": True},
                                      "stacktrace": {"frames": [
                                          {"function": "processTicksAndRejections", "module": "task_queues",
                                           "in_app": False},
                                          {"function": "renderInvoice", "module": "invoice", "lineno": 33,
                                           "colno": 18, "in_app": True},
                                          {"function": "formatAmount", "module": "money", "lineno": 7,
                                           "colno": 22, "in_app": True}]}}]}}


def _raven_node_crash(release: str) -> dict:
    return {"platform": "node", "release": release, "environment": "production", "level": "fatal",
            "exception": [{"type": "SyntaxError", "value": "Unexpected token } in JSON at position 14",
                           "stacktrace": {"frames": [{"function": "parseWebhook", "module": "webhooks",
                                                      "lineno": 51, "in_app": True}]}}]}


def _go_timeout(release: str) -> dict:
    return {"platform": "go", "level": "error", "release": release, "environment": "production", "user": {},
            "exception": [{"type": "*url.Error",
                           "value": "Post \"https://psp.example/charge\": context deadline exceeded",
                           "module": "net/url", "stacktrace": {"frames": [
                               {"function": "Charge", "module": "example.com/billing/psp", "lineno": 88,
                                "in_app": True},
                               {"function": "(*Client).Do", "module": "net/http", "lineno": 593}]}}]}


def _java_message(release: str) -> dict:
    return {"platform": "java", "level": "warning", "release": release, "environment": "production",
            "message": {"formatted": "Invoice 2024-118 exported twice"}}


def _ruby_error(release: str) -> dict:
    return {"platform": "ruby", "level": "error", "release": release, "environment": "production", "message": "",
            "exception": {"values": [{"type": "ActiveRecord::RecordNotFound",
                                      "value": "Couldn't find Customer with 'id'=77",
                                      "stacktrace": {"frames": [
                                          {"function": "show", "module": "CustomersController",
                                           "filename": "app/controllers/customers_controller.rb", "lineno": 12,
                                           "in_app": True}]}}]}}


SCENARIOS = {
    "acme/webshop": [(_python_key_error, 40), (_python_chained, 9), (_node_type_error, 25), (_raven_node_crash, 4),
                     (_ruby_error, 12)],
    "acme/platform/billing": [(_python_log, 30), (_go_timeout, 18), (_java_message, 6)],
}
RELEASES = ("1.4.0", "1.5.0", "1.6.0")
USERS = [{"id": f"u-{n}"} for n in range(1, 9)] + [{"email": "ops@example.com"}, {"ip_address": "10.1.2.3"}]


def seed(session: Session, demo) -> None:
    rng = random.Random(20261122)
    now = utcnow()
    for path in DEMO_PROJECTS:
        project = demo.projects.get(path)
        if project is None:
            continue
        settings.save_setting(session, project=project, enabled=True, integrated=True, create=True)
        prefix = path.rsplit("/", 1)[-1]
        batch = []
        for build, count in SCENARIOS[path]:
            for index in range(count):
                release = f"{prefix}@{RELEASES[min(index * len(RELEASES) // count, len(RELEASES) - 1)]}"
                event = build(release)
                # Older releases' events are older; the newest cluster in the last day.
                age = dt.timedelta(days=rng.uniform(0, 28) if index < count // 2 else rng.uniform(0, 1))
                event["event_id"] = uuid.UUID(int=rng.getrandbits(128)).hex
                event["timestamp"] = (now - age).timestamp()
                event["user"] = rng.choice(USERS)
                raw = json.dumps(event).encode()
                normalized = normalize_event(event, received_at=now - age, raw_payload=raw)
                content = IngestRequest(AuthInfo("demo", None), normalized.event_id, [normalized])
                batch.append(Accepted(project.id, content, now - age))
        batch.append(Accepted(project.id, _sessions(prefix, rng, now), now))
        store_batch(session.connection(), batch)


def _sessions(prefix: str, rng: random.Random, now: dt.datetime) -> IngestRequest:
    """Release health: newer releases crash less."""
    request = IngestRequest(AuthInfo("demo", None))
    for release, crash_rate in zip(RELEASES, (0.2, 0.08, 0.02), strict=True):
        for _ in range(60):
            roll = rng.random()
            status = "crashed" if roll < crash_rate else "exited"
            request.sessions.append(SessionUpdate(
                sid=uuid.UUID(int=rng.getrandbits(128)).hex, release=f"{prefix}@{release}", environment="production",
                started=now - dt.timedelta(hours=rng.uniform(0, 24 * 20)), status=status,
                errors=1 if status == "crashed" or roll < crash_rate * 3 else 0))
    return request
