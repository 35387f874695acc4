"""The events repository (no Qt) against the real server: an error's issue, stored events' ids and facets read
once and held with the errors repository taking the issue's counts, each event held under its id, a recount
replacing the held ids, the listed-error check honoured, and nothing written by a read that lands after the
connection changed."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorPage, ErrorSummary
from console.core.api.sentry_events import SentryEventsApi, issue_count
from console.core.repositories.errors import NEWS, ErrorsRepository
from console.core.repositories.events import EventsRepository
from console.core.store import Store
from tests.sdk_errors import failed_checkouts


@pytest.mark.asyncio
async def test_an_errors_history_is_held_and_its_counts_reach_the_list(server, api):
    checkouts = failed_checkouts(server, api)
    path = checkouts["path_with_namespace"]
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        listed = web.get(f"/{path}/-/error_tracking.json").json()["errors"][0]
    error_id = str(listed["id"])
    store = Store()
    errors = ErrorsRepository(store)
    events = EventsRepository(store, errors)
    store.begin("root at the test server")
    # The list knew of fewer events than the server has now.
    errors.hold(path, NEWS, ErrorPage([ErrorSummary(
        id=error_id, title="", type=None, count=1, user_count=1, first_seen=None, last_seen=None,
        status="unresolved", culprit=None, message=None, frequency=())], None))
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        sentry = SentryEventsApi(client, path)
        assert await events.fetch_history(sentry, path, error_id, lambda _issue: False) is None  # not the listed one
        assert events.history(path, error_id) is None

        history = await events.fetch_history(sentry, path, error_id, lambda _issue: True)
        assert history is not None and events.history(path, error_id) == history
        assert len(history.stored.ids) == issue_count(history.issue) == 3 and history.facets
        summary = errors.summary(path, error_id)
        assert summary is not None and summary.count == 3, "the issue's count reached the list's row"

        latest = await events.fetch_event(sentry, path, error_id, "latest")
        assert events.event(path, error_id, latest.eventID) == latest and latest.eventID == history.stored.ids[0]
        again = await events.recount(sentry, path, error_id)
        held = events.history(path, error_id)
        assert held is not None and held.stored == again

        late = asyncio.ensure_future(events.fetch_history(sentry, path, error_id, lambda _issue: True))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert events.history(path, error_id) is None and events.event(path, error_id, latest.eventID) is None
