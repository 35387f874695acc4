"""Table models of the error tracking tab: the error list (paged from the server) and client keys."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, QTimer, Signal
from PySide6.QtGui import QFont

from console.core.api.error_graphql import ERROR_TRACKING_DISABLED
from console.core.api.error_tracking import ErrorPage, ErrorSummary
from console.core.api.errors import ApiError, Unsupported
from console.core.timestamps import full_time, relative_time
from console.table_model import HeaderedTableModel, Index
from outpost_model.error_tracking import ClientKey

FREQUENCY_ROLE = int(Qt.ItemDataRole.UserRole) + 1
ERROR_ROLE = int(Qt.ItemDataRole.UserRole) + 2
HIDDEN_DSN = "•" * 16
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_FONT = int(Qt.ItemDataRole.FontRole)
_RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
_ERROR_ROLES = frozenset({_DISPLAY, _TOOLTIP, _ALIGNMENT, _FONT, FREQUENCY_ROLE, ERROR_ROLE})
# What the error list says instead of errors.
PENDING = "The server is still fetching the errors from Sentry. They appear with the next refresh."


def explained_in_place(error: ApiError) -> bool:
    """Whether the list's own text is the whole story (error tracking off, or not offered by this server)."""
    return error.detail == ERROR_TRACKING_DISABLED or isinstance(error, Unsupported)


def list_failure(error: ApiError) -> str:
    if error.detail == ERROR_TRACKING_DISABLED:
        return "Error tracking is not enabled for this project: turn it on in the Settings tab."
    if isinstance(error, Unsupported):
        return error.detail
    return f"The errors could not be loaded. {error.message}"


class ErrorListModel(HeaderedTableModel):
    """Errors of one list query; more rows come page by page as the view scrolls (canFetchMore/fetchMore).

    The model does no I/O: `fetch_more_requested(cursor)` asks its owner to load the next page,
    which arrives through `append_page`.
    """

    HEADERS = ("Error", "Type", "Events", "Users", "First seen", "Last seen", "Status", "Last 24 hours", "Assignee")
    TITLE, TYPE, EVENTS, USERS, FIRST_SEEN, LAST_SEEN, STATUS, TREND, ASSIGNEE = range(9)

    fetch_more_requested = Signal(str)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._errors: list[ErrorSummary] = []
        # Display texts per row, computed once: views ask for data() thousands of times.
        self._texts: list[tuple[Any, ...]] = []
        self._next_cursor: str | None = None
        self._loading_more = False
        bold = QFont()
        bold.setBold(True)
        self._bold = bold
        # "5 min ago" is true for a minute: the texts follow the clock between the list's refreshes.
        self._clock = QTimer(self)
        self._clock.setInterval(60_000)
        self._clock.timeout.connect(self.follow_clock)
        self._clock.start()

    # --- content -----------------------------------------------------------------------------

    @property
    def errors(self) -> list[ErrorSummary]:
        return list(self._errors)

    def reset_page(self, page: ErrorPage) -> None:
        self.beginResetModel()
        self._errors = list(page.errors)
        self._texts = [self._display_texts(error) for error in self._errors]
        self._next_cursor = page.next_cursor
        self._loading_more = False
        self.endResetModel()

    def append_page(self, page: ErrorPage) -> None:
        known = {error.id for error in self._errors}
        fresh = [error for error in page.errors if error.id not in known]
        if fresh:
            self.beginInsertRows(QModelIndex(), len(self._errors), len(self._errors) + len(fresh) - 1)
            self._errors.extend(fresh)
            self._texts.extend(self._display_texts(error) for error in fresh)
            self.endInsertRows()
        self._next_cursor = page.next_cursor
        self._loading_more = False

    def more_failed(self) -> None:
        self._loading_more = False

    def refresh_rows(self, errors: list[ErrorSummary]) -> None:
        """Updates rows already shown with fresher data of the same errors (from the store)."""
        fresh = {error.id: error for error in errors}
        for row, error in enumerate(self._errors):
            if error.id in fresh and fresh[error.id] != error:
                self._errors[row] = fresh[error.id]
                self._texts[row] = self._display_texts(fresh[error.id])
                self.dataChanged.emit(self.index(row, 0), self.index(row, len(self.HEADERS) - 1))

    def follow_clock(self) -> None:
        """Computes the relative times again ("just now" becomes "1 min ago")."""
        if self._errors:
            self._texts = [self._display_texts(error) for error in self._errors]
            self.dataChanged.emit(self.index(0, self.FIRST_SEEN), self.index(len(self._errors) - 1, self.LAST_SEEN),
                                  [Qt.ItemDataRole.DisplayRole])

    def remove_error(self, error_id: str) -> None:
        for row, error in enumerate(self._errors):
            if error.id == error_id:
                self.beginRemoveRows(QModelIndex(), row, row)
                del self._errors[row]
                del self._texts[row]
                self.endRemoveRows()
                return

    def row_of(self, error_id: str) -> int:
        return next((row for row, error in enumerate(self._errors) if error.id == error_id), -1)

    def error_at(self, row: int) -> ErrorSummary | None:
        return self._errors[row] if 0 <= row < len(self._errors) else None

    # --- Qt model ----------------------------------------------------------------------------

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._errors)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        # Views call this for every role of every visible cell on each paint: plain ints, early exits.
        role = int(role)
        if role not in _ERROR_ROLES:
            return None
        row = index.row()
        if not index.isValid() or not 0 <= row < len(self._errors):
            return None
        column = index.column()
        if role == _DISPLAY:
            return self._texts[row][column]
        error = self._errors[row]
        if role == _TOOLTIP:
            if column == self.TITLE:
                return "\n".join(part for part in (error.title, _subtitle(error), error.culprit) if part)
            if column == self.TREND:
                return f"{sum(error.frequency)} events in the last 24 hours"
            if column in (self.FIRST_SEEN, self.LAST_SEEN):
                return full_time(error.first_seen if column == self.FIRST_SEEN else error.last_seen)
        elif role == _ALIGNMENT and column in (self.EVENTS, self.USERS):
            return _RIGHT_ALIGNED
        elif role == _FONT and column == self.TITLE:
            return self._bold
        elif role == FREQUENCY_ROLE and column == self.TREND:
            return list(error.frequency)
        elif role == ERROR_ROLE:
            return error
        return None

    @staticmethod
    def _display_texts(error: ErrorSummary) -> tuple[Any, ...]:
        """In column order; the trend column is painted by its delegate."""
        subtitle = _subtitle(error)
        title = f"{error.title} — {subtitle}" if subtitle else error.title
        return (title, error.type or "", error.count, error.user_count, relative_time(error.first_seen),
                relative_time(error.last_seen), error.status.capitalize(), None, error.assignee or "")

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:
        return not parent.isValid() and self._next_cursor is not None and not self._loading_more

    def fetchMore(self, parent: Index = QModelIndex()) -> None:
        if not self.canFetchMore(parent):
            return
        self._loading_more = True
        self.fetch_more_requested.emit(self._next_cursor)


def _subtitle(error: ErrorSummary) -> str | None:
    """The message when the title does not already say it: SDKs that send a message with a synthetic
    exception get titled by a function name (as in Sentry), and the message is what a person can read."""
    message = (error.message or "").strip().splitlines()[0] if (error.message or "").strip() else ""
    return message if message and message not in error.title else None


class ClientKeyModel(HeaderedTableModel):
    """A project's client keys; each DSN stays hidden until revealed."""

    HEADERS = ("ID", "Public key", "DSN", "Active")
    ID, PUBLIC_KEY, DSN, ACTIVE = range(4)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        self._keys: list[ClientKey] = []
        self._revealed: set[int] = set()
        self.highlighted: int | None = None

    @property
    def keys(self) -> list[ClientKey]:
        return list(self._keys)

    def set_keys(self, keys: list[ClientKey]) -> None:
        self.beginResetModel()
        self._keys = list(keys)
        self._revealed.clear()  # a reloaded table shows every DSN hidden again
        self.endResetModel()

    def key_at(self, row: int) -> ClientKey | None:
        return self._keys[row] if 0 <= row < len(self._keys) else None

    def is_revealed(self, key_id: int) -> bool:
        return key_id in self._revealed

    def hide_unless(self, key_id: int | None) -> None:
        """Hide every revealed DSN but that of ``key_id`` (the selected key)."""
        for key in self._keys:
            if key.id != key_id and key.id in self._revealed:
                self.set_revealed(key.id, False)

    def set_revealed(self, key_id: int, revealed: bool) -> None:
        if revealed:
            self._revealed.add(key_id)
        else:
            self._revealed.discard(key_id)
        for row, key in enumerate(self._keys):
            if key.id == key_id:
                self.dataChanged.emit(self.index(row, self.DSN), self.index(row, self.DSN))

    def rowCount(self, parent: Index = QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._keys)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._keys):
            return None
        key = self._keys[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == self.ID:
                return key.id
            if column == self.PUBLIC_KEY:
                return key.public_key[:9] + "…"
            if column == self.DSN:
                return key.sentry_dsn if key.id in self._revealed else HIDDEN_DSN
            if column == self.ACTIVE:
                return "Yes" if key.active else "No"
        if role == Qt.ItemDataRole.FontRole and key.id == self.highlighted:
            font = QFont()
            font.setBold(True)
            return font
        if role == Qt.ItemDataRole.ToolTipRole and column == self.DSN and key.id not in self._revealed:
            return "Hidden: select the key and use Reveal DSN"
        return None
