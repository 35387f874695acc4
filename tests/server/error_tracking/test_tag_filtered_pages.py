"""Tag-filtered event pages give the events a filter over the whole timeline gives, whichever way they are
read: walking the timeline in chunks (common values) or through the value's tag rows (rare ones), paged
forwards and backwards by cursor, on SQLite and on partitioned PostgreSQL.

Some events arrive late (received days after they occurred), so the timeline's order (occurred at) and
the partitions' (received at) disagree, as they do when an SDK sends what it had queued offline.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
import sqlalchemy
from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.error_tracking.models import ErrorEvent, TrackedError
from outpost_server.error_tracking.read import events
from tests.server.error_tracking.partitioned_db import accepted, engine_for, event, factory_for, projects, store

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
EVENTS = 700
PAGE = 7


def raw_events() -> list[tuple[dict, dt.datetime]]:
    """(event, received at) of one error over four days; every tenth event arrives two days late, and
    three carry a value no other has."""
    made = []
    for number in range(EVENTS):
        occurred = NOW - dt.timedelta(days=3) + dt.timedelta(seconds=number * 3 * 86_400 // EVENTS)
        raw = event(group=1, number=number, moment=occurred)
        if number in (5, 350, 690):
            raw["tags"]["canary"] = "yes"
        late = number % 10 == 0 and occurred + dt.timedelta(days=2) < NOW
        made.append((raw, occurred + dt.timedelta(days=2) if late else occurred))
    return made


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stored(request, tmp_path_factory) -> Iterator[tuple[sqlalchemy.Engine, int, dict[str, dict[str, str]]]]:
    engine = engine_for(request.param, tmp_path_factory.mktemp(request.param))
    project_id = projects(factory_for(engine), 1)[0]
    made = raw_events()
    store(engine, [accepted(project_id, raw, received) for raw, received in made])
    with Session(engine) as session:
        error_id = session.scalar(select(TrackedError.id).where(TrackedError.project_id == project_id))
    assert error_id is not None
    yield engine, error_id, {raw["event_id"]: {**raw["tags"], "environment": raw["environment"]} for raw, _ in made}
    engine.dispose()


def expected(session: Session, error_id: int, tags_by_event: dict[str, dict[str, str]],
             wanted: dict[str, str]) -> list[str]:
    """The filter applied to the whole timeline, newest first."""
    timeline = session.scalars(select(ErrorEvent.event_id).where(ErrorEvent.error_id == error_id)
                               .order_by(ErrorEvent.occurred_at.desc(), ErrorEvent.id.desc())).all()
    return [event_id for event_id in timeline
            if all(tags_by_event[event_id].get(key) == value for key, value in wanted.items())]


def paged(session: Session, error: TrackedError, wanted: dict[str, str], *, backwards_from: int | None = None
          ) -> list[str]:
    """Every page from the newest on (or from a boundary backwards to the newest), joined newest first."""
    pages: list[list[str]] = []
    boundary, backwards = backwards_from, backwards_from is not None
    while True:
        window = events.events_window(session, error=error, limit=PAGE, boundary_id=boundary, backwards=backwards,
                                      tags=wanted)
        if not window.rows:
            break
        ids = [row.event_id for row in window.rows]
        pages.insert(0, ids) if backwards else pages.append(ids)
        if not (window.has_before if backwards else window.has_after):
            break
        boundary = (window.rows[0] if backwards else window.rows[-1]).id
    return [event_id for page in pages for event_id in page]


@pytest.mark.parametrize("wanted, walks", [
    ({"shard": "1"}, True),
    ({"shard": "2", "region": "eu-1"}, True),
    ({"canary": "yes"}, False),
    ({"shard": "3", "environment": "staging"}, True),
    ({"server_name": "web-404"}, False),
])
def test_pages_match_the_whole_timeline_filtered(stored, wanted, walks, monkeypatch):
    engine, error_id, tags_by_event = stored
    # Scaled to this error's 700 events: values on fewer than about 1 % of them are looked up by their rows.
    monkeypatch.setattr(events, "CHUNK_MAX", 1_000)
    with Session(engine) as session:
        error = session.get_one(TrackedError, error_id)
        row_tags = {key: value for key, value in wanted.items() if key not in events.TAG_COLUMNS}
        assert (events._chunk_size(session, error, row_tags, PAGE) is not None) == walks
        everything = expected(session, error_id, tags_by_event, wanted)
        assert paged(session, error, wanted) == everything
        if len(everything) > 2 * PAGE:
            # Backwards from an event in the middle: the newer matching events, in order.
            half = len(everything) // 2
            middle = session.scalar(select(ErrorEvent.id).where(ErrorEvent.event_id == everything[half]))
            assert paged(session, error, wanted, backwards_from=middle) == everything[:half]
    if wanted == {"server_name": "web-404"}:
        assert everything == []
    else:
        assert everything, "the filter matches some events"
