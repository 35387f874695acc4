"""Measure how long the UI thread's event loop stalls.

A precise QTimer fires every few milliseconds; any gap between two firings beyond the
interval is time the loop could not react (a blocked UI). Benchmarks and tests read
:attr:`LagProbe.longest_stall` after exercising the application.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QObject, Qt, QTimer

DEFAULT_INTERVAL_MS = 5


class LagProbe(QObject):
    def __init__(self, interval_ms: int = DEFAULT_INTERVAL_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.interval = interval_ms / 1000
        self.longest_stall = 0.0
        self.ticks = 0
        self._last: float | None = None
        self._timer = QTimer(self)
        self._timer.setTimerType(Qt.TimerType.PreciseTimer)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self._tick)

    def start(self) -> None:
        self.reset()
        self._timer.start()

    def stop(self) -> float:
        """Stop measuring and return the longest stall in seconds."""
        self._timer.stop()
        return self.longest_stall

    def reset(self) -> None:
        self.longest_stall = 0.0
        self.ticks = 0
        self._last = time.perf_counter()

    def _tick(self) -> None:
        now = time.perf_counter()
        if self._last is not None:
            self.longest_stall = max(self.longest_stall, now - self._last - self.interval)
        self._last = now
        self.ticks += 1

    def __enter__(self) -> LagProbe:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()
