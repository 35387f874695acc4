# PyInstaller runtime hook: start-up measurement for bench/startup.py; inert unless
# OUTPOST_STARTUP_PROBE is set. When set, the first top-level widget shown makes the
# process print "startup-probe shown <time.monotonic()>" once the event loop has handled
# the show, then exit at once, so a benchmark can time "process start -> window shown".
import os
import sys


def _install_startup_probe() -> None:
    import time

    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QWidget

    original_show = QWidget.show

    def report_and_exit() -> None:
        print(f"startup-probe shown {time.monotonic():.6f}", flush=True)
        os._exit(0)

    def show(widget: QWidget) -> None:
        original_show(widget)
        if widget.isWindow():
            QTimer.singleShot(0, report_and_exit)

    QWidget.show = show  # type: ignore[method-assign]  # the probe replaces show() on purpose


if os.environ.get("OUTPOST_STARTUP_PROBE") and "--run-server" not in sys.argv:
    _install_startup_probe()
