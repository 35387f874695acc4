"""The shown error's repository (no Qt) against the real server: the details and the stack trace read once into
what the store holds, the details shared with every other reader of the error (a newer count reaches them), and
nothing written by a read that lands after the connection changed."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.repositories.errors import ErrorsRepository
from console.core.repositories.shown_error import ShownErrorRepository
from console.core.store import Store
from outpost_model.error_tracking import ExceptionValue
from tests.sdk_errors import failed_checkouts


@pytest.mark.asyncio
async def test_the_shown_error_is_read_into_the_store_and_its_details_shared(server, api):
    checkouts = failed_checkouts(server, api)
    path = checkouts["path_with_namespace"]
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        error_id = str(web.get(f"/{path}/-/error_tracking.json").json()["errors"][0]["id"])
    store = Store()
    shown, errors = ShownErrorRepository(store), ErrorsRepository(store)
    store.begin("root at the test server")
    assert shown.shown(path, error_id) is None and shown.is_stale((path, error_id))
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        api_client = ErrorTrackingApi(client)
        await shown.fetch(api_client, path, error_id)
        held = shown.shown(path, error_id)
        assert held is not None and held.detail.id == error_id and not shown.is_stale((path, error_id))
        assert held.trace.exceptions and all(isinstance(value, ExceptionValue) for value in held.trace.exceptions)
        count = held.detail.error.count

        # Another read (the Events section's issue) knows of one more event: the shown error says so too.
        errors.take_counts(path, error_id, count=count + 1, user_count=1, last_seen=None)
        held = shown.shown(path, error_id)
        assert held is not None and held.detail.error.count == count + 1

        late = asyncio.ensure_future(shown.fetch(api_client, path, error_id))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert shown.shown(path, error_id) is None
