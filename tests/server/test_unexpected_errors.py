"""An unexpected failure is logged with its request id and answered with GitLab's bare 500."""

import socket
import time
from urllib.parse import urlsplit

import pytest
import sqlalchemy

from tests.support import database_url_for, start_server


def _break_members(data_dir) -> None:
    """Breaks the database under the running server, so the next members query fails unexpectedly."""
    url = database_url_for(data_dir) or f"sqlite:///{data_dir / 'outpost.sqlite3'}"
    engine = sqlalchemy.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sqlalchemy.text("DROP TABLE project_members"))
    engine.dispose()


@pytest.mark.expected_log(r"ERROR outpost\.error unhandled error in request")
def test_internal_error_hides_details_and_logs_request_id(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        with server.client() as client:
            project = client.post("/projects", json={"name": "doomed"}).json()
            _break_members(data_dir)
            response = client.get(f"/projects/{project['id']}/members")
        assert response.status_code == 500
        assert response.json() == {"message": "500 Internal Server Error"}
        request_id = response.headers["x-request-id"]
        log = server.log_text()
        assert f"unhandled error in request {request_id}" in log
        assert "project_members" in log  # the cause is in the log, not in the response
        assert "project_members" not in response.text


@pytest.mark.expected_log(r"ERROR outpost\.error unhandled error in request")
def test_the_same_unexpected_error_is_logged_once_with_its_traceback(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        with server.client() as client:
            project = client.post("/projects", json={"name": "doomed"}).json()
            _break_members(data_dir)
            statuses = [client.get(f"/projects/{project['id']}/members").status_code for _ in range(20)]
        log = server.log_text()
    assert statuses == [500] * 20
    assert log.count("unhandled error in request") == 1
    assert log.count("Traceback") <= 2  # the one report (its cause is chained into it)


def test_a_client_that_disconnects_mid_body_is_one_quiet_log_line(tmp_path):
    with start_server(tmp_path / "server") as server:
        parts = urlsplit(server.url)
        with socket.create_connection((parts.hostname, parts.port)) as sock:
            sock.sendall(b"POST /api/v4/projects HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                         b"PRIVATE-TOKEN: " + server.root_token.encode() + b"\r\nContent-Length: 100000\r\n\r\n"
                         b'{"name": "half')
            time.sleep(0.5)

        def entries() -> list[dict]:
            return [entry for entry in server.request_log() if entry["path"] == "/api/v4/projects"]

        # The disconnection is logged first and the request's line after it, in the middleware's `finally`:
        # reading the log as soon as the first is there raced the second on a loaded machine.
        deadline = time.monotonic() + 60
        while "disconnected before sending its whole request" not in server.log_text() or not entries():
            assert time.monotonic() < deadline, server.log_text()[-2000:]
            time.sleep(0.1)
        log = server.log_text()
        logged = entries()
    assert "Traceback" not in log
    assert log.count("disconnected before sending its whole request") == 1
    assert [entry["status"] for entry in logged] == [499]
