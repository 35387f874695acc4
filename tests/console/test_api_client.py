"""ApiClient against the real server: data, pagination and every kind of failure."""

import asyncio
import socket
import uuid

import httpx
import pytest

from console.core.api import errors
from console.core.api.client import ApiClient
from console.core.api.errors import USER_MESSAGES, error_from_response
from outpost_model.accounts import User
from outpost_model.projects import Project


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def silent_listener():
    """A TCP port that accepts connections but never answers (for timeouts)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


@pytest.mark.asyncio
async def test_get_user_and_version_as_root(server):
    async with ApiClient(server.url, server.root_token) as client:
        user = await client.get_user()
        version = await client.get_version()
    assert user.username == "root"
    assert user.is_admin is True
    assert version.version and version.revision.startswith("outpost-")


@pytest.mark.asyncio
async def test_base_url_may_include_api_prefix_and_slash(server):
    async with ApiClient(server.api_url + "/", server.root_token) as client:
        assert client.base_url == server.url
        assert (await client.get_user()).username == "root"


@pytest.mark.asyncio
async def test_paginate_follows_next_page_to_the_end(server, api):
    for _ in range(3):
        api.user()
    async with ApiClient(server.url, server.root_token) as client:
        first_page = await client.request("GET", "/users", params={"per_page": 2})
        total = int(first_page.headers["X-Total"])
        users = [user async for user in client.paginate_as(User, "/users", per_page=2)]
    assert total >= 4
    assert len(users) == total
    assert len({user.id for user in users}) == total


@pytest.mark.asyncio
async def test_wrong_token_raises_unauthorized_with_plain_message(server):
    async with ApiClient(server.url, "not-a-real-token") as client:
        with pytest.raises(errors.Unauthorized) as caught:
            await client.get_user()
    assert caught.value.status == 401
    assert caught.value.body == {"message": "401 Unauthorized"}
    assert "access token" in caught.value.message
    assert "Server said" not in caught.value.message  # "401 Unauthorized" adds nothing


@pytest.mark.asyncio
async def test_non_admin_gets_forbidden_on_admin_endpoint(server, api):
    _user, token = api.user()
    async with ApiClient(server.url, token) as client:
        with pytest.raises(errors.Forbidden) as caught:
            await client.request("POST", "/users", json={"username": f"u{uuid.uuid4().hex[:8]}"})
    assert caught.value.status == 403
    assert "not allowed" in caught.value.message


@pytest.mark.asyncio
async def test_missing_project_raises_not_found_with_server_detail(server):
    async with ApiClient(server.url, server.root_token) as client:
        with pytest.raises(errors.NotFound) as caught:
            await client.get_as(Project, "/projects/987654321")
    assert caught.value.status == 404
    assert caught.value.detail == "404 Project Not Found"
    assert "404 Project Not Found" in caught.value.message


@pytest.mark.asyncio
async def test_field_validation_errors_are_parsed(server):
    name = f"u{uuid.uuid4().hex[:8]}"
    body = {"username": name, "name": name, "email": f"{name}@example.com", "password": "short"}
    async with ApiClient(server.url, server.root_token) as client:
        with pytest.raises(errors.ValidationFailed) as caught:
            await client.request("POST", "/users", json=body)
    assert caught.value.status == 400
    assert caught.value.field_errors == {"password": ["is too short (minimum is 8 characters)"]}
    assert "password is too short" in caught.value.message


def test_missing_parameter_errors_are_parsed():
    response = httpx.Response(400, json={"error": "key is missing, value is missing"})
    error = error_from_response(response)
    assert isinstance(error, errors.ValidationFailed)
    assert error.field_errors == {"key": ["is missing"], "value": ["is missing"]}
    assert "key is missing, value is missing" in error.message


def test_server_errors_and_rate_limits_are_classified():
    failure = error_from_response(httpx.Response(500, json={"message": "500 Internal Server Error"}))
    limited = error_from_response(httpx.Response(429, headers={"Retry-After": "7"}, json={"message": "slow"}))
    assert isinstance(failure, errors.ServerError) and "HTTP 500" in failure.message
    assert isinstance(limited, errors.RateLimited) and limited.retry_after == 7


@pytest.mark.asyncio
async def test_refused_connection_is_explained():
    url = f"http://127.0.0.1:{closed_port()}"
    async with ApiClient(url, "token") as client:
        with pytest.raises(errors.ConnectionRefused) as caught:
            await client.get_user()
    assert caught.value.status is None
    assert "refused" in caught.value.message and url in caught.value.message


@pytest.mark.asyncio
async def test_tls_to_a_plain_http_port_is_explained(server):
    url = server.url.replace("http://", "https://")
    async with ApiClient(url, server.root_token) as client:
        with pytest.raises(errors.TlsFailed) as caught:
            await client.get_user()
    assert "secure (TLS) connection" in caught.value.message


@pytest.mark.asyncio
async def test_silent_server_times_out(silent_listener):
    async with ApiClient(silent_listener, "token", timeout=0.5) as client:
        with pytest.raises(errors.TimedOut) as caught:
            await client.get_user()
    assert "did not answer in time" in caught.value.message


@pytest.mark.asyncio
async def test_unknown_host_is_explained():
    async with ApiClient("http://no-such-host.invalid", "token", timeout=10) as client:
        with pytest.raises(errors.HostNotFound) as caught:
            await client.get_user()
    assert "could not be found" in caught.value.message


@pytest.mark.parametrize("url", ["gitlab.example.com", "ftp://example.com", "http://", ""])
def test_invalid_server_address_is_rejected(url):
    with pytest.raises(errors.InvalidServerUrl) as caught:
        ApiClient(url, "token")
    assert "not a valid server address" in caught.value.message


def test_token_never_appears_in_repr():
    client = ApiClient("http://127.0.0.1:1", "glpat-very-secret")
    assert "glpat-very-secret" not in repr(client)


def test_every_error_class_has_a_user_message():
    classes = [cls for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.ApiError)]
    assert set(classes) == set(USER_MESSAGES)


def test_timeout_listener_really_accepts_connections(silent_listener):
    """Guards the timeout test: the port is open, so that failure is a timeout, not a refusal."""
    host, port = silent_listener.removeprefix("http://").split(":")
    socket.create_connection((host, int(port)), timeout=5).close()


@pytest.mark.asyncio
async def test_request_after_the_servers_idle_timeout_succeeds(server):
    # uvicorn's default idle timeout is 5 s; a pooled connection reused right then used to fail
    # with "Server disconnected without sending a response".
    async with ApiClient(server.url, server.root_token) as client:
        assert (await client.get_user()).username == "root"
        await asyncio.sleep(5.2)
        assert (await client.get_user()).username == "root"


@pytest.mark.asyncio
async def test_work_of_a_closed_connection_ends_as_cancelled_not_as_an_error(server):
    # A reconnect closes the old client while its pages may still be loading: their requests are moot.
    client = ApiClient(server.url, server.root_token)
    pending = asyncio.gather(*(client.get_user() for _ in range(5)), return_exceptions=True)
    await client.aclose()
    outcomes = await pending
    assert outcomes and all(isinstance(outcome, asyncio.CancelledError) for outcome in outcomes), outcomes
    with pytest.raises(asyncio.CancelledError):
        await client.get_version()


@pytest.mark.asyncio
async def test_a_request_in_flight_when_its_connection_is_closed_ends_as_cancelled():
    # A server that accepts and never answers: the request is waiting for the answer when the client closes.
    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    try:
        client = ApiClient(f"http://127.0.0.1:{listener.getsockname()[1]}", "glpat-unused")
        request = asyncio.ensure_future(client.get_user())
        listener.settimeout(10)
        accepted.append(await asyncio.get_running_loop().run_in_executor(None, lambda: listener.accept()[0]))
        await asyncio.sleep(0.2)  # the request is sent and waits for its answer
        await client.aclose()
        outcome = (await asyncio.gather(request, return_exceptions=True))[0]
        assert isinstance(outcome, asyncio.CancelledError), outcome
    finally:
        for connection in accepted:
            connection.close()
        listener.close()


class ClosesItsFirstConnection:
    """An HTTP server on a real socket that reads the first request and closes the connection without an
    answer (a kept-alive connection closed just as a request went out); later ones get ``{"ok": true}``."""

    def __init__(self):
        self.requests: list[bytes] = []

    async def __aenter__(self):
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self.server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(self, *exc_info):
        self.server.close()
        await self.server.wait_closed()

    async def _serve(self, reader, writer):
        head = await reader.readuntil(b"\r\n\r\n")
        length = next((int(line.split(b":")[1]) for line in head.split(b"\r\n")
                       if line.lower().startswith(b"content-length:")), 0)
        await reader.readexactly(length)
        self.requests.append(head.split(b" ", 2)[0])
        if len(self.requests) > 1:
            body = b'{"ok": true, "data": {"ok": true}}'
            writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                         + str(len(body)).encode() + b"\r\n\r\n" + body)
            await writer.drain()
        writer.close()


@pytest.mark.asyncio
async def test_a_read_whose_connection_breaks_under_it_is_sent_once_more():
    async with ClosesItsFirstConnection() as server, ApiClient(server.url, "glpat-unused") as client:
        assert (await client.request("GET", "/user")).json() == {"ok": True, "data": {"ok": True}}
    assert server.requests == [b"GET", b"GET"]


@pytest.mark.asyncio
async def test_a_graphql_query_is_sent_once_more_but_a_mutation_is_not():
    from console.core.api.graphql import graphql

    async with ClosesItsFirstConnection() as server, ApiClient(server.url, "glpat-unused") as client:
        assert (await graphql(client, "query { ok }")).data == {"ok": True}
    assert server.requests == [b"POST", b"POST"]
    async with ClosesItsFirstConnection() as server, ApiClient(server.url, "glpat-unused") as client:
        with pytest.raises(errors.ConnectionFailed):
            await graphql(client, "mutation { resolve }")
    assert server.requests == [b"POST"]


@pytest.mark.asyncio
async def test_a_write_whose_connection_breaks_under_it_is_said_not_sent_again():
    async with ClosesItsFirstConnection() as server, ApiClient(server.url, "glpat-unused") as client:
        with pytest.raises(errors.ConnectionFailed):
            await client.request("POST", "/admin/ci/variables", json={"key": "A", "value": "1"})
    assert server.requests == [b"POST"]
