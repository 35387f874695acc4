"""When refused origins are written: the first refusal at once, later ones together by the flusher;
what is pending when the server stops is written as it stops."""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time

import httpx

from outpost_server.error_tracking.ingest.origin_refusals import OriginRefusals, Refusals
from tests.sdk_errors import enable_integrated
from tests.support import ApiHelper, start_server


def test_first_refusal_is_due_at_once_and_the_rest_wait_for_the_flush() -> None:
    refusals = OriginRefusals(sessions=None, flush_seconds=3600)  # type: ignore[arg-type]  # nothing written here
    first = refusals.note(7, "https://a.example")
    assert first is not None and (first.count, first.origin) == (1, "https://a.example")
    assert all(refusals.note(7, f"https://{n}.example") is None for n in range(99))
    other = refusals.note(8, "https://b.example")
    assert other is not None and other.count == 1, "each project has its own window"
    pending = refusals.take_pending()
    assert list(pending) == [7] and pending[7].count == 99 and pending[7].origin == "https://98.example"
    assert refusals.note(7, "https://c.example") is None, "the flush counts as a write"
    assert refusals.take_pending()[7].count == 1 and refusals.take_pending() == {}


def test_every_refusal_is_due_when_the_window_is_zero() -> None:
    refusals = OriginRefusals(sessions=None, flush_seconds=0)  # type: ignore[arg-type]  # nothing written here
    assert [refusal.count for refusal in (refusals.note(1, "https://a.example") for _ in range(3))
            if refusal is not None] == [1, 1, 1]


def test_refusals_pending_at_shutdown_are_written(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        helper = ApiHelper(server)
        project = helper.project()
        dsn = enable_integrated(helper.root, project["id"])
        key = dsn.split("//")[1].split("@")[0]
        helper.root.patch(f"/projects/{project['id']}/error_tracking/settings",
                          json={"active": True, "allowed_origins": ["https://shop.example.com"]}).raise_for_status()
        with httpx.Client(base_url=server.url) as collector:
            for _ in range(25):
                refused = collector.post(f"/api/v4/error_tracking/collector/api/{project['id']}/store/",
                                         params={"sentry_key": key, "sentry_version": "7"},
                                         content=b'{"message": "x"}', headers={"Origin": "https://evil.example"})
                assert refused.status_code == 403
        assert server.stop() == 0
    with start_server(data_dir) as restarted:
        setting = ApiHelper(restarted).root.get(f"/projects/{project['id']}/error_tracking/settings").json()
    assert setting["rejected_origins"]["count"] == 25


class SlowlyWritten(OriginRefusals):
    """Writes into a list, after a pause: long enough for the stop to cancel the flush midway."""

    def __init__(self) -> None:
        super().__init__(sessions=None, flush_seconds=3600)  # type: ignore[arg-type]  # write() is replaced
        self.written: list[int] = []
        self.writing = threading.Event()

    def write(self, refusals: dict[int, Refusals]) -> None:
        self.writing.set()
        time.sleep(0.3)
        self.written.extend(refused.count for refused in refusals.values())


def test_a_flush_cancelled_by_the_stop_is_not_written_twice() -> None:
    async def scenario() -> list[int]:
        refusals = SlowlyWritten()
        refusals.note(7, "https://a.example")
        for _ in range(24):
            refusals.note(7, "https://a.example")
        flushing = asyncio.ensure_future(refusals.flush())
        await asyncio.get_running_loop().run_in_executor(None, refusals.writing.wait)
        flushing.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await flushing
        await refusals.finish()
        return refusals.written

    assert asyncio.run(scenario()) == [24]
