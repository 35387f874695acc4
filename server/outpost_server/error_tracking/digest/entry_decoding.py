"""Spool entries turned into what the writer stores: unsealed, decoded, scrubbed, symbolicated and derived,
each once, before the write transaction opens. It runs in the digester itself or in its decode processes
(decode_pool.py); either way source maps are read through a connection of this step's own, which holds no
write lock.
"""

from __future__ import annotations

import datetime as dt
import logging
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy.engine import Connection, Engine

from outpost_server.db import database_unavailable
from outpost_server.error_tracking.digest.batch_store import Accepted
from outpost_server.error_tracking.digest.decode import read_request
from outpost_server.error_tracking.ingest.protocol import ProtocolError, decode_body
from outpost_server.error_tracking.ingest.sealing import Sealer, Unsealable
from outpost_server.error_tracking.ingest.spool import Entry

log = logging.getLogger("outpost.error_tracking.digest")

# The symbolication stage, called before grouping: maps one raw event's frames in place (reading what it
# needs through the connection) and says whether anything changed. The digest owns this interface; source
# maps implement it (source_maps/symbolication.py), passed in by pipeline/runtime.py.
Symbolicate = Callable[[Connection, int, dict[str, Any]], bool]


@dataclass
class DecodedBatch:
    # What each entry that is stored becomes, by its index in the batch, in the batch's order.
    accepted: list[tuple[int, Accepted]]
    # The entries dropped, counted by reason (("dropped", "unsealable"), ("dropped", "invalid")).
    dropped: dict[tuple[str, str], float]


def decode_entries(entries: list[Entry], *, engine: Engine, sealer: Sealer,
                   symbolicate: Symbolicate) -> DecodedBatch:
    """Every entry of the batch decoded. An unreachable database (read for source maps) raises, so the
    batch is decoded again once it is back; any other failure of symbolication leaves the frames as sent."""
    accepted: list[tuple[int, Accepted]] = []
    dropped: dict[tuple[str, str], float] = defaultdict(float)
    with engine.connect() as reading:
        for index, entry in enumerate(entries):
            try:
                accepted.append((index, _decode(entry, reading, sealer, symbolicate)))
            except Unsealable:
                dropped[("dropped", "unsealable")] += 1
            except ProtocolError:
                dropped[("dropped", "invalid")] += 1
    return DecodedBatch(accepted, dict(dropped))


def _decode(entry: Entry, reading: Connection, sealer: Sealer, symbolicate: Symbolicate) -> Accepted:
    def symbolicated(event: dict[str, Any]) -> bool:
        try:
            return symbolicate(reading, entry.project_id, event)
        except Exception as error:
            if database_unavailable(error):
                raise
            log.warning("source maps could not be applied to event %s", entry.event_id, exc_info=True)
            return False

    data = decode_body(entry.endpoint, sealer.open(entry.body), entry.encoding)
    received_at = dt.datetime.fromtimestamp(entry.received_at, dt.timezone.utc)
    content = read_request(entry.endpoint, data, public_key=entry.public_key, response_id=entry.event_id,
                           received_at=received_at, client_ip=entry.client_ip, symbolicate=symbolicated)
    return Accepted(entry.project_id, content, received_at, entry.public_key)
