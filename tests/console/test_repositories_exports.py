"""The exports repository against the real server: a request and each look held as the server says them, an
export the server no longer has held as gone, the Overview's figures counted when asked, the history file
taking second place to what is held, and nothing of an earlier connection."""

from __future__ import annotations

import asyncio

import pytest

from console.core.api.client import ApiClient
from console.core.api.exports import ExportsApi, ExportScope
from console.core.exports.store import ExportRecord
from console.core.repositories.exports import EXPORTS, INSTANCE, ExportCounts, ExportsRepository
from console.core.store import Change, Store

GONE_ID = 987_654_321  # no server in these tests has made this many exports


@pytest.mark.asyncio
async def test_a_request_and_its_looks_are_held_and_counted_when_asked(server):
    store, heard = Store(), []
    exports = ExportsRepository(store)
    store.begin("root at the test server")
    store.subscribe(heard.append)
    assert exports.counts() == ExportCounts(running=0, finished=0)
    async with ApiClient(server.url, server.root_token) as client:
        api = ExportsApi(client)
        record = await exports.request(api, ExportScope("instance"), {"export_format": "csv"})
        assert exports.record(record.id) == record and record.request == {"export_format": "csv"}
        assert heard == [Change(EXPORTS, INSTANCE, frozenset({str(record.id)}))]
        for _ in range(200):
            step = await exports.look(api, record.id)
            if step.wait is None:
                break
            await asyncio.sleep(0.1)
        held = exports.record(record.id)
        assert held is not None and held.status == "finished" and held.finished_at and step.announce
        assert exports.counts() == ExportCounts(running=0, finished=1, latest_finished_id=record.id)

        again = await exports.request(api, ExportScope("instance"), {}, replacing=record.id)  # regenerated
        assert exports.record(record.id) is None and [item.id for item in exports.held()] == [again.id]


@pytest.mark.asyncio
async def test_the_history_file_takes_second_place_and_a_vanished_export_is_gone(server):
    store = Store()
    exports = ExportsRepository(store)
    store.begin("root at the test server")
    old = ExportRecord(id=GONE_ID, scope_kind="instance", scope_id=None, scope_label="Instance", status="running",
                       created_at="2026-01-01T00:00:00Z")
    assert not exports.take_history([old])  # the file names every export held
    newer = ExportRecord(id=GONE_ID, scope_kind="instance", scope_id=None, scope_label="Instance",
                         status="finished", created_at="2026-01-01T00:00:00Z")
    store.put(EXPORTS, INSTANCE, str(GONE_ID), newer)
    assert exports.take_history([old])  # what is held is newer: the file must be written again
    assert exports.record(GONE_ID) == newer
    store.put(EXPORTS, INSTANCE, str(GONE_ID), old)
    assert exports.counts().running == 1
    async with ApiClient(server.url, server.root_token) as client:
        step = await exports.look(ExportsApi(client), GONE_ID)  # the server has no such export (404)
    held = exports.record(GONE_ID)
    assert step.wait is None and held is not None and held.gone and exports.counts().running == 0


@pytest.mark.asyncio
async def test_a_request_answered_after_the_connection_changed_holds_nothing(server):
    store = Store()
    exports = ExportsRepository(store)
    store.begin("root at the test server")
    async with ApiClient(server.url, server.root_token) as client:
        late = asyncio.ensure_future(exports.request(ExportsApi(client), ExportScope("instance"), {}))
        await asyncio.sleep(0)  # the request is on its way
        store.begin("another connection")
        record = await late
    assert record.id > 0 and exports.held() == []
