"""The Help menu in the main window at its default size (1100×700)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QDesktopServices, QGuiApplication
from PySide6.QtWidgets import QApplication

from console.main_window import DEFAULT_SIZE
from console.path_dialog import PathDialog
from console.settings import log_dir
from tests.console.conftest import freedesktop_database


def test_open_log_folder_without_a_launcher_shows_the_path_to_copy(qtbot, make_window, monkeypatch):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    opened = []
    # no program opens folders here
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) and False)
    window.actions_.by_name["log_folder"].trigger()
    assert [url.toLocalFile() for url in opened] == [str(log_dir())]
    dialog = next(widget for widget in QApplication.topLevelWidgets()
                  if isinstance(widget, PathDialog) and widget.isVisible())
    assert dialog.path.text() == str(log_dir()) and dialog.path.isReadOnly()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(log_dir())
    dialog.close()


def visible_path_dialogs() -> list[PathDialog]:
    return [widget for widget in QApplication.topLevelWidgets()
            if isinstance(widget, PathDialog) and widget.isVisible()]


def test_open_log_folder_with_a_launcher_opens_it(qtbot, make_window, monkeypatch, tmp_path):
    if shutil.which("xdg-mime"):
        freedesktop_database(monkeypatch, tmp_path, {"inode/directory": "files.desktop"})
        log_dir().mkdir(parents=True, exist_ok=True)  # under the new data folder; app.py makes it at start-up
    window = make_window()
    opened = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url) or True)
    assert window.commands.open_log_folder() is None
    assert [url.toLocalFile() for url in opened] == [str(log_dir())]
    assert visible_path_dialogs() == []


@pytest.mark.skipif(shutil.which("xdg-mime") is None, reason="no freedesktop database to ask")
def test_open_log_folder_shows_the_path_when_the_launcher_finds_no_program(qtbot, make_window, monkeypatch, tmp_path):
    freedesktop_database(monkeypatch, tmp_path, {})
    log_dir().mkdir(parents=True, exist_ok=True)  # under the new data folder; app.py makes it at start-up
    window = make_window()
    # Qt's launcher (xdg-open) starts, so Qt says the folder was opened; no program for folders is known though.
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: True)
    dialog = window.commands.open_log_folder()
    assert dialog is not None and visible_path_dialogs() == [dialog]
    assert dialog.path.text() == str(log_dir())
    dialog.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the freedesktop registration")
def test_register_links_makes_this_console_the_outpost_scheme_s_handler(qtbot, make_window, tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    mimeapps = tmp_path / "config" / "mimeapps.list"
    mimeapps.parent.mkdir()
    mimeapps.write_text("[Default Applications]\ntext/HTML=firefox.desktop\n\n"
                        "[Added Associations]\nimage/png=eog.desktop;\n")
    window = make_window()
    box = window.commands.register_links()  # Help > Register outpost:// links: a source checkout has no installer
    assert window.actions_.by_name["register_links"].isEnabled()
    assert "now open this console" in box.text()
    box.close()
    entry = (tmp_path / "data" / "applications" / "outpost-links.desktop").read_text()
    assert "MimeType=x-scheme-handler/outpost;" in entry
    assert f"Exec={sys.executable} -m console %u" in entry
    text = mimeapps.read_text()
    assert "text/HTML=firefox.desktop" in text and "image/png=eog.desktop;" in text  # the rest is kept
    if shutil.which("xdg-mime"):  # what the desktop asks
        found = subprocess.run(["xdg-mime", "query", "default", "x-scheme-handler/outpost"], capture_output=True,
                               text=True, env={**os.environ, "XDG_CURRENT_DESKTOP": "X-Generic"}, check=True)
        assert found.stdout.strip() == "outpost-links.desktop"
