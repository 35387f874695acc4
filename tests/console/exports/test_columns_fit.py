"""Finding 20 of the walk: at 900×600 the Exports table cut both Scope and "Format and filters" (a PDF's filters
make a long line). Both now show their whole text at 1100×700 and at 900×600, wrapped onto more lines if need be."""

from __future__ import annotations

from PySide6.QtCore import QRect, Qt

from tests.console.exports.conftest import WAIT, connect, make_tab
from tests.console.exports.test_export_options import SCANNER_LAB, choose
from tests.console.exports.test_exports_tab import finished_record, pick

TEXT_MARGINS = 8  # the cell's margins left and right of its text


def whole(table, row: int, column: int) -> bool:
    """Whether the cell's text, wrapped at spaces as the table does, fits the cell."""
    text = str(table.model().index(row, column).data())
    room = table.horizontalHeader().sectionSize(column) - TEXT_MARGINS
    needed = table.fontMetrics().boundingRect(QRect(0, 0, room, 10_000), Qt.TextFlag.TextWordWrap, text)
    return needed.width() <= room and needed.height() <= table.rowHeight(row)


def test_scope_and_format_and_filters_are_whole_at_both_sizes(qtbot, live_context, server, tmp_path):
    connect(qtbot, live_context, server.url, server.root_token)
    tab = make_tab(qtbot, live_context, tmp_path / "history")
    tab.resize(1080, 560)  # the tab's size in the 1100×700 window
    pick(qtbot, tab, "project", "scanner", SCANNER_LAB)
    qtbot.waitUntil(lambda: tab.options_bar.mail_configured is False, timeout=WAIT)
    choose(qtbot, tab, export_format="pdf", severity=("critical", "high"), report_type=("sast", "secret_detection"))
    tab.request_button.click()
    qtbot.waitUntil(lambda: finished_record(tab) is not None, timeout=WAIT)
    table, model = tab.table, tab.model
    assert str(model.index(0, model.WHAT).data()).startswith("PDF, severity critical or high, tool SAST")
    for size in ((1080, 560), (880, 480)):  # the tab in the 1100×700 and the 900×600 window
        tab.resize(*size)
        qtbot.waitUntil(lambda: whole(table, 0, model.SCOPE) and whole(table, 0, model.WHAT), timeout=WAIT)
        assert table.horizontalHeader().length() <= table.viewport().width() + 1, size  # no sideways scrolling
    scope = table.fontMetrics().horizontalAdvance(str(model.index(0, model.SCOPE).data()))
    assert table.horizontalHeader().sectionSize(model.SCOPE) <= scope + 40  # at 900 px no wider than its text
