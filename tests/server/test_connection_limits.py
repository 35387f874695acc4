"""Bounds on clients before their request starts: oversized headers are refused without the server's
memory growing, and connections that never finish (or never start) their headers are closed."""

from __future__ import annotations

import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.support import RunningServer, start_server

CHUNK = b"a" * 65536


@pytest.fixture(scope="module")
def limited(tmp_path_factory):
    with start_server(tmp_path_factory.mktemp("limits"), extra_env={"OUTPOST_HEADER_TIMEOUT_SECONDS": "2"}) as server:
        yield server


def _connect(server: RunningServer) -> socket.socket:
    parts = urlsplit(server.url)
    sock = socket.create_connection((parts.hostname, parts.port), timeout=10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    return sock


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def _answer_or_close(sock: socket.socket) -> bytes | None:
    """What the server sends before closing (b"" when it closes without a word); None if it never closes."""
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except ConnectionResetError:
        pass
    except socket.timeout:
        return None
    return received


def test_oversized_headers_are_refused_431_and_memory_stays_flat(limited):
    before = _rss_mb(limited.process.pid)
    sockets = [_connect(limited) for _ in range(40)]
    sent = []
    for sock in sockets:
        sock.sendall(b"GET /api/v4/version HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ")
        total = 0
        try:
            while total < 16 * 1024 * 1024:  # the server cuts it off long before this
                sock.sendall(CHUNK)
                total += len(CHUNK)
        except (BrokenPipeError, ConnectionResetError, socket.timeout):
            pass
        sent.append(total)
    answers = [_answer_or_close(sock) for sock in sockets]
    for sock in sockets:
        sock.close()
    assert max(sent) < 4 * 1024 * 1024, sent
    assert all(answer is not None and (answer.startswith(b"HTTP/1.1 431 ") or answer == b"") for answer in answers)
    assert sum(answer is not None and answer.startswith(b"HTTP/1.1 431 ") for answer in answers) >= 1
    assert _rss_mb(limited.process.pid) - before < 60
    assert httpx.get(limited.api_url + "/version", headers={"PRIVATE-TOKEN": limited.root_token}).status_code == 200


def test_headers_that_never_finish_or_never_start_are_closed(limited):
    slow = [_connect(limited) for _ in range(30)]
    for sock in slow:
        sock.sendall(b"GET /api/v4/version HTTP/1.1\r\nHost: 127.0.0")
    silent = [_connect(limited) for _ in range(30)]
    # Meanwhile a whole request is answered.
    assert httpx.get(limited.api_url + "/version", headers={"PRIVATE-TOKEN": limited.root_token}).status_code == 200
    deadline = time.monotonic() + 30
    answers = []
    for sock in slow + silent:
        sock.settimeout(max(0.1, deadline - time.monotonic()))
        answers.append(_answer_or_close(sock))
        sock.close()
    slow_answers, silent_answers = answers[:30], answers[30:]
    assert all(answer is not None and answer.startswith(b"HTTP/1.1 408 ") for answer in slow_answers), slow_answers[:3]
    assert silent_answers == [b""] * 30


@pytest.mark.parametrize(("header_bytes", "piece"), [(100_000, None), (127_000, None), (66_000, 8192)],
                         ids=["100000-in-one-write", "127000-in-one-write", "66000-in-8KiB-pieces"])
def test_the_header_limit_holds_however_the_headers_are_written(limited, header_bytes, piece):
    request = (b"GET /api/v4/version HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: " + limited.root_token.encode()
               + b"\r\nX-Padding: " + b"a" * header_bytes + b"\r\n\r\n")
    sock = _connect(limited)
    try:
        for start in range(0, len(request), piece or len(request)):
            sock.sendall(request[start:start + (piece or len(request))])
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused before the last piece
    answer = _answer_or_close(sock)
    sock.close()
    assert answer is not None and answer.startswith(b"HTTP/1.1 431 "), answer
    # A request just under the limit is served.
    sock = _connect(limited)
    sock.sendall(b"GET /api/v4/version HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nPRIVATE-TOKEN: "
                 + limited.root_token.encode() + b"\r\nX-Padding: " + b"a" * 60_000 + b"\r\n\r\n")
    answer = _answer_or_close(sock)
    sock.close()
    assert answer is not None and answer.startswith(b"HTTP/1.1 200 "), answer[:200] if answer else answer
