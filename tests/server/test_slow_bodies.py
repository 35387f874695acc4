"""Slow request bodies: a client that sends its headers and then trickles (or withholds) its body holds no
write turn (SQLite's writes go on for everyone else), is answered 408 once its body stalls for the body
timeout, and one address may keep only so many token-less requests in flight."""

from __future__ import annotations

import socket
import time
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support import RunningServer, start_server

SLOW_HEAD = (b"POST /api/graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
             b"Content-Length: 100000\r\n\r\n{")


@pytest.fixture(scope="module")
def impatient(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("slow-bodies"), extra_env={
            "OUTPOST_BODY_TIMEOUT_SECONDS": "4", "OUTPOST_DATABASE_WAIT_SECONDS": "1",
            "OUTPOST_UNAUTHENTICATED_REQUESTS_PER_ADDRESS": "10"}) as server:
        yield server


def _slow_request(server: RunningServer) -> socket.socket:
    parts = urlsplit(server.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=30)
    sock.sendall(SLOW_HEAD)
    return sock


def _answer(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass
    finally:
        sock.close()
    return received


def _graphql_statuses(server: RunningServer) -> list[int]:
    return [entry["status"] for entry in server.request_log() if entry["path"] == "/api/graphql"]


def test_slow_bodies_hold_no_write_turn_and_are_answered_408(impatient):
    # The module's other test sends slow bodies to the same server, before or after this one.
    earlier = len(_graphql_statuses(impatient))
    slow = [_slow_request(impatient) for _ in range(8)]
    with impatient.client() as client:
        # Before the fix each slow body held one of the eight write turns, so this waited its second
        # and answered 503.
        assert client.get("/version").status_code == 200  # the slow requests have reached the server
        created = client.post("/projects", json={"name": "written-meanwhile"})
        assert created.status_code == 201, created.text
    answers = [_answer(sock) for sock in slow]
    assert all(answer.startswith(b"HTTP/1.1 408 ") for answer in answers), answers
    assert all(answer.endswith(b'{"message":"408 Request Timeout"}') for answer in answers), answers[0]
    # The request log line is written after the answer is sent.
    deadline = time.monotonic() + 30
    while len(_graphql_statuses(impatient)) < earlier + 8 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _graphql_statuses(impatient)[earlier:] == [408] * 8
    assert "Traceback" not in impatient.log_text()


def test_one_address_keeps_only_so_many_token_less_requests_in_flight(impatient):
    slow = [_slow_request(impatient) for _ in range(10)]
    with impatient.client() as client:
        assert client.get("/version").status_code == 200
    # The eleventh token-less request from the address is refused at once; one with a token is not.
    refused = httpx.get(impatient.api_url + "/version", timeout=30)
    assert (refused.status_code, refused.text, refused.headers["connection"]) == (429, "Retry later\n", "close")
    with impatient.client() as client:
        assert client.post("/projects", json={"name": "still-served"}).status_code == 201
    assert all(_answer(sock).startswith(b"HTTP/1.1 408 ") for sock in slow)
    # Once they are answered the address may send again.
    assert httpx.get(impatient.api_url + "/version", timeout=30).status_code == 401
