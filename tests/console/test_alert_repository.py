"""The alerts repository (no Qt): rules and delivery logs read from the real server into outpost_model's types,
held per project, dropped with the rule they belong to, nothing written by a read that lands after the
connection changed, and failing deliveries worked out from what is held when asked."""

from __future__ import annotations

import asyncio
from dataclasses import replace

import pytest

from console.core.api.alerts import AlertDelivery, AlertRule, AlertsApi, RecipientDraft, RuleDraft
from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.repositories.alerts import DELIVERIES, AlertsRepository
from console.core.store import Store

PATH = "acme/shop"


def _delivery(delivery_id: int, *, status: str, trigger: str = "new_error", error: str | None = None
              ) -> AlertDelivery:
    return AlertDelivery(id=delivery_id, created="2026-01-01T00:00:00Z", trigger=trigger, channel="json_webhook",
                         target="https://hooks.example.com/x", status=status, attempts=1, lastError=error,
                         issueId=None, nextAttempt=None, finished=None, title="ValueError")


def _rule(rule_id: int, name: str) -> AlertRule:
    return AlertRule(id=rule_id, name=name, timespanMinutes=None, quantity=None, uptime=False, alertRecipients=[],
                     environment="", environments=[], users=None, onNewError=True, onRegression=False,
                     onMonitorFailure=False, monitorSlug=None, minLevel=None, release=None, cooldownMinutes=60,
                     hourlyCap=30)


def test_failing_deliveries_are_worked_out_from_what_is_held_now():
    store = Store()
    alerts = AlertsRepository(store)
    store.begin("one")
    store.put(alerts.kind, PATH, "1", _rule(1, "Hook"))
    store.put(DELIVERIES, PATH, "1", (_delivery(10, status="failed", error="Connection refused"),
                                      _delivery(11, status="sent"), _delivery(12, status="failed", trigger="test")))
    failing = alerts.failing_deliveries(PATH)
    assert list(failing) == [10] and failing[10].rule.name == "Hook"  # test sends left out: the user saw them
    # The retry went through: the next read of the log says so, and nothing kept says otherwise.
    store.put(DELIVERIES, PATH, "1", (_delivery(10, status="sent"), _delivery(11, status="sent")))
    assert alerts.failing_deliveries(PATH) == {}


@pytest.mark.asyncio
async def test_rules_and_logs_are_read_typed_and_go_with_their_rule(server, api):
    project = api.project()
    path = project["path_with_namespace"]
    store = Store()
    alerts = AlertsRepository(store)
    store.begin("root at the test server")
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        alerts_api = AlertsApi(client)
        draft = RuleDraft(name="Night shift", onNewError=True,
                          alertRecipients=(RecipientDraft("email", addresses=("ops@example.com",)),))
        saved = await alerts.save(alerts_api, path, draft, None)
        assert isinstance(saved, AlertRule) and alerts.rule(path, saved.id) == saved
        assert alerts.is_stale(path)  # a save is not a read of the whole list

        other = await alerts_api.save(path, replace(draft, name="Day shift"))  # another console's
        listed = await alerts.fetch(alerts_api, path)
        assert [rule.name for rule in alerts.rules(path)] == ["Night shift", "Day shift"] == [r.name for r in listed]
        assert alerts.rules(path)[1].alertRecipients[0].addresses == ["ops@example.com"]
        assert not alerts.is_stale(path)
        assert await alerts.fetch_deliveries(alerts_api, path, other.id) == []
        assert store.get(DELIVERIES, path, str(other.id)) == ()

        await alerts_api.delete(path, other.id)  # deleted elsewhere: the next read drops it and its log
        await alerts.fetch(alerts_api, path)
        assert [rule.id for rule in alerts.rules(path)] == [saved.id]
        assert store.get(DELIVERIES, path, str(other.id)) is None

        late = asyncio.ensure_future(alerts.fetch(alerts_api, path))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert alerts.rules(path) == [] and alerts.is_stale(path)
