"""A SQLite write lock held by another process: writes wait a bounded time and then answer 503 with
Retry-After, while reads and /version keep answering (they never queue behind the writes)."""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.support import start_server

pytestmark = pytest.mark.skipif(bool(os.environ.get("OUTPOST_TEST_PG_ADMIN_URL")),
                                reason="the lock in question is SQLite's (this run's database is PostgreSQL)")


@pytest.mark.expected_log(
    r"the database is unreachable",
    r"the database is reachable again",
    r"works again after \d+ failures",
)
def test_writes_give_up_with_503_while_reads_and_version_answer(tmp_path):
    with start_server(tmp_path / "server", extra_env={"OUTPOST_DATABASE_WAIT_SECONDS": "2"}) as server:
        headers = {"PRIVATE-TOKEN": server.root_token}
        with httpx.Client(base_url=server.api_url, headers=headers, timeout=60) as client:
            project = client.post("/projects", json={"name": "locked"}).json()  # the token's last use is noted
            holder = sqlite3.connect(server.data_dir / "outpost.sqlite3", isolation_level=None, timeout=30)
            holder.execute("BEGIN IMMEDIATE")
            released = threading.Event()

            def write(number: int) -> httpx.Response:
                return client.post("/projects", json={"name": f"waiting {number}"})

            with ThreadPoolExecutor(41) as pool:
                writes = [pool.submit(write, number) for number in range(41)]
                time.sleep(0.5)  # the writes are queued or waiting now
                reads = [client.get("/version"), client.get(f"/projects/{project['id']}"), client.get("/user")]
                read_while_locked = not released.is_set()
                answers = [future.result() for future in writes]
                released.set()
            holder.execute("ROLLBACK")
            holder.close()
            after = client.post("/projects", json={"name": "after"})
        log = server.log_text()
    assert read_while_locked and [read.status_code for read in reads] == [200, 200, 200]
    statuses = {answer.status_code for answer in answers}
    assert statuses == {503}, statuses
    assert all(answer.headers["Retry-After"] == "5" for answer in answers)
    assert all(answer.json() == {"message": "503 Service Unavailable"} for answer in answers)
    assert after.status_code == 201
    assert "Traceback" not in log
