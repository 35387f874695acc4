"""Browser apps: CORS on the collector and the per-project allowed origins (an Outpost extension).

What a browser SDK sends (the key and client in the query string, the body as text/plain, an Origin
header) follows @sentry/browser's fetch transport; the real browser runs in test_browser_sdk.py.
"""

from __future__ import annotations

import json
import time
import uuid

import pytest

from outpost_server.error_tracking.ingest.origins import origin_allowed, parse_allowed_origins

from .through_api import ErrorsApi

PAGE = "http://127.0.0.1:8123"


def browser_query(tracked) -> dict[str, str]:
    return {"sentry_key": tracked.public_key, "sentry_version": "7", "sentry_client": "sentry.javascript.browser/9"}


def browser_envelope(message: str) -> bytes:
    event = {"event_id": uuid.uuid4().hex, "platform": "javascript", "level": "error", "message": message}
    return b"\n".join([json.dumps({"event_id": event["event_id"]}).encode(), b'{"type":"event"}',
                       json.dumps(event).encode()])


def send(collector, tracked, message: str, origin: str):
    return collector.post(tracked.collector_path("envelope"), params=browser_query(tracked),
                          content=browser_envelope(message),
                          headers={"Origin": origin, "Content-Type": "text/plain;charset=UTF-8"})


def preflight(collector, tracked, endpoint: str, origin: str):
    return collector.options(tracked.collector_path(endpoint), params=browser_query(tracked), headers={
        "Origin": origin, "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "content-type,sentry-trace,baggage"})


def refusals_counted(api, project_id: int, count: int, timeout: float = 10) -> dict:
    """The settings once `count` refusals are written, or as they are at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        setting = api.root.get(f"/projects/{project_id}/error_tracking/settings").json()
        if setting["rejected_origins"]["count"] >= count or time.monotonic() > deadline:
            return setting
        time.sleep(0.1)


def set_origins(api, tracked, origins):
    return api.root.patch(f"/projects/{tracked.id}/error_tracking/settings",
                          json={"active": True, "allowed_origins": origins})


@pytest.mark.parametrize("endpoint", ["store", "envelope"])
def test_preflight_allows_any_origin_by_default(collector, tracked, endpoint):
    response = preflight(collector, tracked, endpoint, PAGE)
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == PAGE
    assert "POST" in response.headers["access-control-allow-methods"]
    allowed = {name.strip() for name in response.headers["access-control-allow-headers"].split(",")}
    assert {"content-type", "sentry-trace", "baggage"} <= allowed
    exposed = {name.strip() for name in response.headers["access-control-expose-headers"].split(",")}
    assert {"retry-after", "x-sentry-rate-limits"} <= exposed


def test_text_plain_body_with_query_auth_is_stored_and_readable_by_the_page(collector, tracked, server):
    response = send(collector, tracked, "checkout button broke", PAGE)
    assert response.status_code == 200, response.text
    assert response.headers["access-control-allow-origin"] == PAGE
    assert ErrorsApi.of(server, tracked.id).titled("checkout button broke")["count"] == 1


def test_store_endpoint_from_a_browser(collector, tracked, server):
    event = {"event_id": uuid.uuid4().hex, "platform": "javascript", "message": "legacy store client"}
    response = collector.post(tracked.collector_path("store"), params=browser_query(tracked),
                              content=json.dumps(event), headers={"Origin": PAGE, "Content-Type": "text/plain"})
    assert (response.status_code, response.headers["access-control-allow-origin"]) == (200, PAGE)
    assert ErrorsApi.of(server, tracked.id).titled("legacy store client")["count"] == 1


def test_allowed_origins_refuse_other_pages_and_count_them(collector, tracked, server, api):
    updated = set_origins(api, tracked, ["https://shop.example.com", "localhost:3000"])
    assert updated.status_code == 200, updated.text
    assert updated.json()["allowed_origins"] == ["https://shop.example.com", "localhost:3000"]

    refused = preflight(collector, tracked, "envelope", PAGE)
    assert refused.status_code == 403 and "access-control-allow-origin" not in refused.headers
    refused = send(collector, tracked, "from an unknown page", PAGE)
    assert (refused.status_code, refused.json()) == (403, {"message": "403 Forbidden - Invalid origin"})
    assert "access-control-allow-origin" not in refused.headers

    accepted = send(collector, tracked, "from the shop", "https://shop.example.com")
    assert accepted.headers["access-control-allow-origin"] == "https://shop.example.com"
    assert send(collector, tracked, "from a dev server", "http://localhost:3000").status_code == 200
    # Server-side SDKs send no Origin and are never refused for it.
    no_origin = collector.post(tracked.collector_path("envelope"), params=browser_query(tracked),
                               content=browser_envelope("from a backend"))
    assert no_origin.status_code == 200 and "access-control-allow-origin" not in no_origin.headers

    titles = {error["title"] for error in ErrorsApi.of(server, tracked.id).errors()}
    assert titles == {"from the shop", "from a dev server", "from a backend"}
    # The second refusal came within a second of the first, which was written at once: it is written
    # by the next flush (origin_refusals.py).
    setting = refusals_counted(api, tracked.id, 2)
    assert setting["rejected_origins"]["count"] == 2
    assert setting["rejected_origins"]["last_origin"] == PAGE
    assert setting["rejected_origins"]["last_at"].endswith("Z")

    # An empty list allows every origin again.
    assert set_origins(api, tracked, "").json()["allowed_origins"] == []
    assert send(collector, tracked, "from an unknown page", PAGE).status_code == 200


# A JSON object or number is no list of origins (it was a 500 once).
@pytest.mark.parametrize("value", [["https://ok.example.com", "not a host!"], [42], "javascript:alert(1)", {}, 7])
def test_invalid_allowed_origins_are_refused(tracked, api, value):
    response = set_origins(api, tracked, value)
    assert (response.status_code, response.json()) == (400, {"error": "allowed_origins is invalid"})


@pytest.mark.parametrize(("origin", "allowed", "expected"), [
    ("http://127.0.0.1:8123", [], True),
    ("http://127.0.0.1:8123", ["*"], True),
    ("http://127.0.0.1:8123", ["127.0.0.1"], True),
    ("http://127.0.0.1:8123", ["127.0.0.1:8123"], True),
    ("http://127.0.0.1:8123", ["127.0.0.1:9000"], False),
    ("https://app.example.com", ["*.example.com"], True),
    ("https://example.com", ["*.example.com"], True),
    ("https://badexample.com", ["*.example.com"], False),
    ("https://app.example.com", ["https://app.example.com"], True),
    ("http://app.example.com", ["https://app.example.com"], False),
    ("https://app.example.com:8443", ["https://app.example.com"], False),
    ("null", ["app.example.com"], False),
    (None, ["app.example.com"], True),
    # A port that is no number (U+00B2 passes str.isdigit but not int()) matches nothing.
    ("http://app.example.com:\u00b2", ["app.example.com:80"], False),
    ("http://app.example.com:http", ["app.example.com"], False),
])
def test_origin_matching(origin, allowed, expected):
    assert origin_allowed(origin, parse_allowed_origins(allowed)) is expected


def test_a_flood_of_refused_requests_is_counted_exactly(collector, tracked, api):
    """Refusals after the first are added up in memory and written once a second, none lost."""
    assert set_origins(api, tracked, ["https://shop.example.com"]).status_code == 200
    before = api.root.get(f"/projects/{tracked.id}/error_tracking/settings").json()["rejected_origins"]["count"]
    for number in range(60):
        assert send(collector, tracked, f"flood {number}", f"https://attacker{number % 3}.example").status_code == 403
    setting = refusals_counted(api, tracked.id, before + 60)
    assert setting["rejected_origins"]["count"] == before + 60
    assert setting["rejected_origins"]["last_origin"] == "https://attacker2.example"
