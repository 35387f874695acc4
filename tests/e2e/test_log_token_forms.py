"""The request log filters a token by what it looks like (the prefixes Outpost issues, and the configured
root token whatever it is), wherever it stands in the path: the forms a probe found logged verbatim."""

from __future__ import annotations

import httpx

from tests.support import ApiHelper, launch_server

ROOT_TOKEN = "root/-0123456789abcdef"


def test_every_form_of_a_token_in_the_path_is_filtered(tmp_path):
    server = launch_server(tmp_path / "server", root_token=ROOT_TOKEN)
    try:
        _, token = ApiHelper(server).user()
        root = ROOT_TOKEN.replace("/", "%2F")
        paths = [f"/api/v4/user;private_token:{token}",
                 f"/api/v4/user;private_token%3A{token}",
                 f"/api/v4/user/private_token/{token}",
                 f"/api/v4/user;private_token%20=%20{token}",
                 f"/api/v4/user;token%0A={token}",
                 f"/api/v4/user;private_token%E2%80%8B={token}",
                 f"/api/v4/user;private_token={root}",
                 f"/api/v4/projects/{token}/issues"]
        with httpx.Client(base_url=server.url, timeout=30) as client:
            statuses = [client.get(path).status_code for path in paths]
        assert all(status < 500 for status in statuses), statuses
        logged = [entry["path"] for entry in server.request_log() if entry["path"].startswith(("/api/v4/user;",
                                                                                               "/api/v4/user/p",
                                                                                               "/api/v4/projects/"))]
        log = server.log_text()
    finally:
        server.stop()
    assert len(logged) >= len(paths) and all("[FILTERED]" in path for path in logged[-len(paths):]), logged
    for secret in (token, token[6:], ROOT_TOKEN, "-0123456789abcdef", root):
        assert secret not in log, secret
