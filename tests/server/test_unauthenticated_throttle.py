"""GitLab's unauthenticated request throttles: requests without a token from one address are limited per
period, on every server process together, with GitLab's 429 answer and RateLimit headers; requests with a
token, other addresses and the collector are not affected."""

from __future__ import annotations

import time
from email.utils import parsedate_to_datetime

import httpx

from tests.support import start_server, start_well_inside

LIMIT = 5
THROTTLE = {"OUTPOST_THROTTLE_UNAUTHENTICATED_API_REQUESTS_PER_PERIOD": str(LIMIT),
            "OUTPOST_THROTTLE_UNAUTHENTICATED_API_PERIOD_IN_SECONDS": "600", "OUTPOST_WORKERS": "2"}


def test_requests_without_a_token_are_throttled_per_address_across_processes(tmp_path):
    with start_server(tmp_path / "server", extra_env=THROTTLE) as server:
        # Some twenty requests and a pause, which under load take far longer than the few seconds alone.
        start_well_inside(600, margin=45)
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            allowed = [client.get("/projects").status_code for _ in range(LIMIT)]
            time.sleep(1.5)  # every process shares its counts and reads them back twice a second
        # New connections land on either process: both refuse now.
        refused = []
        for _ in range(6):
            with httpx.Client(base_url=server.api_url, timeout=30) as client:
                refused.append(client.get("/projects"))
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            with_token = client.get("/projects", headers={"PRIVATE-TOKEN": server.root_token}).status_code
            with_token_parameter = client.get("/projects", params={"private_token": server.root_token}).status_code
            web = client.get(server.url + "/no-such-group/no-such-project/-/error_tracking.json").status_code
        elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.api_url, timeout=30, transport=elsewhere) as client:
            other_address = client.get("/projects").status_code
        with httpx.Client(base_url=server.url, timeout=30) as client:
            collector = client.post("/api/v4/error_tracking/collector/api/1/store/", content=b"{}",
                                    params={"sentry_key": "0" * 32}).status_code
    assert allowed == [200] * LIMIT
    assert [answer.status_code for answer in refused] == [429] * 6
    first = refused[0]
    assert first.text == "Retry later\n" and first.headers["content-type"] == "text/plain"
    assert first.headers["RateLimit-Name"] == "throttle_unauthenticated_api"
    assert first.headers["RateLimit-Limit"] == "1"  # 5 per 600 s, as GitLab gives it: per minute, rounded up
    assert first.headers["RateLimit-Remaining"] == "0"
    assert int(first.headers["RateLimit-Observed"]) > LIMIT
    retry_after = int(first.headers["Retry-After"])
    reset = int(first.headers["RateLimit-Reset"])
    assert 0 < retry_after <= 600 and reset % 600 == 0
    assert parsedate_to_datetime(first.headers["RateLimit-ResetTime"]).timestamp() == reset
    # Observed counts every request, the refused ones too (as Rack::Attack does).
    assert int(refused[-1].headers["RateLimit-Observed"]) > int(first.headers["RateLimit-Observed"])
    assert (with_token, with_token_parameter, other_address) == (200, 200, 200)
    # The web throttle is off (GitLab's default), and the collector is never throttled here.
    assert (web, collector) == (401, 404)


def test_the_throttle_is_off_by_default(tmp_path):
    with start_server(tmp_path / "server") as server:
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            assert {client.get("/projects").status_code for _ in range(40)} == {200}
