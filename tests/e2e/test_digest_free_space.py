"""The digest keeps a free-space floor on the data dir's disk: below it, it stops storing (the collector
keeps accepting into the spool) rather than fill the disk and be unable to remove what it stored; it says
so once, and resumes by itself once there is space again."""

from __future__ import annotations

import os
import shutil
import time

from tests.e2e.databases import database_url, stored_event_ids
from tests.e2e.test_ingest_faults import send_one, small_disk, tracked_project  # noqa: F401 - the fixture
from tests.support import launch_server

FLOOR = 20 * 1024**2
PAUSED = "digesting pauses until there is more"
RESUMED = "digesting resumes"


def test_below_the_floor_the_digest_waits_and_says_so_once(small_disk):  # noqa: F811
    server = launch_server(small_disk / "data",
                           extra_env={"OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES": str(FLOOR)})
    try:
        project_id, key = tracked_project(server)
        assert send_one(server, key, project_id).status_code == 200
        server.wait_for_digest()
        before = len(stored_event_ids(database_url(server), project_id))
        filler = small_disk / "filler"
        with open(filler, "wb") as handle:  # leaves half the floor free
            os.posix_fallocate(handle.fileno(), 0, shutil.disk_usage(small_disk).free - FLOOR // 2)
        assert [send_one(server, key, project_id).status_code for _ in range(20)] == [200] * 20
        time.sleep(3.0)
        assert len(stored_event_ids(database_url(server), project_id)) == before
        assert server.log_text().count(PAUSED) == 1
        filler.unlink()
        deadline = time.monotonic() + 30
        while len(stored_event_ids(database_url(server), project_id)) < before + 20:
            assert time.monotonic() < deadline, "the digest did not resume"
            time.sleep(0.2)
        log = server.log_text()
    finally:
        server.stop()
    assert (log.count(PAUSED), log.count(RESUMED)) == (1, 1)
    assert "removing digested entries from the ingest spool failed" not in log
