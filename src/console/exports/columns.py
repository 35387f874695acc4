"""The exports tab's table and its column widths: each column as wide as the text it usually shows (the user's
widths are then remembered per profile, console.window_state)."""

from __future__ import annotations

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QHeaderView, QTableView

from console.exports.models import ExportsModel

# Default column widths, from the widest text each column shows (the user's widths are remembered).
EXPORT_COLUMN_SAMPLES = {ExportsModel.WHAT: "CSV, every vulnerability", ExportsModel.STATUS: "expired (deleted)",
                         ExportsModel.REQUESTED: "2026-12-31 23:59:59", ExportsModel.ELAPSED: "59 min 59 s",
                         ExportsModel.TIME_LEFT: "23 h 59 min", ExportsModel.ID: "1000000"}
# The preview's first columns, and the usual width of each column as a sample text.
PREVIEW_FIRST = ("Severity", "Status", "Vulnerability", "Project Name", "Location")
PREVIEW_SAMPLES = {"Severity": "Severity ", "Status": "confirmed", "Vulnerability": "Improper neutralization of input",
                   "Project Name": "scanner-lab-project", "Location": "app/models/user.rb:42", "Tool": "dependency",
                   "Detected At": "2026-12-31 23:59:59 UTC", "CVE": "CVE-2026-12345", "CWE": "CWE-1234"}
DEFAULT_SAMPLE = "medium text here"
CELL_PADDING = 24  # the cell's margins and the grid line, beside the text


def size_columns(table: QTableView, samples: dict[int, str]) -> None:
    """Each listed column as wide as its sample text (and at least its title), in the table's font."""
    header, metrics, model = table.horizontalHeader(), table.fontMetrics(), table.model()
    for column, sample in samples.items():
        title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
        width = max(metrics.horizontalAdvance(sample), header.fontMetrics().horizontalAdvance(title) + 12)
        header.resizeSection(column, width + 24)


def fit_scope(table: QTableView) -> None:
    """Scope and "Format and filters" share what the other columns leave; what does not fit on one line wraps at
    spaces onto more (the rows grow), so neither text is cut at 900 px."""
    header, metrics, model = table.horizontalHeader(), table.fontMetrics(), table.model()

    def texts(column: int) -> list[str]:
        return [str(model.index(row, column).data() or "") for row in range(model.rowCount())]

    def widest(lines: list[str]) -> int:
        return max((metrics.horizontalAdvance(line) for line in lines), default=0) + CELL_PADDING

    scope = texts(ExportsModel.SCOPE) + [str(model.headerData(ExportsModel.SCOPE, Qt.Orientation.Horizontal))]
    others = sum(header.sectionSize(other) for other in range(model.columnCount())
                 if other not in (ExportsModel.SCOPE, ExportsModel.WHAT) and not header.isSectionHidden(other))
    room = table.viewport().width() - others
    whole, longest_word = widest(scope), widest([word for text in scope for word in text.split()])
    # Scope keeps its line while "Format and filters" keeps room for its usual text (a longer PDF filter line
    # wraps); narrower, Scope wraps too, down to its longest word.
    width = max(longest_word, min(whole, room - widest([EXPORT_COLUMN_SAMPLES[ExportsModel.WHAT]])))
    header.resizeSection(ExportsModel.SCOPE, width)
    QTimer.singleShot(0, table, table.resizeRowsToContents)  # once "Format and filters" has stretched


def exports_table(model: ExportsModel) -> QTableView:
    """The list of exports: one row selected at a time, each column as wide as its usual text."""
    table = QTableView()
    table.setObjectName("exportsTable")  # its columns are remembered per profile (console.window_state)
    table.setModel(model)
    table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableView.SelectionMode.SingleSelection)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    table.setWordWrap(True)  # at 900 px Scope and "Format and filters" wrap rather than being cut
    size_columns(table, EXPORT_COLUMN_SAMPLES)
    # "Format and filters" (a PDF's filters make a long line) takes what is left; Scope its text's width.
    table.horizontalHeader().setSectionResizeMode(ExportsModel.WHAT, QHeaderView.ResizeMode.Stretch)
    for signal in (model.modelReset, model.rowsInserted):
        signal.connect(lambda *_: fit_scope(table))
    return table
