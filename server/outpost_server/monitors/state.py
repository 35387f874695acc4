"""A monitor environment's status after a check-in, as Sentry's mark_ok and mark_failed decide it.

An environment turns failing (`error`) once its last `failure_issue_threshold` finished check-ins all
failed (error, missed or timed out; 1 when unset), and recovers (`ok`) once its last
`recovery_threshold` are all ok. Each turn is told to the observers registered by the application
(alerts), in the transaction that made it; a muted monitor turns without telling anyone.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from .models import FAILED_STATUSES, Monitor, MonitorCheckIn, MonitorEnvironment

FINISHED = ("ok", *FAILED_STATUSES)


@dataclass(frozen=True)
class MonitorTurn:
    """A monitor environment that turned failing or recovered."""

    project_id: int
    monitor_id: int
    monitor_slug: str
    monitor_name: str
    environment: str
    # failing or recovered
    kind: str
    # The status of the check-in that made it turn (error, missed, timeout or ok).
    check_in_status: str


TurnObserver = Callable[[Session, list[MonitorTurn]], None]
_observers: list[TurnObserver] = []


def observe_turns(observer: TurnObserver) -> None:
    """Registers `observer` once; it runs in the transaction of every turn."""
    if observer not in _observers:
        _observers.append(observer)


def _last_finished(session: Session, environment: MonitorEnvironment, count: int) -> list[str]:
    return list(session.scalars(
        select(MonitorCheckIn.status)
        .where(MonitorCheckIn.monitor_environment_id == environment.id, MonitorCheckIn.status.in_(FINISHED))
        .order_by(MonitorCheckIn.id.desc()).limit(count)))


def settle(session: Session, monitor: Monitor, environment: MonitorEnvironment, check_in: MonitorCheckIn) -> None:
    """Moves the environment's status after `check_in` finished (ok or failed) and reports a turn."""
    session.flush()
    failed = check_in.status in FAILED_STATUSES
    kind = None
    if failed and environment.status != "error":
        threshold = monitor.failure_issue_threshold or 1
        last = _last_finished(session, environment, threshold)
        if len(last) == threshold and all(status in FAILED_STATUSES for status in last):
            environment.status, kind = "error", "failing"
    elif not failed and check_in.status == "ok":
        if environment.status == "error":
            threshold = monitor.recovery_threshold or 1
            last = _last_finished(session, environment, threshold)
            if len(last) == threshold and all(status == "ok" for status in last):
                environment.status, kind = "ok", "recovered"
        else:
            environment.status = "ok"
    if kind is None or monitor.is_muted:
        return
    turn = MonitorTurn(monitor.project_id, monitor.id, monitor.slug, monitor.name, environment.environment, kind,
                       check_in.status)
    for observer in _observers:
        observer(session, [turn])
