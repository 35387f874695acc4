"""Layouts that hold, against the real server: nothing typed or picked makes the window's minimum size larger
than its default 1100×700 (a long address, a long project path, every export option, every dialog), every page
fits 900×600 without scrolling sideways, and spin and combo boxes leave the wheel alone unless focused."""

from __future__ import annotations

import datetime as dt

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QApplication, QDialog, QTabWidget, QWidget

from console.core.timestamps import WIDEST_RELATIVE
from console.errors.error_table import TITLE_SHARE
from console.errors.models import ErrorListModel
from console.errors.tab import ErrorTrackingTab
from console.exports.views import ExportsTab
from console.main_window import DEFAULT_SIZE, MainWindow
from console.variables.views import VariablesTab
from tests.console.shell.conftest import WAIT, connect
from tests.sdk_errors import enable_integrated, send_errors
from tests.support import unique

SMALL = (900, 600)


@pytest.fixture(scope="module")
def long_project(api):
    """A project whose path is longer than any window is wide, with an error in it (sent at error_sent_from or
    after)."""
    sent_from = dt.datetime.now(dt.timezone.utc)
    group = api.root.post("/groups", json={"name": unique("a-group-with-a-long-name-" + "x" * 60),
                                           "path": unique("a-group-with-a-long-path-" + "y" * 60)}).json()
    project = api.root.post("/projects", json={"name": unique("and-a-long-project-name-" + "z" * 60),
                                               "namespace_id": group["id"]}).json()
    send_errors(enable_integrated(api.root, project["id"]), "a long error title " + "w" * 300)
    return {**project, "error_sent_from": sent_from}


def shown_since(sent_from: dt.datetime, until: dt.datetime) -> tuple[set[str], set[str]]:
    """The relative times, and the local dates, a moment between the two can show as (a module's fixture may be
    minutes old when a test reads it, and local midnight may fall in between)."""
    minutes = int((until - sent_from).total_seconds() // 60)
    relative = {"just now"} | {f"{n} min ago" for n in range(1, minutes + 1)}
    return relative, {moment.astimezone().strftime("%Y-%m-%d") for moment in (sent_from, until)}


def within(size, limit=DEFAULT_SIZE) -> bool:
    return size.width() <= limit[0] and size.height() <= limit[1]


def settle(qtbot) -> None:
    QApplication.processEvents()
    qtbot.wait(50)


def sideways_scrollers(window: QWidget) -> list[str]:
    """The scroll areas on screen that show a horizontal scroll bar."""
    return [f"{type(area).__name__} {area.accessibleName()!r} in {type(area.parentWidget()).__name__}"
            for area in window.findChildren(QAbstractScrollArea)
            if area.isVisible() and area.horizontalScrollBar().isVisible()]


def inner_pages(widget: QWidget):
    """Every page of the tab widgets inside ``widget``, each shown in turn (yields after showing it)."""
    for tabs in widget.findChildren(QTabWidget):
        for index in range(tabs.count()):
            if tabs.isVisible():
                tabs.setCurrentIndex(index)
                yield f"{tabs.tabText(index)}"


def open_error_tracking(qtbot, window: MainWindow, path: str) -> ErrorTrackingTab:
    window.open_target(("errors", path))
    tab = window.tabs.current_feature()
    assert isinstance(tab, ErrorTrackingTab)
    page = tab.errors_page
    qtbot.waitUntil(lambda: page.model.rowCount() == 1 and not page.loading, timeout=WAIT)
    page.table.selectRow(0)
    qtbot.waitUntil(lambda: page.detail.stack_trace.topLevelItemCount() > 0, timeout=WAIT)
    return tab


def test_nothing_typed_or_picked_grows_the_window_past_1100x700(qtbot, make_window, server, long_project):
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    checked: list[str] = []

    def holds(after: str, dialog: QWidget | None = None) -> None:
        settle(qtbot)
        assert within(window.minimumSizeHint()) and within(window.minimumSize()), (after, window.minimumSizeHint())
        assert (window.width(), window.height()) == DEFAULT_SIZE, after
        if dialog is not None:
            assert within(dialog.minimumSizeHint()), (after, dialog.minimumSizeHint())
        checked.append(after)

    open_error_tracking(qtbot, window, long_project["path_with_namespace"])
    holds("a long project path and error title")
    for page in inner_pages(window.tabs.current_feature()):
        holds(f"error tracking's {page} page")

    exports = window.tabs.show_as("exports", ExportsTab)
    bar = exports.options_bar
    for export_format in ("csv", "pdf"):
        dialog = bar.open_dialog()
        dialog.set_format(export_format)
        for key, boxes in dialog.filter_boxes.items():
            dialog.tick(key, *boxes)  # every filter of the row: the longest summary
        holds(f"the {export_format} options dialog", dialog)
        dialog.accept()
        holds(f"{export_format} with every filter")
        assert bar.summary.full_text() != bar.summary.text() or export_format == "csv"
    exports.picker.search_edit.setText(long_project["path"])
    exports.picker.search()
    qtbot.waitUntil(lambda: exports.picker.results.count() == 1, timeout=WAIT)
    holds("a long project as the export's scope")

    variables = window.tabs.show_as("variables", VariablesTab)
    dialog = variables.add_variable()
    assert dialog is not None
    dialog.key_edit.setText("A_VERY_LONG_KEY_" * 20)
    dialog.value_edit.setPlainText("a value " * 200)
    holds("a long variable in its dialog", dialog)
    dialog.reject()

    for name in ("connect", "notifications", "about"):
        window.actions_.by_name[name].trigger()
        opened = QApplication.activeModalWidget() or next(
            widget for widget in QApplication.topLevelWidgets() if isinstance(widget, QDialog) and widget.isVisible())
        holds(f"the {name} dialog", opened)
        opened.close()
    assert len(checked) >= 12


def test_every_page_fits_900x600_without_scrolling_sideways(qtbot, make_window, server, long_project):
    window = make_window()
    window.resize(*SMALL)
    connect(window, qtbot, server.url, server.root_token)
    open_error_tracking(qtbot, window, long_project["path_with_namespace"])
    for name in window.tabs.names:
        feature = window.tabs.show_tab(name)
        pages = ["(the tab)", *inner_pages(feature)]
        for page in pages:
            settle(qtbot)
            where = f"{name}: {page}"
            assert (window.width(), window.height()) == SMALL, (where, window.minimumSizeHint())
            assert sideways_scrollers(window) == [], where


def test_the_error_column_takes_the_space_left(qtbot, make_window, server, long_project):
    window = make_window()
    window.resize(*SMALL)
    connect(window, qtbot, server.url, server.root_token)
    table = open_error_tracking(qtbot, window, long_project["path_with_namespace"]).errors_page.table
    settle(qtbot)
    title = table.columnWidth(0)
    assert title >= TITLE_SHARE * table.viewport().width() - 1
    assert title + sum(table.columnWidth(column) for column in range(1, table.model().columnCount())
                       if not table.isColumnHidden(column)) <= table.viewport().width() + 1
    window.resize(*DEFAULT_SIZE)
    settle(qtbot)
    assert [table.columnWidth(column) for column in table.natural_widths if not table.isColumnHidden(column)] == [
        table.natural_widths[column] for column in table.natural_widths if not table.isColumnHidden(column)]


def test_the_error_list_s_columns_fit_their_text_at_both_sizes(qtbot, make_window, server, long_project):
    """At 900 px "Last seen" used to read "2026-11-27 11…": times are relative ("3 min ago"), whole in the
    column, with the full time in the tooltip; the Error column still takes what is left."""
    window = make_window()
    connect(window, qtbot, server.url, server.root_token)
    table = open_error_tracking(qtbot, window, long_project["path_with_namespace"]).errors_page.table
    model, metrics = table.model(), table.fontMetrics()
    for size in (DEFAULT_SIZE, SMALL):
        window.resize(*size)
        settle(qtbot)
        shown = [column for column in range(1, model.columnCount())
                 if not table.isColumnHidden(column) and column != ErrorListModel.TREND]
        assert ErrorListModel.LAST_SEEN in shown
        assert all(metrics.horizontalAdvance(text) + 8 <= table.columnWidth(ErrorListModel.LAST_SEEN)
                   for text in WIDEST_RELATIVE), size
        for row in range(model.rowCount()):
            for column in shown:
                text = str(model.index(row, column).data())
                assert metrics.horizontalAdvance(text) + 8 <= table.columnWidth(column), (size, text)
            last_seen = model.index(row, ErrorListModel.LAST_SEEN)
            text, tooltip = last_seen.data(), last_seen.data(Qt.ItemDataRole.ToolTipRole)
            relative, dates = shown_since(long_project["error_sent_from"], dt.datetime.now(dt.timezone.utc))
            assert text in relative and tooltip[:10] in dates, (text, tooltip)
        assert table.columnWidth(0) == table.viewport().width() - sum(table.columnWidth(column) for column in range(
            1, model.columnCount()) if not table.isColumnHidden(column))


def wheel(widget: QWidget, steps: int) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(centre, QPointF(widget.mapToGlobal(QPoint(centre.toPoint()))), QPoint(),
                        QPoint(0, 120 * steps), Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    QApplication.sendEvent(widget, event)


def test_spin_and_combo_boxes_change_on_the_wheel_only_when_focused(qtbot, make_window, server, long_project):
    window = make_window()
    window.resize(*SMALL)
    connect(window, qtbot, server.url, server.root_token)
    tab = open_error_tracking(qtbot, window, long_project["path_with_namespace"])
    tab.pages.setCurrentWidget(tab.alerts_page)
    page = tab.alerts_page
    qtbot.waitUntil(lambda: page.loaded_project == tab.project.id, timeout=WAIT)
    page.editor.quantity.setValue(10)
    level = page.editor.min_level.currentIndex()
    for box in (page.editor.quantity, page.editor.min_level):
        assert box.focusPolicy() == Qt.FocusPolicy.StrongFocus  # the wheel does not give it the focus
    page.editor.name.setFocus()
    editor = next(area for area in page.findChildren(QAbstractScrollArea) if area.accessibleName() == "Rule editor")
    scrolled = editor.verticalScrollBar()
    assert scrolled.maximum() > 0 and scrolled.value() == 0  # at 900×600 the editor scrolls
    wheel(page.editor.quantity, -3)
    wheel(page.editor.min_level, -1)
    assert page.editor.quantity.value() == 10 and page.editor.min_level.currentIndex() == level
    assert scrolled.value() > 0  # the wheel scrolled the editor instead
    window.activateWindow()
    page.editor.quantity.setFocus()
    qtbot.waitUntil(page.editor.quantity.hasFocus, timeout=WAIT)
    wheel(page.editor.quantity, -3)
    assert page.editor.quantity.value() == 7


ON_A_SMALL_SCREEN = """
import json, sys
from PySide6.QtCore import QSettings, QTimer
from PySide6.QtWidgets import QApplication
from console.core.connection.credentials import CredentialStore
from console.context import AppContext
from console.main_window import MainWindow
from tests.console.memkeyring import MemoryKeyring

app = QApplication([])
window = MainWindow(AppContext(), CredentialStore(MemoryKeyring()),
                    settings=QSettings(sys.argv[1] + "/settings.ini", QSettings.Format.IniFormat),
                    local_server_dir=sys.argv[1], history_dir=sys.argv[1])
window.show()

def report():
    frame, available = window.frameGeometry(), window.screen().availableGeometry()
    print(json.dumps({"frame": frame.getRect(), "available": available.getRect(),
                      "inside": window.size().toTuple()}), flush=True)
    app.quit()

QTimer.singleShot(500, report)
app.exec()
"""


def test_the_window_with_its_frame_fits_a_screen_as_small_as_its_default_size(tmp_path):
    """A 1100×700 screen: the window's frame (offscreen draws a thin one; a window manager adds a title bar)
    must not push the status bar over the edge."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{"name": "small", "x": 0, "y": 0, "width": DEFAULT_SIZE[0],
                                               "height": DEFAULT_SIZE[1], "logicalDpi": 96}]}))
    root = Path(__file__).resolve().parents[3]
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={screen}", "HOME": str(tmp_path),
           "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "XDG_RUNTIME_DIR": str(tmp_path),
           "PYTHONPATH": os.pathsep.join([str(root), str(root / "src")])}
    done = subprocess.run([sys.executable, "-c", ON_A_SMALL_SCREEN, str(tmp_path)], env=env, capture_output=True,
                          text=True, timeout=60, cwd=root)
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.splitlines()[-1])
    x, y, width, height = shown["frame"]
    assert shown["available"] == [0, 0, *DEFAULT_SIZE]
    assert x >= 0 and y >= 0 and x + width <= DEFAULT_SIZE[0] and y + height <= DEFAULT_SIZE[1], shown
    assert shown["inside"][1] > DEFAULT_SIZE[1] - 60, "shrunk by its frame, no more"
