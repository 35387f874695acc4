"""The exports tab and its preview in the main window at its default size (1100×700), against the real server:
columns wide enough for what they show, and the widths the user sets are remembered for the profile."""

from __future__ import annotations

from PySide6.QtCore import Qt

from console.exports.models import ExportsModel
from console.main_window import DEFAULT_SIZE
from tests.console.shell.conftest import WAIT, connect


def fits(table, column: int) -> bool:
    """Whether every cell of the column is shown whole (no "…")."""
    model, metrics = table.model(), table.fontMetrics()
    width = table.horizontalHeader().sectionSize(column)
    return all(metrics.horizontalAdvance(str(model.index(row, column).data() or "")) + 8 <= width
               for row in range(model.rowCount()))


def exports_tab(qtbot, make_window, server):
    window = make_window()
    window.resize(*DEFAULT_SIZE)  # a second window restores the first's geometry, fitted to the offscreen screen
    qtbot.waitUntil(lambda: (window.width(), window.height()) == DEFAULT_SIZE, timeout=WAIT)
    connect(window, qtbot, server.url, server.root_token)
    return window, window.tabs.show_tab("exports")


def test_export_columns_fit_and_the_users_widths_are_remembered(qtbot, make_window, server):
    window, exports = exports_tab(qtbot, make_window, server)
    exports.picker.set_kind("instance")
    exports.request_export()
    qtbot.waitUntil(lambda: exports.model.rowCount() > 0, timeout=WAIT)
    table = exports.table
    assert table.wordWrap()  # only Scope and "Format and filters" wrap, at 900 px (test_columns_fit.py)
    for column in (ExportsModel.STATUS, ExportsModel.REQUESTED, ExportsModel.ELAPSED, ExportsModel.TIME_LEFT,
                   ExportsModel.ID):
        assert fits(table, column), ExportsModel.HEADERS[column]
    assert fits(table, ExportsModel.STATUS) and table.fontMetrics().horizontalAdvance("expired (deleted)") + 8 <= \
        table.horizontalHeader().sectionSize(ExportsModel.STATUS)
    qtbot.waitUntil(lambda: any(r.status == "finished" for r in exports.model.records), timeout=WAIT)
    exports.select_export(exports.model.records[0].id)
    qtbot.waitUntil(exports.preview_button.isEnabled, timeout=WAIT)

    qtbot.mouseClick(exports.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: exports.preview_dialog is not None and exports.preview_dialog.isVisible(), timeout=WAIT)
    preview = exports.preview_dialog
    header = preview.table.horizontalHeader()
    severity = preview.model.column("Severity")
    assert 0 <= header.sectionViewportPosition(severity)
    assert header.sectionViewportPosition(severity) + header.sectionSize(severity) <= preview.table.viewport().width()
    vulnerability = preview.model.column("Vulnerability")
    assert header.sectionViewportPosition(vulnerability) + header.sectionSize(vulnerability) <= \
        preview.table.viewport().width()

    # The user's widths, for the list and the preview, are there the next time.
    table.horizontalHeader().resizeSection(ExportsModel.STATUS, 222)
    header.resizeSection(vulnerability, 333)
    preview.close()
    window.close()
    _again, exports = exports_tab(qtbot, make_window, server)
    assert exports.table.horizontalHeader().sectionSize(ExportsModel.STATUS) == 222
    qtbot.waitUntil(lambda: exports.model.rowCount() > 0, timeout=WAIT)
    exports.select_export(exports.model.records[0].id)
    qtbot.waitUntil(exports.preview_button.isEnabled, timeout=WAIT)
    qtbot.mouseClick(exports.preview_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: exports.preview_dialog is not None and exports.preview_dialog.isVisible(), timeout=WAIT)
    assert exports.preview_dialog.table.horizontalHeader().sectionSize(vulnerability) == 333
    exports.preview_dialog.close()
