"""Export jobs' figures for `/-/metrics`, read from the database at each scrape: vulnerability and archive
exports by state (`queued` is GitLab's `created`: waiting for the worker)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from .models import STATUSES, VulnerabilityExport

STATE_NAMES = {"created": "queued"}


class ExportFigures:
    """A prometheus_client collector of the export jobs as they are when it is made."""

    def __init__(self, factory: sessionmaker[Session]):
        with factory() as session:
            rows = session.execute(select(VulnerabilityExport.status, func.count())
                                   .group_by(VulnerabilityExport.status)).all()
        self._counts = dict(rows)

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("outpost_export_jobs", "Vulnerability export jobs by state", labels=["state"])
        for status in STATUSES:
            family.add_metric([STATE_NAMES.get(status, status)], self._counts.get(status, 0))
        yield family
