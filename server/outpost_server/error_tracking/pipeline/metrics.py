"""The pipeline's figures, read from the spool's counters: Prometheus text for `/-/metrics`, a
snapshot for the API and `outpost-server status`.

Counters live in the spool file, so whichever worker process answers, the figures are the host's.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector
from sqlalchemy.orm import Session, sessionmaker

from outpost_model.ingestion import Ingestion, SpoolQueue
from outpost_server.error_tracking.digest.digester import BATCH_SIZE_BUCKETS, DURATION_BUCKETS, LAG_BUCKETS
from outpost_server.error_tracking.ingest.spool import Spool, spool_path

# Every bucket is exported from the start (a bucket without observations counts 0), so a rule over one
# works before the first event.
HISTOGRAMS = {
    "digest_batch_size": ("outpost_ingest_digest_batch_size", "Requests per digest batch", BATCH_SIZE_BUCKETS),
    "digest_duration": ("outpost_ingest_digest_duration_seconds", "Time to digest and commit one batch",
                        DURATION_BUCKETS),
    "digest_lag": ("outpost_ingest_lag_seconds", "Time from an event's acceptance to its commit in the database",
                   LAG_BUCKETS),
}
# Every reason a request is refused or dropped for, each with a series from the start: the collector's
# answers (intake.REFUSAL_REASONS and "other"), its rate limit, a full or unwritable spool; what the
# digest could not store.
REFUSAL_REASONS = ("invalid", "origin", "unknown_key_or_project", "too_large", "database_unavailable", "other",
                   "rate_limited", "queue_full", "spool_unavailable")
DROP_REASONS = ("invalid", "unsealable", "store_failed", "key_revoked")
# What the digest counts: the items it stored by kind, and `requests`, every accepted request it finished,
# so that accepted = digested{requests} + dropped + the queue's entries.
DIGESTED_KINDS = ("events", "sessions", "check_ins", "requests")


@dataclass
class PipelineSnapshot:
    queue_entries: int
    queue_bytes: int
    oldest_age_seconds: float | None
    accepted: int
    refused: dict[str, int] = field(default_factory=dict)
    digested: dict[str, int] = field(default_factory=dict)
    dropped: dict[str, int] = field(default_factory=dict)
    # name -> (non-cumulative count per upper bound, sum)
    histograms: dict[str, tuple[dict[str, float], float]] = field(default_factory=dict)

    @property
    def mean_lag_seconds(self) -> float | None:
        lag_buckets, lag_sum = self.histograms.get("digest_lag", ({}, 0.0))
        lagged = sum(lag_buckets.values())
        return lag_sum / lagged if lagged else None

    def entity(self) -> Ingestion:
        return Ingestion(queue=SpoolQueue(entries=self.queue_entries, bytes=self.queue_bytes,
                                          oldest_age_seconds=self.oldest_age_seconds),
                         accepted=self.accepted, refused=self.refused, digested=self.digested, dropped=self.dropped,
                         mean_lag_seconds=self.mean_lag_seconds)


def read_snapshot(data_dir: Path, pending_refusals: Mapping[str, int] | None = None) -> PipelineSnapshot:
    """The spool's figures, with the refusals this process counted but could not write yet (a full disk)."""
    spool = Spool(spool_path(data_dir))
    try:
        backlog = spool.backlog()
        counters = spool.counters()
    finally:
        spool.close()
    snapshot = PipelineSnapshot(
        queue_entries=backlog.entries, queue_bytes=backlog.bytes,
        oldest_age_seconds=(max(0.0, time.time() - backlog.oldest_received_at)
                            if backlog.oldest_received_at is not None else None),
        accepted=int(counters.get(("accepted", ""), 0)))
    for (name, label), value in counters.items():
        if name in ("refused", "digested", "dropped"):
            getattr(snapshot, name)[label] = int(value)
        for prefix in HISTOGRAMS:
            if name == f"{prefix}_bucket":
                snapshot.histograms.setdefault(prefix, ({}, 0.0))[0][label] = value
            elif name == f"{prefix}_sum":
                buckets, _ = snapshot.histograms.setdefault(prefix, ({}, 0.0))
                snapshot.histograms[prefix] = (buckets, value)
    for reason, count in (pending_refusals or {}).items():
        snapshot.refused[reason] = snapshot.refused.get(reason, 0) + count
    return snapshot


class _SnapshotCollector:
    def __init__(self, snapshot: PipelineSnapshot):
        self._snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        snap = self._snapshot
        yield GaugeMetricFamily("outpost_ingest_queue_entries", "Requests waiting in the ingest spool",
                                value=snap.queue_entries)
        yield GaugeMetricFamily("outpost_ingest_queue_bytes", "Bytes of requests waiting in the ingest spool",
                                value=snap.queue_bytes)
        yield GaugeMetricFamily("outpost_ingest_queue_oldest_age_seconds", "Age of the oldest waiting request",
                                value=snap.oldest_age_seconds or 0.0)
        yield CounterMetricFamily("outpost_ingest_accepted", "Requests accepted into the spool",
                                  value=snap.accepted)
        for name, help_text, label, values, known in (
                ("outpost_ingest_refused", "Requests refused by the collector", "reason", snap.refused,
                 REFUSAL_REASONS),
                ("outpost_ingest_digested", "Items stored by the digest stage, and the requests it finished",
                 "kind", snap.digested, DIGESTED_KINDS),
                ("outpost_ingest_dropped", "Accepted requests dropped at digest", "reason", snap.dropped,
                 DROP_REASONS)):
            family = CounterMetricFamily(name, help_text, labels=[label])
            for value_label in sorted({*known, *values}):
                family.add_metric([value_label], values.get(value_label, 0))
            yield family
        for prefix, (name, help_text, bounds) in HISTOGRAMS.items():
            buckets, total = snap.histograms.get(prefix, ({}, 0.0))
            labels = {repr(float(bound)) for bound in bounds} | {b for b in buckets if b != "+Inf"}
            cumulative, running = [], 0.0
            for bound in sorted(labels, key=float):
                running += buckets.get(bound, 0.0)
                cumulative.append((bound, running))
            running += buckets.get("+Inf", 0.0)
            cumulative.append(("+Inf", running))
            yield HistogramMetricFamily(name, help_text, buckets=cumulative, sum_value=total)


def describe(snapshot: PipelineSnapshot) -> list[str]:
    """The snapshot for a terminal."""
    age = snapshot.oldest_age_seconds
    lines = [
        f"Spool:     {snapshot.queue_entries} requests waiting, {snapshot.queue_bytes} bytes"
        + (f", oldest {age:.1f} s" if age is not None else ""),
        f"Accepted:  {snapshot.accepted}",
        "Refused:   " + _pairs(snapshot.refused),
        "Digested:  " + _pairs(snapshot.digested),
        "Dropped:   " + _pairs(snapshot.dropped),
    ]
    lag = snapshot.mean_lag_seconds
    if lag is not None:
        lines.append(f"Mean lag:  {lag * 1000:.0f} ms from acceptance to the database")
    return lines


def _pairs(values: dict[str, int]) -> str:
    return ", ".join(f"{value} {name.replace('_', ' ')}" for name, value in sorted(values.items())) or "none"


@dataclass(frozen=True)
class MetricsSources:
    """The collectors /-/metrics reads beside the pipeline's, each made per scrape from the sessions; app.py
    names them (alerts' and exports' figures), as error tracking does not import those domains."""

    makers: tuple[Callable[[sessionmaker[Session]], Collector], ...]


def prometheus_text(snapshot: PipelineSnapshot, *others: Collector) -> bytes:
    """The snapshot's families, and those of the other collectors given."""
    registry = CollectorRegistry(auto_describe=False)
    for collector in (_SnapshotCollector(snapshot), *others):
        registry.register(collector)
    return generate_latest(registry)
