"""Monitors a release stored with slugs as sent (before check-ins slugified them) get Sentry's slugs when
this release starts on that database: check-ins stay with their monitor, a slug the project already has
gets a free number, and the job's next check-in, slugified the same way, finds its monitor."""

from __future__ import annotations

import gzip
import json
import sqlite3
import uuid
from urllib.parse import quote

import httpx
import pytest

from tests.support import REPO_ROOT, launch_server

RELEASE = "2026-11-27-c64a493"  # monitors came in with this release (0023_monitors)
RELEASES = REPO_ROOT / "tests" / "fixtures" / "releases"
PROJECT = 1  # shop/webshop in that release's data
STORED = ["Nightly Job", "nightly-job", "line\nbreak", "\u202e", "<script>x</script>", "ok-slug"]
WHEN = "2026-11-27 10:00:00.000000"


def _old_database(path) -> None:
    path.write_bytes(gzip.decompress((RELEASES / f"{RELEASE}.sqlite3.gz").read_bytes()))
    with sqlite3.connect(path) as connection:
        for slug in STORED:
            connection.execute(
                "INSERT INTO monitors (guid, project_id, slug, name, status, is_muted, schedule_type, schedule, "
                "created_at) VALUES (?, ?, ?, ?, 'active', 0, 'crontab', '0 3 * * *', ?)",
                (uuid.uuid4().hex, PROJECT, slug, slug, WHEN))
        [monitor_id] = connection.execute("SELECT id FROM monitors WHERE slug = 'Nightly Job'").fetchone()
        environment = connection.execute(
            "INSERT INTO monitor_environments (monitor_id, environment, status, last_checkin, created_at) "
            "VALUES (?, 'production', 'ok', ?, ?)", (monitor_id, WHEN, WHEN)).lastrowid
        connection.execute(
            "INSERT INTO monitor_checkins (guid, monitor_id, monitor_environment_id, project_id, status, "
            "created_at, updated_at) VALUES (?, ?, ?, ?, 'ok', ?, ?)",
            (uuid.uuid4().hex, monitor_id, environment, PROJECT, WHEN, WHEN))


@pytest.mark.expected_log(r"WARNING outpost_server\.migrations monitor \d+ of project 1: slug .* is now ")
def test_monitors_stored_with_old_slugs_get_sentry_s_slugs_and_keep_their_check_ins(tmp_path):
    recorded = json.loads((RELEASES / f"{RELEASE}.json").read_text())
    (tmp_path / "secret_key").write_text(recorded["secret_key"])
    database = tmp_path / "outpost.sqlite3"
    _old_database(database)
    server = launch_server(tmp_path, root_token=recorded["root_token"], database_url=f"sqlite:///{database}")
    try:
        headers = {"Authorization": f"Bearer {recorded['root_token']}"}
        base = f"{server.url}/api/0/organizations/shop/monitors/"

        def monitors() -> dict[str, dict]:
            response = httpx.get(base, params={"project": str(PROJECT)}, headers=headers, timeout=30)
            assert response.status_code == 200, response.text
            return {monitor["slug"]: monitor for monitor in response.json()}

        def check_ins(slug: str) -> list[dict]:
            response = httpx.get(f"{base}{slug}/checkins/", headers=headers, timeout=30)
            assert response.status_code == 200, response.text
            return response.json()

        # A slug already valid keeps it; the one that slugifies to it takes the next free number.
        assert sorted(monitors()) == sorted(
            ["nightly-job", "nightly-job-2", "line-break", "monitor", "scriptxscript", "ok-slug"])
        assert monitors()["nightly-job-2"]["name"] == "Nightly Job"
        assert [check_in["status"] for check_in in check_ins("nightly-job-2")] == ["ok"]
        assert check_ins("nightly-job") == []
        # The job still sends its old slug; slugified, it reaches the monitor it made.
        [key] = recorded["reads"][f"/api/v4/projects/{PROJECT}/error_tracking/client_keys"]
        cron = (f"{server.url}/api/v4/error_tracking/collector/api/{PROJECT}/cron/{quote('line break')}/"
                f"{key['public_key']}/")
        assert httpx.get(cron, params={"status": "ok"}, timeout=30).status_code == 202
        server.wait_for_digest()
        assert [check_in["status"] for check_in in check_ins("line-break")] == ["ok"]
    finally:
        server.stop()
