"""SIGINT and SIGTERM during ingestion: exit 0, no traceback, requests in flight finished, nothing answered lost.

Runs on SQLite, and on PostgreSQL when OUTPOST_TEST_PG_ADMIN_URL is set (each server then gets
its own fresh database, kept across the restart).
"""

from __future__ import annotations

import signal
import socket
import sqlite3
import threading
import time
from urllib.parse import urlsplit

import httpx
import pytest

from tests.e2e.databases import database_url, inconsistencies, stored_event_ids
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request
from tests.e2e.senders import Senders
from tests.support import ApiHelper, RunningServer, launch_server

# What Python prints for an uncaught exception, and the two that SIGINT used to produce.
TRACEBACK_MARKERS = ("Traceback", "CancelledError", "KeyboardInterrupt")
STOP_SIGNALS = [pytest.param(signal.SIGINT, id="SIGINT"), pytest.param(signal.SIGTERM, id="SIGTERM")]


class HeldUpload:
    """One store request whose body is held back until released, so it is in flight when the signal comes.

    It asks `Expect: 100-continue` and waits for the server's `100 Continue`, which uvicorn sends when the
    application first reads the body: from then on the server is known to be handling this request.
    A raw socket, because httpx does not wait for 100 Continue.
    """

    def __init__(self, server: RunningServer, project_id: int, public_key: str):
        event = sentry_event(message="in flight at shutdown")
        self.event_id = event["event_id"]
        headers, self.body = store_request(public_key, event)
        address = urlsplit(server.url)
        self.address = (address.hostname, address.port)
        self.head = "".join([
            f"POST {store_path(project_id)} HTTP/1.1\r\n",
            f"Host: {address.netloc}\r\n",
            *(f"{name}: {value}\r\n" for name, value in headers.items()),
            f"Content-Length: {len(self.body)}\r\n",
            "Expect: 100-continue\r\n\r\n",
        ]).encode()
        self.being_read = threading.Event()
        self.release = threading.Event()
        self.outcome: int | str | None = None
        self._thread = threading.Thread(target=self._post, daemon=True)

    def __enter__(self) -> HeldUpload:
        self._thread.start()
        assert self.being_read.wait(30), f"the server never asked for the body: {self.outcome}"
        return self

    def __exit__(self, *exc_info) -> None:
        self.release.set()
        self._thread.join(timeout=60)

    def _post(self) -> None:
        try:
            with socket.create_connection(self.address, timeout=60) as connection:
                connection.sendall(self.head)
                interim = _read_head(connection)
                if not interim.startswith(b"HTTP/1.1 100 "):
                    self.outcome = interim.decode(errors="replace")
                    return
                self.being_read.set()
                self.release.wait(60)
                connection.sendall(self.body)
                self.outcome = int(_read_head(connection).split(b" ", 2)[1])
        except (OSError, ValueError, IndexError) as exc:
            self.outcome = type(exc).__name__


def _read_head(connection: socket.socket) -> bytes:
    """One response head (status line and headers); the body, if any, is left unread."""
    received = b""
    while b"\r\n\r\n" not in received:
        chunk = connection.recv(1)
        if not chunk:
            break
        received += chunk
    return received


@pytest.mark.parametrize("workers", ["1", "2"], ids=["one-process", "two-workers"])
@pytest.mark.parametrize("stop_signal", STOP_SIGNALS)
def test_stop_signal_during_ingestion_finishes_in_flight_requests_and_loses_nothing(tmp_path, stop_signal, workers):
    data_dir = tmp_path / "server"
    server = launch_server(data_dir, extra_env={"OUTPOST_WORKERS": workers})
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with Senders([server.url], project["id"], key["public_key"], count=16) as senders:
            senders.wait_for_accepted(300)
            with HeldUpload(server, project["id"], key["public_key"]) as held:
                server.process.send_signal(stop_signal)
                _wait_until_refusing_connections(server)
                # The server is shutting down now; the held request's body arrives only after that.
                held.release.set()
            exit_code = server.process.wait(timeout=60)
        log = server.log_text()
    finally:
        server.stop()

    assert exit_code == 0, log[-3000:]
    assert not [marker for marker in TRACEBACK_MARKERS if marker in log], log[-3000:]
    assert held.outcome == 200, f"the request in flight at the signal got {held.outcome}"
    ledger = senders.ledger
    assert set(ledger.statuses) == {200}, f"only 200s (or no answer) expected, got {ledger.statuses}"

    restarted = launch_server(data_dir, root_token=server.root_token)
    try:
        url = database_url(restarted)
        restarted.wait_for_digest()  # anything the shutdown could not drain in time is digested now
        stored = stored_event_ids(url, project["id"])
        assert len(stored) == len(set(stored)), "an event was stored twice"
        missing = (set(ledger.accepted) | {held.event_id}) - set(stored)
        assert not missing, f"{len(missing)} of {len(ledger.accepted) + 1} events answered 200 were lost"
        assert inconsistencies(url) == {}
    finally:
        restarted.stop()


@pytest.mark.expected_log(r"WARNING outpost\.error request \w+ cancelled: the shutdown grace period ended")
@pytest.mark.parametrize("stop_signal", STOP_SIGNALS)
def test_request_outlasting_the_grace_period_is_cancelled_and_the_exit_stays_clean(tmp_path, stop_signal):
    server = launch_server(tmp_path / "server", extra_env={"OUTPOST_SHUTDOWN_GRACE_SECONDS": "1"})
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        with HeldUpload(server, project["id"], key["public_key"]) as held:
            server.process.send_signal(stop_signal)
            # The body never comes while the server waits; it has to give up on the request.
            exit_code = server.process.wait(timeout=60)
        log = server.log_text()
    finally:
        server.stop()

    assert exit_code == 0, log[-3000:]
    assert not [marker for marker in TRACEBACK_MARKERS if marker in log], log[-3000:]
    assert held.outcome != 200, "a request cut off by the shutdown cannot have been accepted"
    assert "cancelled: the shutdown grace period ended" in log, "the server did not say it cancelled the request"


def _wait_until_refusing_connections(server: RunningServer, timeout: float = 30) -> None:
    """Returns once the listening socket is closed: the server has begun its graceful shutdown."""
    address = urlsplit(server.url)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection((address.hostname, address.port), timeout=1).close()
        except (ConnectionRefusedError, ConnectionResetError):
            # Refused, or reset: a connection still in the backlog when the listener closed.
            return
        time.sleep(0.02)
    raise AssertionError("the server kept accepting connections after the signal")


def test_an_event_being_written_when_the_grace_ends_is_answered_as_kept(tmp_path):
    # The spool's write lock, held from outside, keeps the event's write going past the grace period;
    # the write then succeeds, so the answer must say so (200) rather than ask for a retry (503).
    data_dir = tmp_path / "server"
    server = launch_server(data_dir, extra_env={"OUTPOST_SHUTDOWN_GRACE_SECONDS": "1"})
    try:
        api = ApiHelper(server)
        project = api.project()
        key = enable_error_tracking(api.root, project["id"])
        event = sentry_event()
        headers, body = store_request(key["public_key"], event)
        answers: list = []
        blocker = sqlite3.connect(data_dir / "ingest-spool.sqlite3", isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")
        sender = threading.Thread(target=lambda: answers.append(
            httpx.post(server.url + store_path(project["id"]), headers=headers, content=body, timeout=60)))
        sender.start()
        time.sleep(0.5)
        server.process.send_signal(signal.SIGTERM)
        time.sleep(2.0)  # the grace period ends while the write waits for the lock
        blocker.execute("ROLLBACK")
        blocker.close()
        sender.join(timeout=60)
        exit_code = server.process.wait(timeout=60)
        log = server.log_text()
    finally:
        server.stop()
    assert exit_code == 0, log[-3000:]
    assert [(answer.status_code, answer.json()) for answer in answers] == [(200, {"id": event["event_id"]})]
    restarted = launch_server(data_dir)
    try:
        restarted.wait_for_digest()
        assert stored_event_ids(database_url(restarted), project["id"]) == [event["event_id"]]
    finally:
        restarted.stop()
