"""The window's two-step start: a first frame with empty menus, then the rest of its set-up by itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from PySide6.QtGui import QKeySequence

from console.main_window import MainWindow
from tests.console.shell.conftest import WAIT, connect

MENUS = ["&File", "&Edit", "&View", "V&ariables", "E&xports", "E&rrors", "&Help"]


@pytest.fixture
def unshown(qtbot, qloop_running, context, credentials, settings, tmp_path, notifier):
    window = MainWindow(context, credentials, settings=settings, local_server_dir=tmp_path / "local-server",
                        notifier=notifier, history_dir=tmp_path / "exports")
    qtbot.addWidget(window)
    yield window
    if context.client is not None:
        window.close()


def test_the_menus_shortcuts_tray_and_names_follow_the_first_frame(qtbot, unshown, notifier):
    window = unshown
    assert not window.is_ready  # the first frame has the menu bar, but neither menu items nor shortcuts
    assert [menu.text() for menu in window.menuBar().actions()] == MENUS
    assert all(menu.menu().isEmpty() for menu in window.menuBar().actions()) and window.actions() == []
    readiness: list[bool] = []
    window.ready.connect(lambda: readiness.append(window.is_ready))
    with qtbot.waitSignal(window.ready, timeout=WAIT):
        window.show()
    assert not any(menu.menu().isEmpty() for menu in window.menuBar().actions())
    shortcuts = {action.shortcut().toString(QKeySequence.SequenceFormat.PortableText) for action in window.actions()}
    assert {"Ctrl+O", "Ctrl+L", "Ctrl+Q", "Ctrl+1", "Ctrl+4", "F5"} <= shortcuts
    connect_button = window.connection_bar.connect_button
    assert connect_button.accessibleName() == "Connect…" and "Ctrl+O" in connect_button.toolTip()
    assert window.notifier is notifier and window.tray.activated is not None
    window.complete_setup()  # as a connection does: nothing is set up twice
    assert readiness == [True] and [menu.text() for menu in window.menuBar().actions()] == MENUS


def test_connecting_before_the_first_frame_sets_the_window_up_first(qtbot, unshown, server):
    window = unshown
    connect(window, qtbot, server.url, server.root_token)
    assert window.is_ready
    assert window.pages.currentWidget() is window.tabs and window.tabs.created("overview") is not None
    assert window.actions_.by_name["refresh"].isEnabled() and window.actions_.by_name["disconnect"].isEnabled()


# Stands in for the packaged app's start-up probe (packaging/hooks/rthook_startup_probe.py): when the main
# window is shown, report what the start has loaded so far, then stop.
AT_FIRST_SHOW = """
import json, os, sys
import PySide6.QtCore
from PySide6.QtWidgets import QWidget

show = QWidget.show

def report(widget):
    show(widget)
    loaded = [name for name in sys.argv[1:] if name in sys.modules]
    print(json.dumps({"loaded": loaded, "qt_namespace": "Qt" in vars(PySide6.QtCore)}), flush=True)
    os._exit(0)

QWidget.show = report
from console.app import main
main([])
"""
LATER_MODULES = ["console.menus", "console.notifications", "console.accessibility", "console.navigation",
                 "console.project_picker", "console.icons", "console.connection.profiles",
                 "console.core.connection.local_server", "console.core.api.server", "console.core.api.client",
                 "asyncio", "qasync", "httpx"]


def test_the_first_frame_loads_nothing_the_first_screen_does_without(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", AT_FIRST_SHOW, *LATER_MODULES], env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    # The Qt namespace's enum classes, made on first touch, are the costliest thing a first screen can ask for.
    assert json.loads(done.stdout.splitlines()[-1]) == {"loaded": [], "qt_namespace": False}
