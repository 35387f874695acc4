"""The one lease for work done once across replicas: a row's holder and expiry columns.

A process takes a row when nobody holds it or the holder's lease has expired, renews the lease in the
same transaction as each piece of work (so a process that lost it, paused or cut off, notices before it
writes), and gives it back when done. A crashed holder's lease simply expires and another takes over.
The pruner's single lease row, each export job and each alert delivery are leased this way.
"""

from __future__ import annotations

import datetime as dt
import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, true, update
from sqlalchemy.orm import InstrumentedAttribute, Session

from outpost_server.db import changed_rows, utcnow


class LeaseLost(Exception):
    """Another process holds the lease now: stop where you are, without writing."""


def new_holder(kind: str) -> str:
    """A name for this process's leases, unique across replicas and restarts."""
    return f"{kind}-{uuid.uuid4().hex[:16]}"


@dataclass(frozen=True)
class Lease:
    holder: InstrumentedAttribute[Any]
    expires_at: InstrumentedAttribute[Any]
    seconds: float

    def _table(self) -> Any:
        return self.holder.class_

    def free(self, now: dt.datetime) -> ColumnElement[bool]:
        """Rows nobody holds, or whose holder's lease has run out."""
        return or_(self.holder.is_(None), self.expires_at < now)

    def held_by(self, holder: str) -> ColumnElement[bool]:
        return self.holder == holder

    def held(self, holder: str, now: dt.datetime) -> dict[str, Any]:
        """The column values of a lease taken (or renewed) now by `holder`."""
        return {self.holder.key: holder, self.expires_at.key: now + dt.timedelta(seconds=self.seconds)}

    def released(self) -> dict[str, Any]:
        return {self.holder.key: None, self.expires_at.key: None}

    def take(self, session: Session, where: ColumnElement[bool], *, holder: str, now: dt.datetime,
             when: ColumnElement[bool] | None = None, **values: Any) -> int:
        """Takes the rows matching `where` (and `when`) that are free; how many were taken."""
        condition = and_(where, self.free(now), when if when is not None else true())
        return changed_rows(session.execute(
            update(self._table()).where(condition).values(**self.held(holder, now), **values)))

    def renew(self, session: Session, where: ColumnElement[bool], *, holder: str) -> None:
        """Extends the lease in the caller's transaction; LeaseLost when `holder` no longer has it."""
        renewed = changed_rows(session.execute(
            update(self._table()).where(where, self.held_by(holder))
            .values({self.expires_at.key: utcnow() + dt.timedelta(seconds=self.seconds)})))
        if renewed == 0:
            raise LeaseLost()

    def release(self, session: Session, where: ColumnElement[bool], *, holder: str, **values: Any) -> int:
        """Gives the rows back (with `values` written too) if `holder` still has them; how many."""
        return changed_rows(session.execute(
            update(self._table()).where(where, self.held_by(holder)).values(**self.released(), **values)))
