"""Tables read from a database as it is, to write rows into it and read them back in migration tests."""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import sqlalchemy
from sqlalchemy.exc import SAWarning

# SQLAlchemy cannot reflect an index on an expression (0022's unique `lower(...)` indexes) and warns once
# per index; rows are written and read without them. Only that warning, for those indexes, is expected.
_LOWER_INDEX_SKIPPED = r"Skipped unsupported reflection of expression-based index ix_\w+__lower_\w+$"


def reflect_tables(engine: sqlalchemy.Engine, only: Sequence[str] | None = None) -> sqlalchemy.MetaData:
    metadata = sqlalchemy.MetaData()
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=_LOWER_INDEX_SKIPPED, category=SAWarning)
        metadata.reflect(engine, only=only)
    return metadata
