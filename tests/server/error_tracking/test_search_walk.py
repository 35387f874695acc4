"""A search of the error list gives the errors a filter over every error gives, in the list's order, paged
forwards and backwards by cursor, whether its matches fill a page from the first chunk walked, from a
later one, or only from the rest checked at once (integrated._walk), on SQLite and on PostgreSQL."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator

import pytest
import sqlalchemy
from sqlalchemy import select
from sqlalchemy.orm import Session

from outpost_server.error_tracking.models import TrackedError
from outpost_server.error_tracking.read import integrated
from outpost_server.error_tracking.read.search import parse_search
from tests.server.error_tracking.partitioned_db import (
    ENVIRONMENTS,
    RELEASES,
    accepted,
    engine_for,
    event,
    factory_for,
    projects,
    store,
)

NOW = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
# More errors than the chunks walked before the rest is checked at once (50, then 200).
ERRORS = 400
PAGE = 7
SEARCHES = {
    "failure 1": lambda group: "failure 1" in f"failure {group}",  # 1, 10-19, 100-199: dense at one end
    "valueerror37": lambda group: f"ValueError{group}".lower().startswith("valueerror37"),  # 37, 370-379
    "release:shop@2.0.0 environment:staging": lambda group: group % 3 == 2 and group % 2 == 1,
    "failure 399": lambda group: group == 399,
    "release:shop@1.1.0 level:warning": lambda group: group % 3 == 1 and group % 7 == 0,
    "nothing like this": lambda group: False,
}


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def stored(request, tmp_path_factory) -> Iterator[tuple[sqlalchemy.Engine, int, dict[int, int]]]:
    """The engine, a project with ERRORS errors (error `group` has 1 + group % 4 events, its tags set by
    its group number), and error id -> group."""
    engine = engine_for(request.param, tmp_path_factory.mktemp(request.param))
    project_id = projects(factory_for(engine), 1)[0]
    batch = []
    for group in range(ERRORS):
        for repeat in range(1 + group % 4):
            # Seen at times that interleave the groups, so each sort orders them differently.
            moment = NOW - dt.timedelta(minutes=(group * 37) % ERRORS, seconds=repeat)
            batch.append(accepted(project_id, event(group=group, number=group, moment=moment), moment))
    store(engine, batch)
    with Session(engine) as session:
        groups = {error.id: int((error.exception_type or "").removeprefix("ValueError")) for error in session.scalars(
            select(TrackedError).where(TrackedError.project_id == project_id))}
    assert len(groups) == ERRORS
    yield engine, project_id, groups
    engine.dispose()


def test_the_events_carry_the_tags_the_searches_assume():
    raw = event(group=5, number=5, moment=NOW)
    assert (raw["release"], raw["environment"], raw["level"]) == (RELEASES[5 % 3], ENVIRONMENTS[5 % 2], "error")
    assert event(group=7, number=7, moment=NOW)["level"] == "warning"


def expected(session: Session, project_id: int, groups: dict[int, int], search: str, sort: str) -> list[int]:
    column = integrated.SORT_COLUMNS[sort]
    errors = session.execute(select(TrackedError.id, column).where(TrackedError.project_id == project_id)).all()
    matching = [(value, error_id) for error_id, value in errors if SEARCHES[search](groups[error_id])]
    return [error_id for _, error_id in sorted(matching, reverse=True)]


def paged(session: Session, project_id: int, search: str, sort: str) -> tuple[list[int], list[int]]:
    """Every page from the first on, then from the last page back to the first, each joined in list order."""
    query = parse_search(search)
    pages, cursor = [], None
    while True:
        page = integrated.list_errors(session, project_id=project_id, status="unresolved", query=query, sort=sort,
                                      cursor=cursor, limit=PAGE)
        pages.append([error.id for error in page.errors])
        assert len(pages) <= ERRORS, "the pages never end"
        if "next" not in page.pagination:
            break
        cursor = page.pagination["next"]["cursor"]
    backwards = [pages[-1]]
    cursor = page.pagination.get("previous", {}).get("cursor")
    while cursor:
        page = integrated.list_errors(session, project_id=project_id, status="unresolved", query=query, sort=sort,
                                      cursor=cursor, limit=PAGE)
        backwards.insert(0, [error.id for error in page.errors])
        assert len(backwards) <= ERRORS, "the pages never end"
        cursor = page.pagination.get("previous", {}).get("cursor")
    return [error_id for page in pages for error_id in page], [error_id for page in backwards for error_id in page]


@pytest.mark.parametrize("sort", list(integrated.SORT_COLUMNS))
@pytest.mark.parametrize("search", list(SEARCHES))
def test_a_search_pages_through_exactly_the_matching_errors(stored, search, sort):
    engine, project_id, groups = stored
    with Session(engine) as session:
        wanted = expected(session, project_id, groups, search, sort)
        forwards, backwards = paged(session, project_id, search, sort)
    assert forwards == wanted
    assert backwards == wanted
    if search == "failure 1":
        assert len(wanted) == 111
    elif search == "nothing like this":
        assert wanted == []
