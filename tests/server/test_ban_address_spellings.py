"""One address, however spelt: failures through `10.9.9.9` and `::ffff:10.9.9.9` (an IPv4 address mapped into
IPv6, as a dual-stack socket or a proxy's X-Forwarded-For gives it) count together, and the ban holds
for every spelling. The requests come through 127.0.0.1, the default trusted proxy."""

from __future__ import annotations

import time

import httpx
import pytest

from tests.support import start_server

BAN = {"OUTPOST_AUTH_BAN_MAX_FAILURES": "10", "OUTPOST_AUTH_BAN_WINDOW_SECONDS": "60",
       "OUTPOST_AUTH_BAN_SECONDS": "600", "OUTPOST_AUTH_BAN_ALLOWLIST": ""}
SPELLINGS = ("10.9.9.9", "::ffff:10.9.9.9", "::FFFF:10.9.9.9", "0:0:0:0:0:ffff:a09:909")


@pytest.mark.expected_log(r"WARNING outpost\.auth banning \S+ until \S+ after \d+ failed authentications")
def test_a_mapped_address_is_the_same_address_for_counting_and_banning(tmp_path):
    with start_server(tmp_path / "server", extra_env=BAN) as server:
        with httpx.Client(base_url=server.api_url, timeout=30) as client:
            wrong = [client.get("/user", headers={"PRIVATE-TOKEN": f"glpat-wrong-{n}",
                                                  "X-Forwarded-For": SPELLINGS[n % 2]}).status_code
                     for n in range(10)]
            assert wrong == [401] * 10
            time.sleep(1.2)  # the process reads the bans back each second
            banned = {spelling: client.get("/user", headers={"PRIVATE-TOKEN": server.root_token,
                                                              "X-Forwarded-For": spelling}).status_code
                      for spelling in SPELLINGS}
            other = client.get("/user", headers={"PRIVATE-TOKEN": server.root_token,
                                                 "X-Forwarded-For": "::ffff:10.9.9.10"}).status_code
    assert banned == dict.fromkeys(SPELLINGS, 429)
    assert other == 200
