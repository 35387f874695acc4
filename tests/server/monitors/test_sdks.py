"""Check-ins from real clients: the newest sentry-sdk's @monitor and capture_checkin, sentry-cli's
`monitors run` (the project's pinned sentry-cli 3), and @sentry/node's withMonitor; each creates its
monitor with its configuration."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.server.error_tracking.toolchains import NODE_LATEST, node_latest_modules, python_latest, require_tool

HERE = Path(__file__).resolve().parent
TIMEOUT = 240
# slow-export's max_runtime is one minute from the start's minute: past it whatever second it started.
SLOW_JOB_SECONDS = 75


def _run(command: list[str], *, env: dict[str, str] | None = None, cwd: Path = HERE) -> str:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
                            env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


# A job must outlive max_runtime, whose smallest value is a minute (SLOW_JOB_SECONDS).
@pytest.mark.budget(150)
def test_python_sdk_monitor_decorator_and_capture_checkin(monitors, tracked):
    sdk = python_latest()
    _run([sys.executable, str(HERE / "python_jobs.py"), tracked.dsn, str(SLOW_JOB_SECONDS)],
         env={"PYTHONPATH": str(sdk)})
    found = monitors.all()
    assert set(found) == {"nightly-backup", "invoice-run", "slow-export", "heartbeat"}
    backup = found["nightly-backup"]["config"]
    assert (backup["schedule_type"], backup["schedule"], backup["timezone"], backup["checkin_margin"],
            backup["max_runtime"], backup["failure_issue_threshold"], backup["recovery_threshold"]) == (
        "crontab", "0 2 * * *", "Europe/Berlin", 5, 30, 2, 1)
    assert found["invoice-run"]["config"]["schedule"] == [1, "hour"]
    # Each run's in_progress check-in was finished by the decorator: ok, error, ok.
    assert [c["status"] for c in monitors.check_ins("nightly-backup")] == ["ok"]
    assert [c["status"] for c in monitors.check_ins("invoice-run")] == ["error"]
    assert [c["status"] for c in monitors.check_ins("heartbeat")] == ["ok"]
    assert monitors.check_ins("heartbeat")[0]["duration"] == 1500
    # The job that outlived max_runtime was marked timed out while it ran; its late "ok" changed nothing.
    [slow] = monitors.check_ins("slow-export")
    assert slow["status"] == "timeout"
    statuses = {name: monitor["environments"][0]["status"] for name, monitor in found.items()}
    # invoice-run fails at once (threshold 1); nightly-backup would need two failures in a row.
    assert statuses == {"nightly-backup": "ok", "invoice-run": "error", "slow-export": "error", "heartbeat": "ok"}


def test_sentry_cli_monitors_run(monitors, tracked):
    # The project's own sentry-cli (constraints.txt), whose `monitors run` can configure the monitor.
    cli = str(Path(sys.executable).parent / "sentry-cli")
    env = {"SENTRY_DSN": tracked.dsn, "SENTRY_DISABLE_UPDATE_CHECK": "true", "SENTRY_LOAD_DOTENV": "0"}
    _run([cli, "monitors", "run", "--schedule", "*/10 * * * *", "--check-in-margin", "3", "--max-runtime", "15",
          "--timezone", "America/New_York", "report-mailer", "--", "true"], env=env)
    monitor = monitors.all()["report-mailer"]
    assert (monitor["config"]["schedule"], monitor["config"]["checkin_margin"], monitor["config"]["max_runtime"],
            monitor["config"]["timezone"]) == ("*/10 * * * *", 3, 15, "America/New_York")
    assert [c["status"] for c in monitors.check_ins("report-mailer")] == ["ok"]
    # A failing command is an error check-in; sentry-cli passes its exit code on.
    failed = subprocess.run([cli, "monitors", "run", "report-mailer", "--", "false"], capture_output=True,
                            text=True, timeout=TIMEOUT, env={**os.environ, **env})
    assert failed.returncode != 0
    assert [c["status"] for c in monitors.check_ins("report-mailer")] == ["error", "ok"]


def test_node_with_monitor(monitors, tracked):
    node = require_tool("node", "nodejs")
    modules = node_latest_modules()
    _run([node, str(HERE / "node_job.js"), tracked.dsn], cwd=NODE_LATEST, env={"NODE_PATH": str(modules)})
    monitor = monitors.all()["queue-drain"]
    assert (monitor["config"]["schedule"], monitor["config"]["checkin_margin"]) == ([15, "minute"], 2)
    assert [c["status"] for c in monitors.check_ins("queue-drain")] == ["ok"]
