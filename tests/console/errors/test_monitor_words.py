"""A monitor's schedule in words, as the Monitors page shows it."""

from __future__ import annotations

import pytest

from console.core.api.monitors import MonitorConfig
from console.core.errors.monitor_words import schedule_words


@pytest.mark.parametrize(("config", "words"), [
    ({"schedule_type": "crontab", "schedule": "0 2 * * *", "timezone": "Europe/Berlin"},
     "every day at 02:00 Europe/Berlin"),
    ({"schedule_type": "crontab", "schedule": "* * * * *", "timezone": "UTC"}, "every minute UTC"),
    ({"schedule_type": "crontab", "schedule": "*/5 * * * *"}, "every 5 minutes UTC"),
    ({"schedule_type": "crontab", "schedule": "15 * * * *"}, "every hour at minute 15 UTC"),
    ({"schedule_type": "crontab", "schedule": "0 */6 * * *"}, "every 6 hours at minute 0 UTC"),
    ({"schedule_type": "crontab", "schedule": "30 9 * * 1", "timezone": "America/New_York"},
     "every Monday at 09:30 America/New_York"),
    ({"schedule_type": "crontab", "schedule": "0 18 * * 1-5"}, "every weekday at 18:00 UTC"),
    ({"schedule_type": "crontab", "schedule": "0 3 1 * *"}, "every month on day 1 at 03:00 UTC"),
    ({"schedule_type": "crontab", "schedule": "0 3 1-7 * 1"}, "cron 0 3 1-7 * 1 UTC"),
    ({"schedule_type": "interval", "schedule": [1, "day"]}, "every day UTC"),
    ({"schedule_type": "interval", "schedule": [10, "minute"], "timezone": "Asia/Tokyo"},
     "every 10 minutes Asia/Tokyo"),
])
def test_schedule_words(config, words):
    given = MonitorConfig(schedule_type=config["schedule_type"], schedule=config["schedule"],
                          timezone=config.get("timezone", ""), checkin_margin=None, max_runtime=None,
                          failure_issue_threshold=None, recovery_threshold=None, alert_rule_id=None)
    assert schedule_words(given) == words
