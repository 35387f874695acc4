"""Alert notifications are written once per trigger and delivered once: by two replicas sharing PostgreSQL,
and by a server killed after the trigger was committed and before it was sent, once it is started again."""

from __future__ import annotations

import signal
import threading

import pytest

from tests.e2e.test_replicas import replicas
from tests.server.alerts.flows import AlertProject, alert_project, allow_local_requests
from tests.server.alerts.receivers import HttpReceiver, eventually, receiver  # noqa: F401
from tests.support import ApiHelper, launch_server


def _delivered(project: AlertProject, rule_id: int, count: int) -> list[dict]:
    def probe():
        rows = project.deliveries(rule_id)
        return rows if len(rows) >= count and all(row["status"] == "sent" for row in rows) else None
    return eventually(probe, timeout=60, what=f"{count} sent deliveries")


@pytest.mark.postgres
def test_two_replicas_deliver_each_trigger_once(tmp_path, receiver: HttpReceiver):  # noqa: F811
    with replicas(tmp_path) as (a, b):
        allow_local_requests(a)
        project = alert_project(a, ApiHelper(a))
        on_b = AlertProject(b, project.id, project.path, project.public_key)
        rule = project.create_rule({"onNewError": True, "alertRecipients": [
            {"recipientType": "json_webhook", "url": receiver.url + "/once"}]})
        titles = [f"Replicated {number}" for number in range(8)]
        for number, title in enumerate(titles):
            (project if number % 2 else on_b).send(title)
        # One more error, sent to both replicas at the same moment: only one of them may find it new.
        racers = [threading.Thread(target=side.send, args=("Raced",)) for side in (project, on_b)]
        for thread in racers:
            thread.start()
        for thread in racers:
            thread.join()
        rows = _delivered(project, rule["id"], len(titles) + 1)
        assert len(rows) == len(titles) + 1
        received = [request.json() for request in receiver.at("/once")]
        assert sorted(payload["delivery"] for payload in received) == sorted(row["id"] for row in rows)
        assert sorted(payload["error"]["title"] for payload in received) == sorted(
            f"RuntimeError: {title}" for title in [*titles, "Raced"])


def test_a_trigger_committed_before_a_kill_is_delivered_after_the_restart(tmp_path, receiver: HttpReceiver):  # noqa: F811
    # The first run digests and commits the outbox row but has no sender; it is then killed outright.
    first = launch_server(tmp_path, extra_env={"OUTPOST_ALERT_SENDER": "false"})
    try:
        allow_local_requests(first)
        project = alert_project(first, ApiHelper(first))
        rule = project.create_rule({"onNewError": True, "alertRecipients": [
            {"recipientType": "webhook", "url": receiver.url + "/after-restart"}]})
        project.send("Committed, not sent")
        first.wait_for_digest()
        [pending] = project.deliveries(rule["id"])
        assert pending["status"] == "pending"
    finally:
        first.stop(signal.SIGKILL)
    assert receiver.requests == []
    second = launch_server(tmp_path, root_token=first.root_token)
    try:
        restarted = AlertProject(second, project.id, project.path, project.public_key)
        [sent] = _delivered(restarted, rule["id"], 1)
        assert sent["id"] == pending["id"] and sent["attempts"] == 1
        [request] = receiver.at("/after-restart")
        assert request.json()["attachments"][0]["title"] == "RuntimeError: Committed, not sent"
    finally:
        second.stop()
