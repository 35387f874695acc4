"""How far a long command is, on one line of a terminal (nothing when its output is not a terminal)."""

from __future__ import annotations

import sys
import time
from typing import TextIO

REDRAW_SECONDS = 0.25


class Progress:
    def __init__(self, verb: str, total: int, stream: TextIO | None = None):
        self._verb, self._total = verb, max(total, 1)
        self._stream = stream or sys.stderr
        self._shown = self._stream.isatty()
        self._done = 0
        self._drawn_at = 0.0

    def advance(self, count: int = 1) -> None:
        self._done += count
        if self._shown and time.monotonic() - self._drawn_at >= REDRAW_SECONDS:
            self._draw()

    def finish(self) -> None:
        if self._shown:
            self._draw()
            self._stream.write("\n")
            self._stream.flush()

    def _draw(self) -> None:
        self._drawn_at = time.monotonic()
        share = min(100, self._done * 100 // self._total)
        self._stream.write(f"\r{self._verb}: {self._done:,} of {self._total:,} rows ({share}%)")
        self._stream.flush()
