"""Unexpected exceptions become a visible report instead of a line on a missing console.

qasync hands exceptions from async slots to ``sys.excepthook``; Qt virtual overrides do
the same. The reporter logs the traceback and emits a signal (queued across threads) so
the main window can show it.
"""

from __future__ import annotations

import logging
import sys
import traceback
from types import TracebackType

from PySide6.QtCore import QObject, Signal

log = logging.getLogger(__name__)


class ExceptionReporter(QObject):
    """Signals:
    unexpected: (summary, details) an exception nobody handled.
    """

    unexpected = Signal(str, str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._previous_hook = sys.excepthook

    def install(self) -> None:
        self._previous_hook = sys.excepthook
        sys.excepthook = self.handle

    def uninstall(self) -> None:
        sys.excepthook = self._previous_hook

    def handle(
        self, exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(exc_type, KeyboardInterrupt):
            self._previous_hook(exc_type, exc, tb)
            return
        details = "".join(traceback.format_exception(exc_type, exc, tb))
        log.error("Unexpected error:\n%s", details)
        summary = f"{exc_type.__name__}: {exc}" if str(exc) else exc_type.__name__
        self.unexpected.emit(summary, details)
