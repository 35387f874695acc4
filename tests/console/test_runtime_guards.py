"""Process-level guards: Qt bindings that keep references right, and the event-loop lag probe."""

import os
import subprocess
import sys
import time

from PySide6.QtCore import QTimer

from console.responsiveness import LagProbe

# PySide6 6.12.0 returned None/True/False from void and bool methods without a reference on
# Python 3.11, which aborted the interpreter after a few thousand calls; constraints.txt pins a
# release without that bug and this guards against upgrading into it again.
MANY_QT_CALLS = """
import sys
from PySide6.QtWidgets import QApplication, QCheckBox, QLabel
app = QApplication([])
label, box = QLabel(), QCheckBox()
before = [sys.getrefcount(value) for value in (None, True, False)]
for number in range(20_000):
    label.setText("still alive")
    label.show()
    box.setChecked(number % 2 == 0)
    box.isChecked()
    app.processEvents()
after = [sys.getrefcount(value) for value in (None, True, False)]
print(min(a - b for a, b in zip(after, before)))
"""


def test_qt_calls_do_not_leak_references_to_singletons():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    result = subprocess.run([sys.executable, "-c", MANY_QT_CALLS], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    # A leak would lose one reference per call: tens of thousands.
    assert int(result.stdout.strip()) > -100


def test_lag_probe_reports_a_blocked_event_loop(qtbot):
    probe = LagProbe()
    probe.start()
    qtbot.waitUntil(lambda: probe.ticks >= 3)  # ticking (by count, not by time: a busy machine ticks slower)
    ticks_before = probe.ticks
    QTimer.singleShot(0, lambda: time.sleep(0.3))  # a deliberately blocking slot
    qtbot.waitUntil(lambda: probe.ticks >= ticks_before + 2)  # ticking again after the block
    stall = probe.stop()
    assert stall >= 0.2


def test_lag_probe_resets_on_start(qtbot):
    probe = LagProbe()
    probe.longest_stall = 5.0
    with probe:
        qtbot.wait(30)
    assert probe.longest_stall < 5.0
    assert probe.ticks > 0
