"""Real receivers for alert tests: an HTTP server on 127.0.0.1 recording what it is sent, and an SMTP server
(aiosmtpd) collecting messages."""

from __future__ import annotations

import email
import email.policy
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Message

T = TypeVar("T")


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class HttpReceiver:
    url: str
    requests: list[Received] = field(default_factory=list)
    # Statuses to answer, in order; 200 once they are used up.
    statuses: list[int] = field(default_factory=list)

    def at(self, path: str) -> list[Received]:
        return [request for request in self.requests if request.path == path]


@pytest.fixture
def receiver() -> Iterator[HttpReceiver]:
    state = HttpReceiver(url="")
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 (http.server's naming)
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                state.requests.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                status = state.statuses.pop(0) if state.statuses else 200
            self.send_response(status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


class ParsedMessage(email.message.EmailMessage):
    """A message parsed with the modern policy, so get_body() and header objects work."""

    def __init__(self) -> None:
        super().__init__(policy=email.policy.default)


class MailBox(Message):
    def __init__(self) -> None:
        super().__init__(message_class=ParsedMessage)
        self.received: list[email.message.EmailMessage] = []
        self.port = 0

    def handle_message(self, message):
        self.received.append(message)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def mailbox() -> Iterator[MailBox]:
    handler = MailBox()
    handler.port = free_port()
    controller = Controller(handler, hostname="127.0.0.1", port=handler.port)
    controller.start()
    try:
        yield handler
    finally:
        controller.stop()


def eventually(probe: Callable[[], T | None], *, timeout: float = 20.0, what: str = "the condition") -> T:
    """Polls `probe` until it answers something truthy; fails naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)
