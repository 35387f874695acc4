"""What a stored batch did to each error, handed to the observers registered by the application (alerts)
inside the batch's own transaction, so what they write commits, or not, with the events; and the batch's
monitor check-ins, handed the same way to the one store that keeps them (monitors).

Error tracking knows nothing of its observers: the composition (app.py) registers them.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from sqlalchemy.engine import Connection

from outpost_server.error_tracking.ingest.check_in_items import CheckInItem


@dataclass(frozen=True)
class EventFacts:
    environment: str | None
    level: str
    release: str | None
    user_key: str | None


@dataclass(frozen=True)
class ErrorActivity:
    project_id: int
    error_id: int
    # As the batch's first event of the error titles it: for a new error, the event that made it.
    title: str
    # First stored by this batch.
    new: bool
    # Was resolved, and happened again in this batch.
    regressed: bool
    events: tuple[EventFacts, ...]


BatchObserver = Callable[[Connection, list[ErrorActivity]], None]
_observers: list[BatchObserver] = []


def observe_batches(observer: BatchObserver) -> None:
    """Registers `observer` once; it runs at the end of every stored batch, in its transaction."""
    if observer not in _observers:
        _observers.append(observer)


def report(connection: Connection, activity: list[ErrorActivity]) -> None:
    for observer in _observers:
        observer(connection, activity)


@dataclass(frozen=True)
class ReceivedCheckIns:
    """The check-ins of one accepted request, in the order sent."""

    project_id: int
    received_at: dt.datetime
    check_ins: tuple[CheckInItem, ...]


CheckInStore = Callable[[Connection, list[ReceivedCheckIns]], None]
_check_in_stores: list[CheckInStore] = []


def store_check_ins_with(store: CheckInStore) -> None:
    """Registers the store of check-ins (once); it runs in every stored batch's transaction."""
    if store not in _check_in_stores:
        _check_in_stores.append(store)


def report_check_ins(connection: Connection, received: list[ReceivedCheckIns]) -> None:
    for store in _check_in_stores:
        store(connection, received)
