"""GitLab's failed-authentication ban: too many wrong tokens from one address ban it for a while, on every
server process, while other addresses (and the exempt ones) are unaffected."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support import start_server

BAN = {"OUTPOST_AUTH_BAN_MAX_FAILURES": "10", "OUTPOST_AUTH_BAN_WINDOW_SECONDS": "60",
       "OUTPOST_AUTH_BAN_SECONDS": "600", "OUTPOST_AUTH_BAN_ALLOWLIST": "", "OUTPOST_WORKERS": "2"}


@pytest.mark.expected_log(r"WARNING outpost\.auth banning \S+ until \S+ after \d+ failed authentications")
def test_ten_wrong_tokens_ban_the_address_with_429_and_retry_after(tmp_path):
    with start_server(tmp_path / "server", extra_env=BAN) as server:
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            wrong = [client.get("/user", headers={"PRIVATE-TOKEN": f"glpat-wrong-{n}"}).status_code
                     for n in range(10)]
            assert wrong == [401] * 10
            time.sleep(1.2)  # every process reads the bans back each second
            banned = [client.get("/user", headers={"PRIVATE-TOKEN": server.root_token}) for _ in range(6)]
        # A client on another address is not affected.
        elsewhere = httpx.HTTPTransport(local_address="127.0.0.2")
        with httpx.Client(base_url=server.api_url, timeout=30, transport=elsewhere) as client:
            assert client.get("/user", headers={"PRIVATE-TOKEN": server.root_token}).status_code == 200
        # Each request may land on either worker: the ban is the same on both.
        assert [answer.status_code for answer in banned] == [429] * 6
        assert all(answer.text == "Retry later\n" for answer in banned)
        assert all(500 <= int(answer.headers["Retry-After"]) <= 600 for answer in banned)
        # The collector is not behind the ban: SDKs authenticate with their own keys.
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert client.post("/api/v4/error_tracking/collector/api/1/store/", content=b"{}",
                               params={"sentry_key": "0" * 32}).status_code == 404
        log = server.log_text()
    assert log.count("after 10 failed authentications") >= 1


def test_allowlisted_addresses_are_never_banned(tmp_path):
    with start_server(tmp_path / "server", extra_env={**BAN, "OUTPOST_AUTH_BAN_ALLOWLIST": "127.0.0.0/8"}) as server:
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            assert {client.get("/user", headers={"PRIVATE-TOKEN": "glpat-wrong"}).status_code
                    for _ in range(15)} == {401}
            assert client.get("/user", headers={"PRIVATE-TOKEN": server.root_token}).status_code == 200
