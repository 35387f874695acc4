"""The console's Qt-free client of Sentry's web API against the real server: pages followed through the
``Link`` header's cursors, tag filters, and the answers of a GitLab-shaped server without ``/api/0``."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.errors import Unauthorized
from console.core.api.sentry_events import (
    SentryEventsApi,
    event_exceptions,
    event_tags,
    event_user_label,
    value_query,
)
from tests.sdk_errors import failed_checkouts


@pytest.fixture(scope="module")
def checkouts(server, api) -> dict:
    return failed_checkouts(server, api)


@pytest.fixture(scope="module")
def issue_id(server, checkouts):
    with httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token}) as web:
        return str(web.get(f"/{checkouts['path_with_namespace']}/-/error_tracking.json").json()["errors"][0]["id"])


@pytest.fixture
def with_api(checkouts):
    async def run(url: str, token: str, work):
        async with ApiClient(url, token) as client:
            client.server = await detect_server(client)
            return await work(SentryEventsApi(client, checkouts["path_with_namespace"]))

    return run


def test_stored_events_follow_the_cursors(server, issue_id, with_api):
    async def work(api: SentryEventsApi):
        assert api.available
        return (await api.stored_events(issue_id, per_page=2), await api.stored_events(issue_id, pages=1, per_page=2),
                await api.event(issue_id, "oldest"), await api.event(issue_id, "latest"))

    walked, cut_short, oldest, latest = asyncio.run(with_api(server.url, server.root_token, work))
    assert walked.complete and len(walked.ids) == 3 and len(set(walked.ids)) == 3
    assert walked.ids[0] == latest.id and walked.ids[-1] == oldest.id, "newest first"
    assert not cut_short.complete and cut_short.ids == walked.ids[:2]
    assert walked.describe(oldest.id, 3) == "event 1 of 3"
    assert cut_short.describe(walked.ids[1], 3) == "event 2 from the latest of 3"
    assert oldest.previousEventID is None and oldest.nextEventID == walked.ids[1]
    # The real server's entries read into their declared entities: the raised exception with its frames.
    [raised] = event_exceptions(latest)
    assert raised.type and raised.frames and all(frame.context is not None for frame in raised.frames)


def test_tag_filters_and_facets(server, issue_id, with_api):
    async def work(api: SentryEventsApi):
        facets = {facet.key: facet for facet in await api.tag_facets(issue_id)}
        stripe = next(value for value in facets["payment_provider"].topValues if value.value == "stripe")
        return facets, await api.events(issue_id, query=value_query(stripe))

    facets, page = asyncio.run(with_api(server.url, server.root_token, work))
    assert [(value.value, value.count) for value in facets["payment_provider"].topValues] == [
        ("stripe", 2), ("adyen", 1)]
    assert sorted(event_user_label(event) for event in page.events) == ["ada", "bob"] and page.next_cursor is None
    assert all(event_tags(event)["payment_provider"] == "stripe" for event in page.events)


def test_a_wrong_token_is_refused_in_sentry_words(server, issue_id, checkouts):
    async def work() -> None:
        async with ApiClient(server.url, "glpat-not-a-token") as client:
            await SentryEventsApi(client, checkouts["path_with_namespace"]).issue(issue_id)

    with pytest.raises(Unauthorized) as refused:
        asyncio.run(work())
    assert refused.value.detail == "Invalid token", "Sentry's {\"detail\": ...} body is read"
