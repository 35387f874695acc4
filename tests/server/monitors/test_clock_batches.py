"""The monitor clock writes its marks a hundred to a transaction: on SQLite each transaction takes the one
write lock, so a clock catching up on thousands of missed check-ins must not queue the API's writes behind
one transaction per mark.

The clock runs here in the test's process (its server's own clock is off), on the server's database, so
that each commit can be watched; nothing else about it is replaced."""

from __future__ import annotations

import datetime as dt
import uuid

from sqlalchemy import event, func, select
from sqlalchemy.orm import Session

from outpost_server.error_tracking.retention.limits import RetentionPolicy
from outpost_server.monitors.clock import MARKS_PER_TRANSACTION, MonitorClockWorker
from outpost_server.monitors.models import Monitor, MonitorCheckIn, MonitorEnvironment
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.support import start_server

OVERDUE = 2 * MARKS_PER_TRANSACTION + 50


def test_the_clock_writes_its_marks_a_hundred_to_a_transaction(tmp_path):
    with start_server(tmp_path / "server", extra_env={"OUTPOST_MONITOR_CLOCK": "false"}) as server:
        sessions = server_sessionmaker(server)
        tracked = make_tracked_project(server, sessions)
        late = dt.datetime.now(dt.UTC) - dt.timedelta(minutes=5)
        with sessions.begin() as session:
            for number in range(OVERDUE):
                monitor = Monitor(guid=uuid.uuid4().hex, project_id=tracked.id, slug=f"late-{number}",
                                  name=f"late-{number}", status="active", is_muted=False, schedule_type="crontab",
                                  schedule="* * * * *")
                session.add(monitor)
                session.flush()
                session.add(MonitorEnvironment(monitor_id=monitor.id, environment="production", status="active",
                                               next_checkin=late, next_checkin_latest=late))
        marks_per_commit: list[int] = []

        @event.listens_for(sessions, "after_flush")
        def count_marks(session: Session, _context: object) -> None:
            marks = sum(isinstance(row, MonitorCheckIn) for row in session.new)
            session.info["marks"] = session.info.get("marks", 0) + marks

        @event.listens_for(sessions, "after_commit")
        def note_commit(session: Session) -> None:
            marks_per_commit.append(session.info.pop("marks", 0))

        clock = MonitorClockWorker(sessions, interval_seconds=60,
                                   retention=RetentionPolicy(retention_days=90, events_per_error=100,
                                                             max_stored_bytes=0))
        clock._round()
        with sessions() as session:
            missed = session.scalar(select(func.count()).select_from(MonitorCheckIn).where(
                MonitorCheckIn.project_id == tracked.id, MonitorCheckIn.status == "missed"))
        assert missed == OVERDUE
        assert [marks for marks in marks_per_commit if marks] == [MARKS_PER_TRANSACTION, MARKS_PER_TRANSACTION, 50]
