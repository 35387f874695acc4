"""The Help menu in the main window at its default size (1100×700)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from console.main_window import DEFAULT_SIZE
from console.path_dialog import PathDialog
from console.settings import log_dir


def test_open_log_folder_without_a_launcher_shows_the_path_to_copy(qtbot, make_window):
    window = make_window()
    assert (window.width(), window.height()) == DEFAULT_SIZE
    opened = []
    window.commands.open_url = lambda url: opened.append(url) and False  # no program opens folders here
    window.actions_.by_name["log_folder"].trigger()
    assert [url.toLocalFile() for url in opened] == [str(log_dir())]
    dialog = next(widget for widget in QApplication.topLevelWidgets()
                  if isinstance(widget, PathDialog) and widget.isVisible())
    assert dialog.path.text() == str(log_dir()) and dialog.path.isReadOnly()
    qtbot.mouseClick(dialog.copy_button, Qt.MouseButton.LeftButton)
    assert QGuiApplication.clipboard().text() == str(log_dir())
    dialog.close()


def test_open_log_folder_with_a_launcher_opens_it(qtbot, make_window):
    window = make_window()
    opened = []
    window.commands.open_url = lambda url: opened.append(url) or True
    assert window.commands.open_log_folder() is None
    assert [url.toLocalFile() for url in opened] == [str(log_dir())]
    assert not any(isinstance(widget, PathDialog) and widget.isVisible() for widget in QApplication.topLevelWidgets())
