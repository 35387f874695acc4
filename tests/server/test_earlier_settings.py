"""Settings that earlier releases documented under another name: honoured, or refused at start by name."""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys

from tests.support import REPO_ROOT, ApiHelper, launch_server


def test_the_old_export_lifetime_setting_is_honoured(tmp_path):
    server = launch_server(tmp_path, extra_env={"OUTPOST_EXPORT_LIFETIME_SECONDS": "7200"})
    try:
        project = ApiHelper(server).project()
        with server.client() as client:
            created = client.post(f"/security/projects/{project['id']}/vulnerability_exports", json={})
        assert created.status_code == 201, created.text
        body = created.json()
        lifetime = dt.datetime.fromisoformat(body["expires_at"]) - dt.datetime.fromisoformat(body["created_at"])
        assert lifetime.total_seconds() == 7200
    finally:
        server.stop()


def test_a_removed_setting_refuses_the_start_by_name(tmp_path):
    env = {**os.environ, "OUTPOST_ERROR_TRACKING_PAYLOADS_PER_ERROR": "50"}
    result = subprocess.run([sys.executable, "-m", "outpost_server", "serve", "--port", "0", "--data-dir",
                             str(tmp_path)], capture_output=True, text=True, env=env, cwd=REPO_ROOT, timeout=120)
    assert result.returncode == 1
    assert result.stderr.startswith("OUTPOST_ERROR_TRACKING_PAYLOADS_PER_ERROR is no longer a setting: ")
    assert "OUTPOST_ERROR_TRACKING_EVENTS_PER_ERROR" in result.stderr
    assert "Traceback" not in result.stderr
    assert list(tmp_path.iterdir()) == []
