"""Pruning source maps, in the error tracking pruner's pass: bundles no event used for the configured
days (default 90), upload chunks older than a day and expired assemble states."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from sqlalchemy.orm import Session, sessionmaker

from outpost_server.db import session_scope

from .bundles import BATCH, prune_unused
from .uploads import prune_uploads


@dataclass
class SourceMapPrune:
    bundles: int = 0
    chunks: int = 0

    def describe(self) -> list[str]:
        if not (self.bundles or self.chunks):
            return []
        return [f"source maps: {self.bundles} unused bundles, {self.chunks} upload chunks"]


def prune_source_maps(factory: sessionmaker[Session], *, now: dt.datetime, unused_days: int) -> SourceMapPrune:
    """Deletes in batches, each in its own transaction."""
    result = SourceMapPrune()
    while True:
        with session_scope(factory) as session:
            removed = prune_unused(session, now, unused_days)
        result.bundles += removed
        if removed < BATCH:
            break
    with session_scope(factory) as session:
        result.chunks = prune_uploads(session, now)
    return result
