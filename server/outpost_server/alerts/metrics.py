"""The outbox's figures for `/-/metrics`: deliveries by channel and status, read from the database at
each scrape (so every process answers the same). A delivery still to be retried after a failed attempt
counts as `retrying`; a mail that could not be sent is `channel="email"` there or, given up, `failed`."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client.core import GaugeMetricFamily, Metric
from sqlalchemy import case, func, select
from sqlalchemy.orm import Session, sessionmaker

from .models import AlertDelivery
from .rule_input import CHANNELS

STATES = ("pending", "retrying", "sending", "sent", "failed")


class DeliveryFigures:
    """A prometheus_client collector of the deliveries as they are when it is made."""

    def __init__(self, factory: sessionmaker[Session]):
        state = case(((AlertDelivery.status == "pending") & (AlertDelivery.attempts > 0), "retrying"),
                     else_=AlertDelivery.status)
        with factory() as session:
            rows = session.execute(select(AlertDelivery.channel, state, func.count())
                                   .group_by(AlertDelivery.channel, state)).all()
        self._counts = {(channel, status): count for channel, status, count in rows}

    def collect(self) -> Iterator[Metric]:
        family = GaugeMetricFamily("outpost_alert_deliveries", "Alert deliveries in the outbox by channel and "
                                   "state (retrying: pending again after a failed attempt)",
                                   labels=["channel", "state"])
        channels = sorted({*CHANNELS, *(channel for channel, _ in self._counts)})
        for channel in channels:
            for status in STATES:
                family.add_metric([channel, status], self._counts.get((channel, status), 0))
        yield family
