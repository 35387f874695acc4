"""Sentry's default scrubbing reaches the query of every URL an event carries, not only the request's: a
breadcrumb's `data.url` of `https://x/?token=…` keeps its address and loses the token, as its
`data.password` becomes `[Filtered]`; names that are not sensitive keep their values."""

from __future__ import annotations

import secrets
import uuid

from .conftest import make_tracked_project, server_sessionmaker
from .test_pipeline import files_holding, post_event


def test_a_breadcrumbs_url_query_is_scrubbed(server):
    token, password = secrets.token_hex(12), secrets.token_hex(12)
    tracked = make_tracked_project(server, server_sessionmaker(server))
    event = {
        "event_id": uuid.uuid4().hex, "message": "checkout failed", "level": "error",
        "breadcrumbs": {"values": [
            {"type": "http", "category": "fetch", "data": {
                "url": f"https://api.example.com/orders?page=2&token={token}", "method": "GET",
                "password": password}},
            {"type": "http", "category": "xhr",
             "data": {"url": f"https://api.example.com/pay?api_key={token}&currency=EUR#top"}}]},
        "contexts": {"trace": {"data": {"url": f"https://api.example.com/?access_token={token}"}}},
    }
    assert post_event(server, tracked.id, tracked.public_key, event).status_code == 200
    server.wait_for_digest()
    [error] = tracked.errors()
    payload = tracked.latest_payload(error)
    first, second = payload["breadcrumbs"]["values"]
    assert first["data"] == {"url": "https://api.example.com/orders?page=2&token=[Filtered]", "method": "GET",
                             "password": "[Filtered]"}
    assert second["data"]["url"] == "https://api.example.com/pay?api_key=[Filtered]&currency=EUR#top"
    assert payload["contexts"]["trace"]["data"]["url"] == "https://api.example.com/?access_token=[Filtered]"
    assert files_holding(server.data_dir, [token.encode(), password.encode()]) == {}
