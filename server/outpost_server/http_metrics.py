"""This process's own figures for `/-/metrics`: HTTP requests by route template and status class, with a
duration histogram, and prometheus_client's default collectors (process, platform, garbage collector).

Kept in the process's memory: with `serve --workers N` each scrape reads the worker that answered it,
so these series carry that worker's `pid` (the pipeline, alert and export figures are the host's).
"""

from __future__ import annotations

import os
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

DURATION_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
# Requests that no route template matched: the collector's own fast path, 404s, static answers.
UNROUTED = "(other)"
# Label sets whose series are kept at hand (routes are templates, so a process sees a few hundred).
MAX_CACHED_SERIES = 4096


class HttpMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        labels = ["route", "method", "status_class", "pid"]
        self._requests = Counter("outpost_http_requests", "HTTP requests answered, by route template and "
                                 "status class", labels, registry=self.registry)
        self._duration = Histogram("outpost_http_request_duration_seconds", "Time to answer an HTTP request",
                                   ["route", "method", "pid"], buckets=DURATION_BUCKETS, registry=self.registry)
        self._series: dict[tuple[str, str, int, int], tuple[Any, Any]] = {}
        ProcessCollector(registry=self.registry)
        PlatformCollector(registry=self.registry)
        GCCollector(registry=self.registry)

    def observe(self, *, route: str | None, method: str, status: int, seconds: float) -> None:
        key = (route or UNROUTED, method, status // 100, os.getpid())
        series = self._series.get(key)
        if series is None:
            series = self._series_of(key)
        series[0].inc()
        series[1].observe(seconds)

    def _series_of(self, key: tuple[str, str, int, int]) -> tuple[Any, Any]:
        """The request counter's and the histogram's series for one label set, looked up once: finding a
        labelled series costs a lock and label checks, and every request needs two."""
        template, method, status_class, pid = key
        series = (self._requests.labels(template, method, f"{status_class}xx", str(pid)),
                  self._duration.labels(template, method, str(pid)))
        if len(self._series) >= MAX_CACHED_SERIES:
            self._series.clear()
        self._series[key] = series
        return series

    def text(self) -> bytes:
        return generate_latest(self.registry)


HTTP_METRICS = HttpMetrics()
