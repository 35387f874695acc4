"""The typed repositories (no Qt): freshness per read, nothing of an earlier connection (not even a read that lands
after it changed), list reads told even when they found the same, counts that only grow, and figures worked out
when asked, against the real server where they read."""

from __future__ import annotations

import asyncio

import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorPage, ErrorSummary
from console.core.api.monitors import MonitorsApi
from console.core.errors import records
from console.core.repositories.errors import NEWS, ErrorsRepository, ListQuery
from console.core.repositories.monitors import MonitorsRepository
from console.core.store import Change, Store
from tests.console.error_details import details
from tests.sdk_errors import nightly_report

PATH = "acme/shop"


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def summary(error_id: str, *, count: int = 1) -> ErrorSummary:
    return ErrorSummary(id=error_id, title=f"ValueError: {error_id}", type="error", count=count, user_count=1,
                        first_seen="2026-01-01T00:00:00Z", last_seen="2026-01-01T00:00:00Z", status="unresolved",
                        culprit=None, message=None, frequency=())


def test_a_list_read_is_held_per_query_in_order_and_its_age_known():
    clock, store = Clock(), Store()
    errors = ErrorsRepository(store, clock=clock)
    store.begin("one")
    assert errors.listed(PATH, NEWS) is None and errors.is_list_stale(PATH, NEWS)
    errors.hold(PATH, NEWS, ErrorPage([summary("2"), summary("1")], "next"))
    page = errors.listed(PATH, NEWS)
    assert page is not None and [error.id for error in page.errors] == ["2", "1"] and page.next_cursor == "next"
    assert errors.listed(PATH, ListQuery(status="resolved")) is None
    assert not errors.is_list_stale(PATH, NEWS)
    clock.now += 5
    assert errors.is_list_stale(PATH, NEWS) and not errors.is_list_stale(PATH, NEWS, older_than=10)
    store.begin("two")  # another connection: nothing read from the first is fresh, or held
    assert errors.listed(PATH, NEWS) is None and errors.age((PATH, NEWS.key)) is None


def test_every_list_read_is_told_even_one_that_found_the_same():
    clock, store, heard = Clock(), Store(), []
    errors = ErrorsRepository(store, clock=clock)
    errors.hold(PATH, NEWS, ErrorPage([summary("1")], None))
    store.subscribe(heard.append)
    clock.now += 1
    errors.hold(PATH, NEWS, ErrorPage([summary("1")], None))
    assert heard == [Change(ErrorsRepository.kind, PATH, frozenset({NEWS.key}))]


def test_another_reads_counts_reach_the_row_and_the_detail_but_never_go_back():
    store = Store()
    errors = ErrorsRepository(store)
    errors.hold(PATH, NEWS, ErrorPage([summary("1", count=39)], None))
    store.put(records.DETAIL, PATH, "1", details("1", count=39, user_count=1))
    errors.take_counts(PATH, "1", count=40, user_count=2, last_seen="2026-01-02T00:00:00Z")
    held = errors.summary(PATH, "1")
    assert held is not None and (held.count, held.user_count, held.last_seen) == (40, 2, "2026-01-02T00:00:00Z")
    detail = errors.detail(PATH, "1")
    assert detail is not None and detail.error.count == 40 and detail.error.userCount == 2
    assert detail.error.lastSeen == "2026-01-02T00:00:00Z" and detail.error.title == "ValueError: x"
    errors.take_counts(PATH, "1", count=38, user_count=1, last_seen=None)  # an older read
    held = errors.summary(PATH, "1")
    assert held is not None and held.count == 40


@pytest.mark.asyncio
async def test_monitors_are_read_into_the_repository_their_failing_counted_when_asked(server, api):
    project = api.project()
    path = project["path_with_namespace"]
    check_in = nightly_report(server, api, project)
    check_in("ok")
    store = Store()
    monitors = MonitorsRepository(store)
    store.begin("root at the test server")
    assert monitors.failing(path) is None  # never read: no figure rather than a zero
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        read = await monitors.fetch(MonitorsApi(client), path, project["id"])
        assert [monitor.slug for monitor in read] == ["nightly-report"] and monitors.failing(path) == 0
        check_in("error")
        await monitors.fetch(MonitorsApi(client), path, project["id"])
        assert monitors.failing(path) == 1  # from what is held now, not from the read that first drew it
        [held] = monitors.monitors(path) or []
        paused = await monitors.update(MonitorsApi(client), path, held.id, paused=True)
        assert MonitorsRepository.is_paused(paused) and monitors.failing(path) == 0  # paused ones are not counted

        late = asyncio.ensure_future(monitors.fetch(MonitorsApi(client), path, project["id"]))
        await asyncio.sleep(0)  # the read is on its way
        store.begin("another connection")  # and lands after the connection changed
        await late
        assert monitors.monitors(path) is None and monitors.is_stale(path)
