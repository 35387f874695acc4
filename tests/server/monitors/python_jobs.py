"""Jobs watched by the newest sentry-sdk's cron monitoring: `python python_jobs.py DSN`.

`nightly-backup` succeeds, `invoice-run` raises, `slow-export` sleeps past its max_runtime of one
minute (its in_progress check-in is finished `ok` after the timeout was due), and `heartbeat` is
reported by hand with capture_checkin, in_progress then ok.

Type checking reads the project's own sentry-sdk 1.x, whose `monitor` takes no `monitor_config` yet; this
runs with the newest 2.x (tests/server/error_tracking/sdk_apps/requirements-latest.txt), hence the ignores.
"""

import sys
import time

import sentry_sdk
from sentry_sdk.crons import capture_checkin, monitor
from sentry_sdk.crons.consts import MonitorStatus

print("sentry-sdk", sentry_sdk.VERSION)
sentry_sdk.init(dsn=sys.argv[1], environment="production")
SLEEP = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0

BACKUP = {"schedule": {"type": "crontab", "value": "0 2 * * *"}, "timezone": "Europe/Berlin",
          "checkin_margin": 5, "max_runtime": 30, "failure_issue_threshold": 2, "recovery_threshold": 1}
INVOICES = {"schedule": {"type": "interval", "value": 1, "unit": "hour"}, "checkin_margin": 10}
EXPORT = {"schedule": {"type": "interval", "value": 10, "unit": "minute"}, "max_runtime": 1}


@monitor(monitor_slug="nightly-backup", monitor_config=BACKUP)  # type: ignore[call-arg]
def backup():
    return "done"


@monitor(monitor_slug="invoice-run", monitor_config=INVOICES)  # type: ignore[call-arg]
def invoices():
    raise RuntimeError("invoice service down")


@monitor(monitor_slug="slow-export", monitor_config=EXPORT)  # type: ignore[call-arg]
def export():
    time.sleep(SLEEP)


backup()
try:
    invoices()
except RuntimeError:
    pass
# The margin outlasts the run: with the default minute, a heartbeat sent in the last seconds before a fifth
# minute was rightly marked missed before the slow export ended, and the test's outcome hung on the clock.
check_in_id = capture_checkin(monitor_slug="heartbeat", status=MonitorStatus.IN_PROGRESS,
                              monitor_config={"schedule": {"type": "crontab", "value": "*/5 * * * *"},
                                              "checkin_margin": 5})
capture_checkin(monitor_slug="heartbeat", check_in_id=check_in_id, status=MonitorStatus.OK, duration=1.5)
sentry_sdk.flush(timeout=10)
if SLEEP:
    export()
sentry_sdk.flush(timeout=10)
print("done")
