"""Links behind a reverse proxy: the client's Host and, from a trusted proxy, its X-Forwarded-Proto."""

from tests.support import start_server

PROXY_HEADERS = {"Host": "outpost.example.com:8443", "X-Forwarded-Proto": "https", "X-Forwarded-For": "203.0.113.7"}


def first_link(server) -> str:
    with server.client() as client:
        response = client.get("/users", params={"per_page": 1}, headers=PROXY_HEADERS)
    assert response.status_code == 200, response.text
    return response.headers["Link"].split(">", 1)[0].removeprefix("<")


def test_a_trusted_proxy_scheme_and_host_name_the_links(tmp_path):
    # The test client connects from 127.0.0.1, which OUTPOST_FORWARDED_ALLOW_IPS trusts by default.
    with start_server(tmp_path) as server:
        assert first_link(server).startswith("https://outpost.example.com:8443/api/v4/users?")


def test_forwarded_scheme_from_an_untrusted_address_is_ignored(tmp_path):
    with start_server(tmp_path, extra_env={"OUTPOST_FORWARDED_ALLOW_IPS": "192.0.2.10"}) as server:
        assert first_link(server).startswith("http://outpost.example.com:8443/api/v4/users?")
