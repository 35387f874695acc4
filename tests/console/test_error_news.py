"""console.core.error_news without Qt, against the real server with errors sent by the real Python SDK: the first
look is no news, looks at one project take turns so a change is news once however many look at once, and a
connection change forgets every project."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from console.core.api.client import ApiClient
from console.core.api.detection import detect_server
from console.core.api.error_tracking import ErrorTrackingApi
from console.core.error_news import ErrorNews
from console.core.errors import records
from console.core.repositories.errors import ErrorsRepository
from console.core.store import Store
from tests.sdk_errors import enable_integrated, send_errors, wait_for_list


@pytest.mark.asyncio
async def test_looks_at_once_announce_each_change_once(server, api):
    project = api.project()
    path = project["path_with_namespace"]
    dsn = enable_integrated(api.root, project["id"])
    send_errors(dsn, "old trouble")
    web = httpx.Client(base_url=server.url, headers={"PRIVATE-TOKEN": server.root_token})
    old = wait_for_list(web, path, lambda body: len(body["errors"]) == 1)["errors"][0]
    store, said = Store(), []
    store.begin("root at the test server")
    news = ErrorNews(ErrorsRepository(store),
                     lambda title, message, target: said.append((f"{title}: {message}", target)))
    async with ApiClient(server.url, server.root_token) as client:
        client.server = await detect_server(client)
        errors = ErrorTrackingApi(client)
        await news.look(errors, path)
        assert said == [] and news.has_looked(path)  # what was there is not news

        web.put(f"/{path}/-/error_tracking/{old['id']}.json", json={"status": "resolved"}).raise_for_status()
        send_errors(dsn, "new trouble")
        send_errors(dsn, "old trouble")  # last, so the newest: a look in the same second asks about it again
        wait_for_list(web, path, lambda body: len(body["errors"]) == 2)
        await asyncio.gather(*(news.look(errors, path) for _ in range(3)))
        new_id = next(error["id"] for error in web.get(f"/{path}/-/error_tracking.json").json()["errors"]
                      if error["title"] == "new trouble")
        assert sorted(said) == [(f"New error in {path}: new trouble", ("errors", (path, str(new_id)))),
                                (f"Regressed error in {path}: old trouble", ("errors", (path, str(old["id"]))))]
        held = store.get(records.SUMMARY, path, str(old["id"]))
        assert held is not None and held.count == 2  # what a look reads is in the store

        store.begin("another user")  # a connection change: the next look is a first look again
        assert not news.has_looked(path)
        await news.look(errors, path)
        assert len(said) == 2
    web.close()
