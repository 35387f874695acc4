"""The digest rate of one project: events counted in their errors per second, from the first send until the
last accepted event is counted. Shared by the benchmarks that compare two kinds of events or projects."""

from __future__ import annotations

import time
from pathlib import Path

from bench.ingest import counted_events, run_load


def digest_rate(port: int, database: Path, project_id: int, requests: list[bytes], concurrency: int,
                time_limit: float = 120.0) -> float:
    before = counted_events(database, project_id)[0]
    run = run_load(port, [requests], concurrency, time_limit)
    deadline = time.time() + time_limit
    while counted_events(database, project_id)[0] - before < run["accepted"] and time.time() < deadline:
        time.sleep(0.02)
    return (counted_events(database, project_id)[0] - before) / (time.time() - run["started"])
