"""Sentry's check-in rate limit: a monitor environment takes at most CHECKIN_QUOTA_LIMIT (6) check-ins a
minute, counted per project, slug and environment as sent (sentry/monitors/consumers/monitor_consumer.py's
`check_ratelimit`, keyed by `CheckinItem.processing_key` and the minute the check-in was received, so a
backlog digested late is counted by when it arrived). Every check-in counts, a monitor's or not, a new
one or the update of one in progress; the excess is dropped (Sentry's outcome `rate_limited`), after the
SDK was already answered 202, as Relay answers before Sentry's consumer reads it.

The counts live in the digester (one per spool writes all its check-ins) and are lost with it, as
Sentry's Redis counters expire: a restart lets one more minute's worth through, no more.
"""

from __future__ import annotations

import datetime as dt
import threading

CHECKINS_PER_MINUTE = 6

Key = tuple[int, str, str | None, dt.datetime]


class CheckInRate:
    def __init__(self, limit: int = CHECKINS_PER_MINUTE):
        self.limit = limit
        self._counts: dict[Key, int] = {}
        self._latest_minute: dt.datetime | None = None
        self._lock = threading.Lock()

    def admit(self, *, project_id: int, slug: str, environment: str | None, received_at: dt.datetime) -> bool:
        """Counts one check-in; False once its environment had its limit in the minute it was received."""
        minute = received_at.replace(second=0, microsecond=0)
        key = (project_id, slug, environment, minute)
        with self._lock:
            self._forget_before(minute)
            count = self._counts.get(key, 0) + 1
            self._counts[key] = count
        return count <= self.limit

    def _forget_before(self, minute: dt.datetime) -> None:
        # Received times only move on (the spool is digested in order), bar a clock step back: counts
        # older than the minute before the latest are never read again.
        if self._latest_minute is not None and minute <= self._latest_minute:
            return
        self._latest_minute = minute
        horizon = minute - dt.timedelta(minutes=1)
        for stale in [key for key in self._counts if key[3] < horizon]:
            del self._counts[stale]
