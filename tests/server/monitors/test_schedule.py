"""Schedule arithmetic against a table: crontabs and intervals, time zones and daylight saving changes,
checked against what cronsim, dateutil and Sentry's docs say (expected times cut to the minute, crontabs
read in the monitor's time zone, a time that does not exist on the spring-forward day runs at the first
minute after the gap, a repeated hour on the fall-back day runs once)."""

from __future__ import annotations

import datetime as dt

import pytest

from outpost_server.domain_errors import Invalid
from outpost_server.monitors.schedule import parse_config

UTC = dt.timezone.utc


def _utc(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=UTC)


TABLE = [
    # (schedule, timezone, reference in UTC, next expected in UTC)
    ("0 * * * *", None, "2026-05-01 05:30:00", "2026-05-01 06:00"),
    ("30 * * * *", None, "2026-05-01 05:30:00", "2026-05-01 06:30"),
    ("*/15 * * * *", None, "2026-05-01 05:31:59", "2026-05-01 05:45"),
    ("@daily", None, "2026-05-01 05:30:00", "2026-05-02 00:00"),
    ("0 0 * * 0", None, "2026-05-01 05:30:00", "2026-05-03 00:00"),  # @weekly: Sunday
    ("0 2 * * *", "Europe/Berlin", "2026-01-10 12:00:00", "2026-01-11 01:00"),  # CET, UTC+1
    ("0 2 * * *", "Europe/Berlin", "2026-07-10 12:00:00", "2026-07-11 00:00"),  # CEST, UTC+2
    # Spring forward in Berlin, 29 March 2026: 02:00-03:00 does not exist; 02:30 runs at 03:00 CEST.
    ("30 2 * * *", "Europe/Berlin", "2026-03-28 12:00:00", "2026-03-29 01:00"),
    ("30 2 * * *", "Europe/Berlin", "2026-03-29 01:00:00", "2026-03-30 00:30"),
    # Fall back in Berlin, 25 October 2026: 02:30 happens twice and runs the first time (CEST) only.
    ("30 2 * * *", "Europe/Berlin", "2026-10-24 12:00:00", "2026-10-25 00:30"),
    ("30 2 * * *", "Europe/Berlin", "2026-10-25 00:30:00", "2026-10-26 01:30"),
    # New York springs forward on 8 March 2026 at 02:00 EST.
    ("0 9 * * 1-5", "America/New_York", "2026-03-06 15:00:00", "2026-03-09 13:00"),
    ("0 9 * * 1-5", "America/New_York", "2026-03-05 15:00:00", "2026-03-06 14:00"),
    # Intervals step from the reference in its zone: a day is a calendar day, 23 hours across spring forward.
    ({"type": "interval", "value": 1, "unit": "day"}, "Europe/Berlin", "2026-03-28 10:00:00", "2026-03-29 09:00"),
    ({"type": "interval", "value": 1, "unit": "day"}, None, "2026-03-28 10:00:00", "2026-03-29 10:00"),
    ({"type": "interval", "value": 90, "unit": "minute"}, None, "2026-05-01 23:00:30", "2026-05-02 00:30"),
    ({"type": "interval", "value": 2, "unit": "hour"}, None, "2026-05-01 05:35:00", "2026-05-01 07:35"),
    ({"type": "interval", "value": 1, "unit": "month"}, None, "2026-01-31 08:00:00", "2026-03-31 08:00"),
    ({"type": "interval", "value": 1, "unit": "week"}, None, "2026-05-01 08:00:00", "2026-05-08 08:00"),
]


@pytest.mark.parametrize(("schedule", "timezone", "reference", "expected"), TABLE)
def test_next_expected_check_in(schedule, timezone, reference, expected):
    config = parse_config({"schedule": schedule if isinstance(schedule, dict) else
                           {"type": "crontab", "value": schedule}, "timezone": timezone})
    assert config.next_after(_utc(reference)) == _utc(expected)


@pytest.mark.parametrize(("data", "field"), [
    ({"schedule": {"type": "crontab", "value": "61 * * * *"}}, "schedule"),
    ({"schedule": {"type": "crontab", "value": "0 0 * * * *"}}, "schedule"),  # six fields
    ({"schedule": {"type": "crontab", "value": "@reboot"}}, "schedule"),
    ({"schedule": {"type": "interval", "value": 0, "unit": "day"}}, "schedule"),
    ({"schedule": {"type": "interval", "value": 1, "unit": "fortnight"}}, "schedule"),
    ({"schedule": {"type": "weekly", "value": "x"}}, "schedule_type"),
    ({"schedule": "0 * * * *", "schedule_type": "crontab", "timezone": "Mars/Olympus"}, "timezone"),
    ({"schedule": "0 * * * *", "schedule_type": "crontab", "max_runtime": 10_081}, "max_runtime"),
    ({"schedule": "0 * * * *", "schedule_type": "crontab", "failure_issue_threshold": 0},
     "failure_issue_threshold"),
])
def test_what_sentrys_validator_refuses(data, field):
    with pytest.raises(Invalid) as refused:
        parse_config(data)
    assert field in refused.value.messages


def test_the_forms_sentry_accepts():
    pair = parse_config({"schedule": [5, "minute"], "schedule_type": "interval", "checkin_margin": 0})
    assert (pair.schedule, pair.unit, pair.checkin_margin) == (5, "minute", 1)  # a margin of 0 reads as 1
    spaced = parse_config({"schedule": {"type": "crontab", "value": "  0   2 * *  * "}})
    assert spaced.as_json()["schedule"] == "0 2 * * *"
