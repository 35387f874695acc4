"""Database engine, sessions and the declarative base shared by every domain."""

from __future__ import annotations

import datetime as dt
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Annotated, Any, cast

from fastapi import Depends, Request
from sqlalchemy import DateTime, create_engine, event
from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import Connection, CursorResult, Engine, Result
from sqlalchemy.orm import DeclarativeBase, Session, sessionmaker
from sqlalchemy.types import TypeDecorator

from outpost_server.deps import services_of

# Largest value of the INTEGER id columns (32-bit on PostgreSQL): a bigger number in a URL names no row.
MAX_ROW_ID = 2**31 - 1


def parse_id(text: str | int) -> int | None:
    """A row id from a URL segment, or None: ASCII digits only (str.isdigit also accepts "²",
    which int() refuses) and small enough for the id column."""
    text = str(text)
    if text.isascii() and text.isdigit() and int(text) <= MAX_ROW_ID:
        return int(text)
    return None


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


class UTCDateTime(TypeDecorator):
    """Timezone-aware UTC datetimes on every engine (SQLite stores naive values)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime given; use outpost_server.db.utcnow()")
        return value.astimezone(dt.timezone.utc) if value is not None else None

    def process_result_value(self, value, dialect):
        if value is not None and value.tzinfo is None:
            return value.replace(tzinfo=dt.timezone.utc)
        return value


class Base(DeclarativeBase):
    pass


def _lower(value):
    return value.lower() if isinstance(value, str) else value


def make_engine(url: str, *, wait_seconds: float = 30.0) -> Engine:
    """`wait_seconds`: how long a statement waits for SQLite's write lock, and a request for a pooled
    connection, before failing with what `database_unavailable` recognises (the API then answers 503)."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": wait_seconds},
                               pool_size=20, max_overflow=20, pool_timeout=wait_seconds, hide_parameters=True)

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection, _record):
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA busy_timeout={int(wait_seconds * 1000)}")
            cursor.close()
            # SQLite's lower() folds ASCII only, PostgreSQL's every letter: with the built-in, "Ölaf" and
            # "ölaf" were two usernames to the uniqueness checks but one to the rest. Python's lower()
            # makes SQLite agree with PostgreSQL. The lower() indexes of migration 0022 are built and
            # kept with it too (every connection registers it); what they index is ASCII since GitLab's
            # path rules, so SQLite's own lower() would index the same, older rows aside.
            dbapi_connection.create_function("lower", 1, _lower, deterministic=True)

        return engine
    # hide_parameters: an error's text (logged with its traceback) never carries the statement's values,
    # which are user data.
    return create_engine(url, pool_size=10, max_overflow=20, pool_pre_ping=True, pool_timeout=wait_seconds,
                         hide_parameters=True)


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def session_scope(factory: Callable[[], Session]) -> Iterator[Session]:
    """A session that commits on success and rolls back on error."""
    session = factory()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


@contextmanager
def connection_scope(engine: Engine) -> Iterator[Connection]:
    """A Core connection whose transaction commits on success and rolls back on error: the unit of work of
    what writes without the ORM (the digest's batches, the shared window counters)."""
    with engine.begin() as connection:
        yield connection


def after_commit(session: Session, action: Callable[[], None]) -> None:
    """Runs `action` once the session's transaction commits (never if it rolls back): for side effects,
    such as forgetting a cache, that another request must not see before the change is visible."""
    event.listen(session, "after_commit", lambda _session: action(), once=True)


@contextmanager
def read_only_scope(factory: Callable[[], Session]) -> Iterator[Session]:
    """A session whose work is always rolled back: for dry runs that go through the writing code."""
    session = factory()
    try:
        yield session
    finally:
        session.rollback()
        session.close()


def at_transaction_end(session: Session, action: Callable[[], None]) -> None:
    """Runs `action` once when the session's transaction ends, committed or rolled back: to release
    what must be held until the change is visible (or abandoned)."""
    pending = [action]

    def run_once(*_args: Any) -> None:
        if pending:
            pending.pop()()

    event.listen(session, "after_commit", run_once, once=True)
    event.listen(session, "after_rollback", run_once, once=True)


def changed_rows(result: Result[Any]) -> int:
    """How many rows an UPDATE or DELETE matched. Session.execute is typed as returning a Result; for these
    statements it is a CursorResult, which counts them."""
    return cast(CursorResult[Any], result).rowcount


def get_session(request: Request) -> Iterator[Session]:
    with session_scope(services_of(request.app).sessions) as session:
        yield session


# scope="function": commit before the response is sent, so a success answer means the change is
# durable and visible to the client's next request (the default "request" scope commits afterwards).
SessionDep = Annotated[Session, Depends(get_session, scope="function")]


# SQLite's messages for a database that cannot be read or written now, as opposed to a faulty query.
_SQLITE_UNAVAILABLE = ("database is locked", "database table is locked", "disk is full", "disk i/o error",
                       "unable to open database")


def database_unavailable(error: BaseException) -> bool:
    """Whether the error means the database is unreachable, locked or out of space (worth retrying)."""
    if isinstance(error, sa_exc.TimeoutError):  # no pooled connection came free in time
        return True
    if not isinstance(error, sa_exc.DBAPIError):
        return False
    if error.connection_invalidated:
        return True
    if not isinstance(error, (sa_exc.OperationalError, sa_exc.InterfaceError)):
        return False
    if isinstance(error.orig, sqlite3.Error):
        message = str(error.orig).lower()
        return any(text in message for text in _SQLITE_UNAVAILABLE)
    return True  # the PostgreSQL driver's: the connection or the server


LIKE_ESCAPE = "\\"


def taken_field(error: sa_exc.IntegrityError) -> str | None:
    """The column a unique constraint was violated on (SQLite's and PostgreSQL's messages), or None."""
    message = str(error.orig)
    if "UNIQUE constraint failed:" in message:  # SQLite: "UNIQUE constraint failed: users.username"
        failed = message.split("UNIQUE constraint failed:", 1)[1].split(",")[0].strip()
        if failed.startswith("index '"):  # an index on an expression: "index 'ix_users__lower_username'"
            return failed.removeprefix("index '").rstrip("'").rsplit("__lower_", 1)[-1]
        return failed.rsplit(".", 1)[-1]
    diagnostics = getattr(error.orig, "diag", None)
    detail = getattr(diagnostics, "message_detail", None) or ""
    if detail.startswith("Key (") and ")=(" in detail:  # PostgreSQL: "Key (lower(path))=(x) already exists."
        columns = detail[len("Key ("):detail.index(")=(")]
        return columns.split(",")[0].strip().removeprefix("lower(").rstrip(")").split("::")[0]
    return None


def contains_pattern(text: str) -> str:
    """A LIKE pattern matching `text` anywhere, its own `%` and `_` taken literally (use with
    `escape=LIKE_ESCAPE`), so a search for "%" finds a percent sign rather than everything."""
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"
