"""Process-level guards: the None reference leak workaround and the event-loop lag probe."""

import os
import subprocess
import sys
import time
from pathlib import Path

from PySide6.QtCore import QTimer

import console
from console.responsiveness import LagProbe

SRC_DIR = Path(console.__file__).resolve().parents[1]

MANY_VOID_CALLS = """
import console
from PySide6.QtWidgets import QApplication, QLabel
app = QApplication([])
label = QLabel()
for _ in range(100_000):
    label.setText("still alive")
print(label.text())
"""


def test_many_void_qt_calls_do_not_abort_the_interpreter():
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "PYTHONPATH": str(SRC_DIR)}
    result = subprocess.run([sys.executable, "-c", MANY_VOID_CALLS], capture_output=True, text=True,
                            env=env, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "still alive"


def test_lag_probe_reports_a_blocked_event_loop(qtbot):
    probe = LagProbe()
    probe.start()
    qtbot.wait(50)
    QTimer.singleShot(0, lambda: time.sleep(0.3))  # a deliberately blocking slot
    qtbot.wait(100)
    stall = probe.stop()
    assert probe.ticks > 5
    assert stall >= 0.2


def test_lag_probe_resets_on_start(qtbot):
    probe = LagProbe()
    probe.longest_stall = 5.0
    with probe:
        qtbot.wait(30)
    assert probe.longest_stall < 5.0
    assert probe.ticks > 0
