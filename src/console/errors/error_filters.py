"""The Errors page's filter row: the search (as you type, once the typing pauses), the sort, the status and
assignee filters ("Assigned to me" one click away) and Refresh. The page asks it for the query and reloads
the list when it says the query changed."""

from __future__ import annotations

from PySide6.QtCore import QTimer, Signal
from PySide6.QtWidgets import QComboBox, QHBoxLayout, QLabel, QLineEdit, QPushButton, QVBoxLayout, QWidget

from console.core.api.error_tracking import SORTS, STATUSES, UNRESOLVED_ONLY
from console.core.api.triage import NO_TRIAGE_API
from console.core.repositories.errors import ListQuery
from console.window_state import SORT_CHOOSER

# Short enough to be read whole at the default window size; the tooltip has the keys.
SEARCH_PLACEHOLDER = "Search words or key:value"
SEARCH_PAUSE_MS = 300
SEARCH_KEYS = ("Words, or keys: is:resolved, release:1.2, environment:prod, level:error. Enter searches; "
               "clearing the field lists every error again.")
SORT_LABELS = {"last_seen": "Last seen", "first_seen": "First seen", "frequency": "Most frequent"}
# The assignee filter's choices and the search keys each adds (Outpost's, after Sentry's).
ASSIGNEES = (("Anyone", ""), ("Assigned to me", "assigned:me"), ("Unassigned", "is:unassigned"),
             ("Assigned", "is:assigned"))
MINE = "assigned:me"
NO_ASSIGNEES = "GitLab's errors have no assignee. " + NO_TRIAGE_API
ASSIGNEE_TIPS = {False: "Whose errors to list", True: "Only the errors assigned to me (one click; again for all)"}


class ErrorFilters(QWidget):
    """Search, sort, status and Refresh.

    Signals:
        changed: the list should be read again with :meth:`query` (a choice changed, Enter, Refresh, a pause).
    """

    changed = Signal()

    def __init__(self) -> None:
        super().__init__()
        self.search = QLineEdit()
        self.search.setPlaceholderText(SEARCH_PLACEHOLDER)
        self.search.setToolTip(SEARCH_KEYS)
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(self.changed)
        self.search.textChanged.connect(self._search_edited)
        # The list follows the words as they are typed, once the typing pauses (as the variables filter does).
        self.search_pause = QTimer(self)
        self.search_pause.setSingleShot(True)
        self.search_pause.setInterval(SEARCH_PAUSE_MS)
        self.search_pause.timeout.connect(self._search_paused)
        self.searched = ""  # the search the list shows
        self.sort = QComboBox()
        self.sort.setObjectName(SORT_CHOOSER)  # remembered per profile in the console
        for value in SORTS:
            self.sort.addItem(SORT_LABELS[value], value)
        self.status = QComboBox()
        for value in STATUSES:
            self.status.addItem(value.capitalize(), value)
        self.assignee = QComboBox()
        for label, term in ASSIGNEES:
            self.assignee.addItem(label, term)
        self.assignee.currentIndexChanged.connect(self._assignee_chosen)
        self.mine = QPushButton("Assigned to me")
        self.mine.setCheckable(True)
        self.mine.toggled.connect(self.show_mine)
        self.refresh_button = QPushButton("Refresh")
        self.sort.currentIndexChanged.connect(self.changed)
        self.status.currentIndexChanged.connect(self.changed)
        self.refresh_button.clicked.connect(self.changed)
        rows = QVBoxLayout(self)
        rows.setContentsMargins(0, 0, 0, 0)
        row = QHBoxLayout()
        rows.addLayout(row)
        row.addWidget(self.search, 1)
        row.addWidget(QLabel("Sort"))
        row.addWidget(self.sort)
        row.addWidget(QLabel("Status"))
        row.addWidget(self.status)
        row.addWidget(self.refresh_button)
        # Below, so the search keeps its width at the default window size.
        assignees = QHBoxLayout()
        rows.addLayout(assignees)
        assignees.addWidget(QLabel("Assignee"))
        assignees.addWidget(self.assignee)
        assignees.addWidget(self.mine)
        assignees.addStretch(1)

    def query(self) -> ListQuery:
        """What the list asks for; the errors repository holds each query's latest read."""
        return ListQuery(str(self.status.currentData() or "unresolved"), str(self.sort.currentData() or "last_seen"),
                         " ".join(part for part in (self.assignee.currentData(), self.search.text().strip()) if part))

    def show_mine(self, shown: bool = True) -> None:
        """Only the errors assigned to the signed-in user, or every assignee's again."""
        self.assignee.setCurrentIndex(self.assignee.findData(MINE if shown else ""))

    def _assignee_chosen(self) -> None:
        self.mine.blockSignals(True)
        self.mine.setChecked(self.assignee.currentData() == MINE)
        self.mine.blockSignals(False)
        self.changed.emit()

    def take_search(self) -> None:
        """The list is read again for the words in the field now."""
        self.searched = self.search.text().strip()

    def adapt(self, can_filter_status: bool) -> None:
        """Offer the status filter and the search keys only where the server has them."""
        self.status.setEnabled(can_filter_status)
        self.status.setToolTip("" if can_filter_status else UNRESOLVED_ONLY)
        if not can_filter_status:
            self.status.setCurrentIndex(self.status.findData("unresolved"))
        # Assignees are Outpost's: GitLab's errors have none.
        for control in (self.assignee, self.mine):
            control.setEnabled(can_filter_status)
            control.setToolTip(ASSIGNEE_TIPS[control is self.mine] if can_filter_status else NO_ASSIGNEES)
        if not can_filter_status and self.assignee.currentIndex() != 0:
            self.assignee.setCurrentIndex(0)
        # The search keys are Outpost's; GitLab hands the words to Sentry as they are.
        self.search.setPlaceholderText(SEARCH_PLACEHOLDER if can_filter_status else "Search")
        self.search.setToolTip(SEARCH_KEYS if can_filter_status else "")

    def _search_edited(self, text: str) -> None:
        """Emptying the field (its clear button, or deleting the words) lists every error again at once; other
        changes search once the typing pauses."""
        if not text.strip() and self.searched:
            self.search_pause.stop()
            self.changed.emit()
        else:
            self.search_pause.start()

    def _search_paused(self) -> None:
        if self.search.text().strip() != self.searched:
            self.changed.emit()
