"""Release health: sessions started, crashed, errored and abnormal per release and environment."""

from __future__ import annotations

from sqlalchemy import and_, case, func, or_, select
from sqlalchemy.orm import Session

from outpost_model.error_tracking import ReleaseHealth
from outpost_server.accounts.models import Project
from outpost_server.error_tracking.models import ReleaseSession, SessionAggregate


def release_health(session: Session, *, project: Project) -> list[ReleaseHealth]:
    """Sessions started, crashed, errored (had errors but did not crash) per release and environment."""
    totals: dict[tuple[str, str], list[int]] = {}
    single = session.execute(
        select(
            ReleaseSession.release,
            ReleaseSession.environment,
            func.count(),
            func.sum(case((ReleaseSession.status == "crashed", 1), else_=0)),
            func.sum(case((and_(ReleaseSession.status != "crashed",
                                or_(ReleaseSession.errors > 0, ReleaseSession.status == "errored")), 1), else_=0)),
            func.sum(case((ReleaseSession.status == "abnormal", 1), else_=0)),
        )
        .where(ReleaseSession.project_id == project.id)
        .group_by(ReleaseSession.release, ReleaseSession.environment)
    )
    for release, environment, started, crashed, errored, abnormal in single:
        totals[(release, environment)] = [started, crashed or 0, errored or 0, abnormal or 0]
    aggregated = session.execute(
        select(
            SessionAggregate.release,
            SessionAggregate.environment,
            func.sum(SessionAggregate.exited + SessionAggregate.errored + SessionAggregate.abnormal
                     + SessionAggregate.crashed),
            func.sum(SessionAggregate.crashed),
            func.sum(SessionAggregate.errored),
            func.sum(SessionAggregate.abnormal),
        )
        .where(SessionAggregate.project_id == project.id)
        .group_by(SessionAggregate.release, SessionAggregate.environment)
    )
    for release, environment, *counts in aggregated:
        row = totals.setdefault((release, environment), [0, 0, 0, 0])
        for index, value in enumerate(counts):
            row[index] += value or 0
    return [_health(release, environment, *values) for (release, environment), values in sorted(totals.items())]


def _health(release: str, environment: str, sessions: int, crashed: int, errored: int, abnormal: int
            ) -> ReleaseHealth:
    """The share of sessions that did not crash in percent, two decimals; None without sessions."""
    rate = None if sessions == 0 else round(100 * (1 - crashed / sessions), 2)
    return ReleaseHealth(release=release, environment=environment, sessions=sessions, crashed=crashed,
                         errored=errored, abnormal=abnormal, crash_free_rate=rate)
