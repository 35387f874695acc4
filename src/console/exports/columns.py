"""The exports tab's column widths: each column as wide as the text it usually shows (the user's widths are then
remembered per profile, console.window_state)."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QTableView

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


def size_columns(table: QTableView, samples: dict[int, str]) -> None:
    """Each listed column as wide as its sample text (and at least its title), in the table's font."""
    header, metrics, model = table.horizontalHeader(), table.fontMetrics(), table.model()
    for column, sample in samples.items():
        title = str(model.headerData(column, Qt.Orientation.Horizontal) or "")
        width = max(metrics.horizontalAdvance(sample), header.fontMetrics().horizontalAdvance(title) + 12)
        header.resizeSection(column, width + 24)


def fit_scope(table: QTableView) -> None:
    """The Scope column as wide as its widest text, within a third of the table and what "Format and filters"
    (which stretches over the rest) needs for its usual text; a wider Scope is cut, whole in its tooltip."""
    header, metrics, model = table.horizontalHeader(), table.fontMetrics(), table.model()
    column = ExportsModel.SCOPE
    texts = [str(model.headerData(column, Qt.Orientation.Horizontal) or "")]
    texts += [str(model.index(row, column).data() or "") for row in range(model.rowCount())]
    widest = max(metrics.horizontalAdvance(text) for text in texts) + 24
    others = sum(header.sectionSize(other) for other in range(model.columnCount())
                 if other not in (column, ExportsModel.WHAT) and not header.isSectionHidden(other))
    what = metrics.horizontalAdvance(EXPORT_COLUMN_SAMPLES[ExportsModel.WHAT]) + 24
    room = table.viewport().width() - others - what
    header.resizeSection(column, max(80, min(widest, room, table.viewport().width() // 3)))
