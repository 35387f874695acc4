"""The stack trace view: exceptions in order, frames with their source context.

In-app frames are bold and open; runs of library frames fold into one collapsible row. The line
that raised is highlighted in each frame's context. Where source maps were applied, a first row
"Show minified" switches to the frames as the SDK sent them; a frame that could not be mapped says why.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, QTimer
from PySide6.QtGui import QBrush, QFont, QFontDatabase
from PySide6.QtWidgets import QHeaderView, QTreeWidget, QTreeWidgetItem, QTreeWidgetItemIterator

from console.core.api.sentry_events import frame_label
from console.looks import colour
from outpost_model import UnsetType
from outpost_model.error_tracking import ExceptionFrame, ExceptionValue

# Item data roles marking what a row is (read by tests).
IN_APP_ROLE = Qt.ItemDataRole.UserRole + 10
LIBRARY_GROUP_ROLE = Qt.ItemDataRole.UserRole + 11
ERROR_LINE_ROLE = Qt.ItemDataRole.UserRole + 12
# The pane's order, as Python's tracebacks read, said on its tab and over its frames (Copy as Markdown lists a
# few application frames the other way, where the one that raised matters most, and says so too).
FRAME_ORDER = "Frames oldest first: the most recent call, where it raised, is last."
FRAME_ORDER_HEADING = "Frames, oldest first (most recent call last)"
SHOW_MINIFIED = "Show minified (the frames as sent, before source maps)"


def _raw_frames(exception: ExceptionValue) -> list[ExceptionFrame]:
    """The frames as the SDK sent them, where source maps changed them (integrated errors only)."""
    return [] if isinstance(exception.raw_frames, UnsetType) else exception.raw_frames


class StackTraceView(QTreeWidget):
    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self.setColumnCount(1)
        self.setHeaderLabels([FRAME_ORDER_HEADING])  # the order in view, not only in a tooltip
        # A long line of code scrolls sideways rather than being cut: the column is as wide as its widest row.
        self.header().setStretchLastSection(False)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.setAccessibleDescription(FRAME_ORDER)
        self.setUniformRowHeights(True)
        self._code_font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
        self._exceptions: list[ExceptionValue] = []
        self._message: str | None = None
        self.minified = False
        self.minified_switch: QTreeWidgetItem | None = None
        self.itemChanged.connect(self._switch_changed)

    def _switch_changed(self, item: QTreeWidgetItem, _column: int) -> None:
        if item is self.minified_switch:
            self.minified = item.checkState(0) == Qt.CheckState.Checked
            # Rebuilt once this signal returns: the switch row itself is among the rows replaced.
            QTimer.singleShot(0, self._render)

    def show_message(self, text: str) -> None:
        self.clear()
        self.minified_switch = None
        QTreeWidgetItem(self, [text])

    def show_exceptions(self, exceptions: list[ExceptionValue], message: str | None = None) -> None:
        """``message``: the log message of a logged exception, shown above it."""
        self._exceptions = exceptions
        self._message = message
        self.minified = False
        self._render()

    def changeEvent(self, event: QEvent) -> None:
        super().changeEvent(event)
        if event.type() == QEvent.Type.PaletteChange:
            self._colour_rows()

    def _colour_rows(self) -> None:
        """The line that raised on the notice background, library frame groups muted, in the palette's colours."""
        notice, muted = QBrush(colour("notice")), QBrush(colour("muted"))
        iterator = QTreeWidgetItemIterator(self)
        while (item := iterator.value()) is not None:
            if item.data(0, ERROR_LINE_ROLE):
                item.setBackground(0, notice)
            elif item.data(0, LIBRARY_GROUP_ROLE):
                item.setForeground(0, muted)
            iterator += 1

    def _render(self) -> None:
        exceptions = self._exceptions
        self.blockSignals(True)
        self.clear()
        self.minified_switch = None
        if any(_raw_frames(exception) for exception in exceptions):
            self.minified_switch = QTreeWidgetItem(self, [SHOW_MINIFIED])
            self.minified_switch.setFlags(self.minified_switch.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            self.minified_switch.setCheckState(0, Qt.CheckState.Checked if self.minified else Qt.CheckState.Unchecked)
        self.blockSignals(False)
        if not exceptions:
            self.show_message("No stack trace: this error was reported as a message.")
            return
        if self._message:
            logged = QTreeWidgetItem(self, [self._message])
            logged.setToolTip(0, self._message)
            bold = logged.font(0)
            bold.setBold(True)
            logged.setFont(0, bold)
        for position, exception in enumerate(exceptions):
            title = ": ".join(str(part) for part in (exception.type, exception.value) if part)
            if len(exceptions) > 1:
                title = f"{position + 1} of {len(exceptions)}  {title or 'Exception'}"
                if position < len(exceptions) - 1:
                    title += "  (led to the next exception)"
            top = QTreeWidgetItem(self, [title or "Stack trace"])
            top.setToolTip(0, title)  # whole, where the pane cuts it
            bold = top.font(0)
            bold.setBold(True)
            top.setFont(0, bold)
            frames = (self.minified and _raw_frames(exception)) or exception.frames
            self._add_frames(top, frames)
            top.setExpanded(True)
        self._colour_rows()

    def _add_frames(self, parent: QTreeWidgetItem, frames: list[ExceptionFrame]) -> None:
        # With no frame marked in-app (older SDKs), every frame is treated as the application's.
        any_in_app = any(frame.in_app for frame in frames)
        library_run: list[ExceptionFrame] = []

        def flush_library_run() -> None:
            if not library_run:
                return
            count = len(library_run)
            group = QTreeWidgetItem(parent, [f"{count} library frame{'s' if count != 1 else ''}"])
            group.setData(0, LIBRARY_GROUP_ROLE, True)
            for frame in library_run:
                self._add_frame(group, frame, in_app=False)
            group.setExpanded(False)
            library_run.clear()

        for frame in frames:
            if any_in_app and not frame.in_app:
                library_run.append(frame)
                continue
            flush_library_run()
            self._add_frame(parent, frame, in_app=True)
        flush_library_run()

    def _add_frame(self, parent: QTreeWidgetItem, frame: ExceptionFrame, *, in_app: bool) -> None:
        item = QTreeWidgetItem(parent, [frame_label(frame)])
        item.setToolTip(0, item.text(0))
        item.setData(0, IN_APP_ROLE, in_app)
        font = item.font(0)
        font.setBold(in_app)
        item.setFont(0, font)
        line_number = frame.lineNo
        for number, code in frame.context:
            line = QTreeWidgetItem(item, [f"{number:>6}  {str(code).rstrip()}"])
            line_font = QFont(self._code_font)
            if number == line_number:
                line.setData(0, ERROR_LINE_ROLE, True)
                line_font.setBold(True)
            line.setFont(0, line_font)
        item.setExpanded(in_app)
