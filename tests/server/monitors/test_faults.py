"""A burst of check-ins cut by kill -9: every check-in answered 202 is stored after the restart, once."""

from __future__ import annotations

import signal
import uuid
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import func, select

from outpost_server.monitors.models import MonitorCheckIn
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.support import start_server

from .monitors_api import MonitorsApi

BURST = 300
# A monitor environment takes 6 check-ins a minute (Sentry's limit): the burst is spread over enough
# environments that none of it is dropped for that.
ENVIRONMENTS = 60


def test_every_acknowledged_check_in_survives_kill_9(tmp_path):
    data_dir = tmp_path / "server"
    with start_server(data_dir) as server:
        tracked = make_tracked_project(server, server_sessionmaker(server))
        monitors = MonitorsApi.of(server, tracked)
        url = monitors.cron_url("burst-job")
        # The margin outlasts the test (its timeout is 5 minutes): the server's clock marks no missed check-in,
        # which would be one row more than those sent.
        created = httpx.post(url, json={"status": "ok", "monitor_config": {
            "schedule": {"type": "crontab", "value": "* * * * *"}, "checkin_margin": 10}})
        assert created.status_code == 202
        monitors.all()
        ids = [uuid.uuid4().hex for _ in range(BURST)]
        with httpx.Client(timeout=30) as client, ThreadPoolExecutor(16) as pool:
            statuses = list(pool.map(lambda numbered: client.get(url, params={
                "status": "ok", "check_in_id": numbered[1], "environment": f"env-{numbered[0] % ENVIRONMENTS}"},
            ).status_code, enumerate(ids)))
        assert statuses == [202] * BURST
        server.stop(signal.SIGKILL)
        env = {name: value for name, value in server.env.items() if name.startswith("OUTPOST_")}
    with start_server(data_dir, root_token=server.root_token, extra_env=env) as restarted:
        restarted.wait_for_digest()
        sessions = server_sessionmaker(restarted)

        def stored() -> set[str]:
            with sessions() as session:
                return set(session.scalars(select(MonitorCheckIn.guid)))

        assert set(ids) <= stored() and len(stored()) == BURST + 1
        # The same check-ins sent again change nothing: a finished check-in is never stored twice.
        url = MonitorsApi.of(restarted, tracked).cron_url("burst-job")
        with httpx.Client(timeout=30) as client:
            assert {client.get(url, params={"status": "ok", "check_in_id": check_in_id,
                                            "environment": f"env-{number % ENVIRONMENTS}"}).status_code
                    for number, check_in_id in enumerate(ids[:50])} == {202}
        restarted.wait_for_digest()
        with sessions() as session:
            assert session.scalar(select(func.count()).select_from(MonitorCheckIn)) == BURST + 1
