"""The error tracking tab: project picker, error list with detail, settings page and client keys page.

All server work runs on the event loop through the AppContext; answers that arrive after the user
moved on (another project, another filter) are dropped by comparing a generation number.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

from PySide6.QtCore import QModelIndex, QRect, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QGuiApplication, QHideEvent, QPainter, QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QSplitter,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from console.api.error_tracking import (
    REQUIRED_SCOPES,
    SORTS,
    STATUSES,
    ClientKey,
    ErrorPage,
    ErrorSummary,
    ErrorTrackingApi,
    ExternalProject,
    TrackingSettings,
    api_url_for,
)
from console.api.errors import ApiError, Forbidden, NotFound
from console.context import AppContext
from console.errors.dialogs import RotateKeyWizard
from console.errors.models import FREQUENCY_ROLE, ClientKeyModel, ErrorListModel, short_time
from console.errors.origins import AllowedOriginsBox
from console.errors.retention import RetentionPage
from console.errors.stacktrace import StackTraceView

T = TypeVar("T")
AUTO_REFRESH_MS = 30_000
MASKED_TOKEN = "*" * 12
CONNECTION_FAILED = "Connection failed. Check auth token and try again."
MAINTAINER_ONLY = "Only Maintainers and Owners of the project can see and change this."
SORT_LABELS = {"last_seen": "Last seen", "first_seen": "First seen", "frequency": "Most frequent"}
STATUS_ACTIONS = (("Resolve", "resolved"), ("Ignore", "ignored"), ("Unresolve", "unresolved"))


class FrequencyBarDelegate(QStyledItemDelegate):
    """Paints the last 24 hours' counts as a small bar chart."""

    BAR_COLOR = QColor("#6e49cb")

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex) -> None:
        counts = index.data(FREQUENCY_ROLE) or []
        if option.state & QStyle.StateFlag.State_Selected:
            painter.fillRect(option.rect, option.palette.highlight())
        if not counts:
            return
        peak = max(counts) or 1
        area = option.rect.adjusted(4, 4, -4, -4)
        width = max(area.width() / len(counts), 1.0)
        painter.save()
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(self.BAR_COLOR)
        for position, count in enumerate(counts):
            if count <= 0:
                continue
            height = max(int(area.height() * count / peak), 1)
            left = area.left() + int(position * width)
            painter.drawRect(QRect(left, area.bottom() - height + 1, max(int(width) - 1, 1), height))
        painter.restore()


class ProjectGone(NotFound):
    """The chosen project was deleted, or access to it lost, after the project list was loaded."""

    def __init__(self, path: str) -> None:
        self.path = path
        super().__init__(status=404)

    @property
    def message(self) -> str:
        return (f"The project {self.path} no longer exists, or you no longer have access to it. "
                "The project list has been reloaded: choose another.")


class _Page(QWidget):
    """Shared plumbing: the tab's API access and guarded tasks."""

    def __init__(self, tab: ErrorTrackingTab) -> None:
        super().__init__()
        self.tab = tab

    def run(self, work: Coroutine[Any, Any, T], description: str, on_success: Callable[[T], None] | None = None
            ) -> asyncio.Task[None] | None:
        if not self.tab.context.is_connected:  # e.g. a dialog closing after a disconnect
            work.close()
            return None
        return self.tab.context.run(self.tab.explaining_stale_project(work), description=description,
                                    on_success=on_success)


class ErrorDetailView(QWidget):
    """One error: what happened, where, how often, releases, and its stack trace."""

    status_requested = Signal(str, str)  # error id, new status

    def __init__(self) -> None:
        super().__init__()
        self.error_id: str | None = None
        self.title = QLabel("Select an error to see its details")
        font = self.title.font()
        font.setPointSizeF(font.pointSizeF() * 1.25)
        font.setBold(True)
        self.title.setFont(font)
        self.title.setWordWrap(True)
        self.exception = QLabel()
        self.exception.setWordWrap(True)
        self.culprit = QLabel()
        self.culprit.setStyleSheet("color: palette(dark);")
        self.action_buttons: dict[str, QPushButton] = {}
        actions = QHBoxLayout()
        for text, status in STATUS_ACTIONS:
            button = QPushButton(text)
            button.clicked.connect(lambda _checked=False, s=status: self._request(s))
            self.action_buttons[status] = button
            actions.addWidget(button)
        actions.addStretch(1)
        self.fields: dict[str, QLabel] = {}
        form = QFormLayout()
        for name in ("Status", "Events", "Users affected", "First seen", "Last seen", "First release",
                     "Last release", "Environment", "Tags", "Release health"):
            label = QLabel()
            label.setWordWrap(True)
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.fields[name] = label
            form.addRow(name, label)
        self.stack_trace = StackTraceView()
        layout = QVBoxLayout(self)
        layout.addWidget(self.title)
        layout.addWidget(self.exception)
        layout.addWidget(self.culprit)
        layout.addLayout(actions)
        layout.addLayout(form)
        layout.addWidget(QLabel("Stack trace"))
        layout.addWidget(self.stack_trace, 1)
        self.clear()

    def _request(self, status: str) -> None:
        if self.error_id is not None:
            self.status_requested.emit(self.error_id, status)

    def clear(self) -> None:
        self.error_id = None
        self.title.setText("Select an error to see its details")
        for label in (self.exception, self.culprit, *self.fields.values()):
            label.clear()
        self.stack_trace.clear()
        for button in self.action_buttons.values():
            button.setEnabled(False)

    def show_summary(self, error: ErrorSummary) -> None:
        """What the list already knows, shown at once while the details load."""
        self.error_id = error.id
        self.title.setText(error.title)
        self.culprit.setText(error.culprit or "")
        self._show_status(error.status)
        self.fields["Events"].setText(str(error.count))
        self.fields["Users affected"].setText(str(error.user_count))
        self.fields["First seen"].setText(short_time(error.first_seen))
        self.fields["Last seen"].setText(short_time(error.last_seen))
        self.stack_trace.show_message("Loading the stack trace…")

    def _show_status(self, status: str) -> None:
        self.fields["Status"].setText(status.capitalize())
        for button_status, button in self.action_buttons.items():
            button.setEnabled(button_status != status)

    def show_details(self, detail: dict[str, Any]) -> None:
        self.error_id = str(detail["id"])
        self.title.setText(str(detail.get("title") or ""))
        kind = detail.get("exception_type") or (detail.get("tags") or {}).get("level") or detail.get("type") or ""
        message = detail.get("message") or ""
        self.exception.setText(f"{kind}: {message}" if kind and message else kind or message)
        self.culprit.setText(detail.get("culprit") or "")
        self._show_status(str(detail.get("status") or "unresolved"))
        self.fields["Events"].setText(str(detail.get("count") or 0))
        self.fields["Users affected"].setText(str(detail.get("user_count") or 0))
        self.fields["First seen"].setText(short_time(detail.get("first_seen")))
        self.fields["Last seen"].setText(short_time(detail.get("last_seen")))
        self.fields["First release"].setText(detail.get("first_release_short_version") or "—")
        self.fields["Last release"].setText(detail.get("last_release_short_version") or "—")
        tags = {k: v for k, v in (detail.get("tags") or {}).items() if v}
        self.fields["Environment"].setText(tags.get("environment") or detail.get("environment") or "—")
        self.fields["Tags"].setText("   ".join(f"{key}: {value}" for key, value in tags.items()) or "—")
        health = detail.get("release_health") or []
        self.fields["Release health"].setText("\n".join(
            f"{row['release']} ({row['environment']}): {row['sessions']} sessions, {row['crashed']} crashed"
            + (f", {row['crash_free_rate']}% crash-free" if row.get("crash_free_rate") is not None else "")
            for row in health) or "—")

    def show_stack_trace(self, exceptions: list[dict[str, Any]], message: str | None) -> None:
        if exceptions:
            self.stack_trace.show_exceptions(exceptions)
        else:
            self.stack_trace.show_message(f"No stack trace: reported as a message ({message})" if message
                                          else "No stack trace was sent with this error.")


async def _maintainer_only(work: Coroutine[Any, Any, T]) -> T | None:
    """The result, or None when the signed-in user's role is too low (not an error worth reporting)."""
    try:
        return await work
    except Forbidden:
        return None


def _list_failure(error: ApiError) -> str:
    if error.detail == "Error Tracking is not enabled":
        return "Error tracking is not enabled for this project: turn it on in the Settings tab."
    return f"The errors could not be loaded. {error.message}"


class ErrorsPage(_Page):
    """The error list with search, sort and status filter, and the selected error's details."""

    def __init__(self, tab: ErrorTrackingTab) -> None:
        super().__init__(tab)
        self.generation = 0
        self.loading = False
        self.refreshing = False  # an auto-refresh is in flight (a slow server must not stack them up)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search: words, is:resolved, release:1.2, environment:prod, level:error")
        self.search.setClearButtonEnabled(True)
        self.search.returnPressed.connect(self.reload)
        self.sort = QComboBox()
        for value in SORTS:
            self.sort.addItem(SORT_LABELS[value], value)
        self.status = QComboBox()
        for value in STATUSES:
            self.status.addItem(value.capitalize(), value)
        self.refresh_button = QPushButton("Refresh")
        self.sort.currentIndexChanged.connect(self.reload)
        self.status.currentIndexChanged.connect(self.reload)
        self.refresh_button.clicked.connect(self.reload)
        filters = QHBoxLayout()
        filters.addWidget(self.search, 1)
        filters.addWidget(QLabel("Sort"))
        filters.addWidget(self.sort)
        filters.addWidget(QLabel("Status"))
        filters.addWidget(self.status)
        filters.addWidget(self.refresh_button)

        self.model = ErrorListModel(self)
        self.model.fetch_more_requested.connect(self._fetch_more)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setItemDelegateForColumn(ErrorListModel.TREND, FrequencyBarDelegate(self.table))
        self.table.verticalHeader().hide()
        self.table.setWordWrap(False)
        # Fixed widths from the font, not ResizeToContents: measuring every cell on each page is slow.
        header = self.table.horizontalHeader()
        metrics = self.table.fontMetrics()
        samples = {ErrorListModel.TYPE: "default", ErrorListModel.EVENTS: "1,000,000", ErrorListModel.USERS: "100,000",
                   ErrorListModel.FIRST_SEEN: "2026-12-31 23:59", ErrorListModel.LAST_SEEN: "2026-12-31 23:59",
                   ErrorListModel.STATUS: "Unresolved", ErrorListModel.TREND: "Last 24 hours"}
        for column, sample in samples.items():
            header.resizeSection(column, metrics.horizontalAdvance(sample) + 24)
        header.setSectionResizeMode(ErrorListModel.TITLE, QHeaderView.ResizeMode.Stretch)
        self.table.verticalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        self.table.verticalHeader().setDefaultSectionSize(metrics.height() + 10)
        self.table.selectionModel().currentRowChanged.connect(self._row_selected)
        self.list_buttons: dict[str, QPushButton] = {}
        list_actions = QHBoxLayout()
        for text, status in STATUS_ACTIONS:
            button = QPushButton(text)
            button.setEnabled(False)
            button.clicked.connect(lambda _checked=False, s=status: self._act_on_selection(s))
            self.list_buttons[status] = button
            list_actions.addWidget(button)
        list_actions.addStretch(1)
        self.empty_label = QLabel()

        self.detail = ErrorDetailView()
        self.detail.status_requested.connect(self.change_status)
        left = QWidget()
        left_layout = QVBoxLayout(left)
        left_layout.setContentsMargins(0, 0, 0, 0)
        left_layout.addLayout(filters)
        left_layout.addWidget(self.table, 1)
        left_layout.addWidget(self.empty_label)
        left_layout.addLayout(list_actions)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(left)
        self.splitter.addWidget(self.detail)
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setSizes([55, 45])  # scaled to the real width on first layout
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.splitter)

    # --- list --------------------------------------------------------------------------------

    def _query(self) -> dict[str, Any]:
        return {"status": self.status.currentData(), "sort": self.sort.currentData(),
                "search_term": self.search.text().strip()}

    def load(self) -> None:
        self.reload()

    def reload(self) -> None:
        project = self.tab.project
        self.generation += 1
        self.detail.clear()
        self.model.reset_page(ErrorPage([], None))
        self.empty_label.clear()
        if project is None:
            return
        generation = self.generation
        self.loading = True
        self.empty_label.setText("Loading errors…")

        async def load() -> None:
            try:
                page = await self.tab.api.list_errors(project["path_with_namespace"], **self._query())
            except ApiError as error:
                if generation == self.generation:
                    self.empty_label.setText(_list_failure(error))
                raise
            finally:
                if generation == self.generation:
                    self.loading = False
            if generation == self.generation:
                self.model.reset_page(page)
                self._show_empty_state()

        self.run(load(), "Loading errors")

    def _show_empty_state(self) -> None:
        self.empty_label.setText("" if self.model.rowCount() else "No errors match.")

    def _fetch_more(self, cursor: str) -> None:
        project, generation = self.tab.project, self.generation
        if project is None:
            return

        async def load_more() -> None:
            try:
                page = await self.tab.api.list_errors(project["path_with_namespace"], cursor=cursor, **self._query())
            except BaseException:
                if generation == self.generation:
                    self.model.more_failed()
                raise
            if generation == self.generation:
                self.model.append_page(page)

        self.run(load_more(), "Loading more errors")

    def auto_refresh(self) -> None:
        """Fresh counts for the rows on screen; the first page is re-read when only it is shown."""
        project, generation = self.tab.project, self.generation
        if project is None or self.loading or self.refreshing or not self.isVisible():
            return
        self.refreshing = True

        async def refresh() -> None:
            try:
                page = await self.tab.api.list_errors(project["path_with_namespace"], **self._query())
            finally:
                self.refreshing = False
            if generation != self.generation:
                return
            shown = {error.id for error in self.model.errors}
            if self.model.rowCount() <= len(page.errors) and shown != {error.id for error in page.errors}:
                selected = self.detail.error_id
                self.model.reset_page(page)
                self._show_empty_state()
                row = self.model.row_of(selected) if selected else -1
                if row >= 0:
                    self.table.selectRow(row)
                else:
                    self.detail.clear()
            else:
                self.model.refresh_rows(page)

        self.run(refresh(), "Refreshing errors")

    # --- selection and detail ----------------------------------------------------------------

    def _row_selected(self, current: QModelIndex, _previous: QModelIndex) -> None:
        error = self.model.error_at(current.row())
        for status, button in self.list_buttons.items():
            button.setEnabled(error is not None and error.status != status)
        if error is None:
            return
        if self.detail.error_id != error.id:
            self.show_detail(error)

    def show_detail(self, error: ErrorSummary) -> None:
        project, generation = self.tab.project, self.generation
        if project is None:
            return
        self.detail.show_summary(error)
        path = project["path_with_namespace"]

        async def load() -> None:
            detail, trace = await asyncio.gather(self.tab.api.details(path, error.id),
                                                 self.tab.api.stack_trace(path, error.id))
            if generation == self.generation and self.detail.error_id == error.id:
                self.detail.show_details(detail)
                self.detail.show_stack_trace(trace.exceptions, trace.message)

        self.run(load(), "Loading the error")

    def selected_error(self) -> ErrorSummary | None:
        return self.model.error_at(self.table.currentIndex().row())

    def _act_on_selection(self, status: str) -> None:
        error = self.selected_error()
        if error is not None:
            self.change_status(error.id, status)

    def change_status(self, error_id: str, status: str) -> None:
        project = self.tab.project
        if project is None:
            return

        async def update() -> None:
            await self.tab.api.update_status(project["path_with_namespace"], error_id, status)
            self.tab.context.status_message.emit(f"Error {error_id} is now {status}")
            if status != self.status.currentData():
                if self.detail.error_id == error_id:
                    self.detail.clear()
                self.model.remove_error(error_id)
                self._show_empty_state()
            elif self.detail.error_id == error_id:
                self.detail._show_status(status)

        self.run(update(), f"Marking the error {status}")


class SettingsPage(_Page):
    """Active, backend choice and, for an external Sentry, its address, token and project."""

    def __init__(self, tab: ErrorTrackingTab) -> None:
        super().__init__(tab)
        self.loaded: TrackingSettings | None = None
        self.active = QCheckBox("Active")
        self.integrated = QRadioButton("Integrated (this server receives the errors)")
        self.external = QRadioButton("External Sentry")
        self.backend = QButtonGroup(self)
        self.backend.addButton(self.integrated)
        self.backend.addButton(self.external)
        self.integrated.setChecked(True)
        self.api_host = QLineEdit()
        self.api_host.setPlaceholderText("https://sentry.example.com")
        self.token = QLineEdit()
        self.token.setEchoMode(QLineEdit.EchoMode.Password)
        self.token.setPlaceholderText("Auth token of the external system")
        self.connect_button = QPushButton("Connect")
        self.connect_button.clicked.connect(self.test_connection)
        self.connection_status = QLabel()
        self.connection_status.setWordWrap(True)
        self.external_project = QComboBox()
        self.external_project.setEnabled(False)
        self.external_project.setPlaceholderText("Connect to list the projects")
        self.scopes_label = QLabel("The token needs the scopes " + ", ".join(REQUIRED_SCOPES)
                                   + " (event:write lets you resolve errors).")
        self.scopes_label.setWordWrap(True)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(self.save)
        self.saved_label = QLabel()
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.origins_box = AllowedOriginsBox()

        self.external_box = QGroupBox("External Sentry")
        form = QFormLayout(self.external_box)
        token_row = QHBoxLayout()
        token_row.addWidget(self.token, 1)
        token_row.addWidget(self.connect_button)
        form.addRow("API URL", self.api_host)
        form.addRow("Auth token", token_row)
        form.addRow("", self.scopes_label)
        form.addRow("", self.connection_status)
        form.addRow("Project", self.external_project)
        backend_box = QGroupBox("Error tracking backend")
        backend_layout = QVBoxLayout(backend_box)
        backend_layout.addWidget(self.integrated)
        backend_layout.addWidget(self.external)
        buttons = QHBoxLayout()
        buttons.addWidget(self.save_button)
        buttons.addWidget(self.saved_label, 1)
        self.form = QWidget()
        form_layout = QVBoxLayout(self.form)
        form_layout.setContentsMargins(0, 0, 0, 0)
        form_layout.addWidget(self.active)
        form_layout.addWidget(backend_box)
        form_layout.addWidget(self.external_box)
        form_layout.addWidget(self.origins_box)
        form_layout.addLayout(buttons)
        layout = QVBoxLayout(self)
        layout.addWidget(self.notice)
        layout.addWidget(self.form)
        layout.addStretch(1)
        self.external.toggled.connect(self._backend_changed)
        self._backend_changed()

    def _backend_changed(self) -> None:
        self.external_box.setEnabled(self.external.isChecked())
        self.origins_box.setEnabled(self.integrated.isChecked())

    def load(self) -> None:
        project = self.tab.project
        if project is None:
            return

        def show(settings: TrackingSettings | None) -> None:
            if self.tab.project is not project:
                return
            self.notice.setText(MAINTAINER_ONLY if settings is None else "")
            self.notice.setVisible(settings is None)
            self.form.setEnabled(settings is not None)
            if settings is None:
                return
            self.loaded = settings
            self.active.setChecked(settings.active)
            (self.integrated if settings.integrated else self.external).setChecked(True)
            self.api_host.setText(settings.api_host)
            self.token.setText(MASKED_TOKEN if settings.api_url else "")
            self.external_project.clear()
            self.external_project.setEnabled(False)
            if settings.api_url and settings.slugs:
                organization, slug = settings.slugs
                self.external_project.addItem(settings.project_name or slug,
                                              ExternalProject(settings.project_name or slug, slug, organization,
                                                              organization))
            self.origins_box.show_settings(settings)
            self.connection_status.clear()
            self.saved_label.clear()

        self.run(_maintainer_only(self.tab.api.settings(project["id"])), "Loading error tracking settings", show)

    def test_connection(self) -> None:
        project = self.tab.project
        if project is None:
            return
        api_host, token = self.api_host.text().strip(), self.token.text().strip()
        self.connect_button.setEnabled(False)
        self.connection_status.setText("Connecting…")

        async def connect() -> None:
            try:
                projects = await self.tab.api.external_projects(project["path_with_namespace"], api_host=api_host,
                                                                token=token)
            except ApiError as error:
                reason = error.detail or error.message
                self.connection_status.setText(f"{CONNECTION_FAILED}\n{reason}")
                self.connection_status.setStyleSheet("color: #b3261e;")
                self.external_project.clear()
                self.external_project.setEnabled(False)
                return
            finally:
                self.connect_button.setEnabled(True)
            self.connection_status.setStyleSheet("color: #1e7b34;")
            self.connection_status.setText(f"Connected: {len(projects)} project{'s' if len(projects) != 1 else ''}"
                                           " found.")
            self.external_project.clear()
            for item in projects:
                self.external_project.addItem(item.label, item)
            self.external_project.setEnabled(bool(projects))
            # Keep the project already linked selected; otherwise propose the first one.
            linked = self.loaded.slugs if self.loaded is not None else None
            chosen = next((index for index, item in enumerate(projects)
                           if linked == (item.organization_slug, item.slug)), 0)
            self.external_project.setCurrentIndex(chosen if projects else -1)

        self.run(connect(), "Testing the connection")

    def save(self) -> None:
        project = self.tab.project
        if project is None:
            return
        integrated = self.integrated.isChecked()
        chosen: ExternalProject | None = self.external_project.currentData()
        api_url = None
        if not integrated and chosen is not None:
            api_url = api_url_for(self.api_host.text().strip(), chosen.organization_slug, chosen.slug)
        token = self.token.text().strip()
        token = None if not token or set(token) == {"*"} else token
        self.saved_label.clear()

        async def save() -> None:
            saved = await self.tab.api.save_settings(project["id"], active=self.active.isChecked(),
                                                     integrated=integrated, api_url=api_url, token=token,
                                                     project_name=chosen.name if chosen else None,
                                                     allowed_origins=self.origins_box.allowed_origins())
            self.loaded = saved
            self.origins_box.show_settings(saved)
            self.saved_label.setText("Saved.")
            self.tab.settings_saved.emit()

        self.run(save(), "Saving error tracking settings")


class ClientKeysPage(_Page):
    """Client keys (DSNs) of the integrated backend: reveal, copy, create, delete and rotate."""

    def __init__(self, tab: ErrorTrackingTab) -> None:
        super().__init__(tab)
        self.model = ClientKeyModel(self)
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().hide()
        self.table.horizontalHeader().setSectionResizeMode(ClientKeyModel.DSN, QHeaderView.ResizeMode.Stretch)
        self.reveal_button = QPushButton("Reveal DSN")
        self.copy_button = QPushButton("Copy DSN")
        self.create_button = QPushButton("Create key")
        self.delete_button = QPushButton("Delete key")
        self.rotate_button = QPushButton("Rotate…")
        self.reveal_button.clicked.connect(self.toggle_reveal)
        self.copy_button.clicked.connect(self.copy_dsn)
        self.create_button.clicked.connect(self.create_key)
        self.delete_button.clicked.connect(self.confirm_delete)
        self.rotate_button.clicked.connect(self.open_rotate_wizard)
        self.table.selectionModel().currentRowChanged.connect(lambda *_: self._update_buttons())
        buttons = QHBoxLayout()
        for button in (self.reveal_button, self.copy_button, self.create_button, self.delete_button,
                       self.rotate_button):
            buttons.addWidget(button)
        buttons.addStretch(1)
        hint = QLabel("A DSN is a secret: applications use it to send errors. If one leaks, rotate it.")
        hint.setWordWrap(True)
        self.notice = QLabel()
        self.notice.setWordWrap(True)
        self.notice.hide()
        self.allowed = True
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.notice)
        layout.addWidget(self.table, 1)
        layout.addLayout(buttons)
        self.confirm_box: QMessageBox | None = None
        self.wizard: RotateKeyWizard | None = None
        self._update_buttons()

    def selected_key(self) -> ClientKey | None:
        return self.model.key_at(self.table.currentIndex().row())

    def _update_buttons(self) -> None:
        key = self.selected_key()
        for button in (self.reveal_button, self.copy_button, self.delete_button):
            button.setEnabled(key is not None)
        self.reveal_button.setText("Hide DSN" if key is not None and self.model.is_revealed(key.id) else "Reveal DSN")
        self.rotate_button.setEnabled(bool(self.model.keys))
        self.create_button.setEnabled(self.tab.project is not None and self.allowed)

    def load(self) -> None:
        project = self.tab.project
        if project is None:
            return

        def show(keys: list[ClientKey] | None) -> None:
            if self.tab.project is project:
                self.allowed = keys is not None
                self.notice.setText("" if self.allowed else MAINTAINER_ONLY)
                self.notice.setVisible(not self.allowed)
                self.model.set_keys(keys or [])
                self._update_buttons()

        self.run(_maintainer_only(self.tab.api.client_keys(project["id"])), "Loading client keys", show)

    def toggle_reveal(self) -> None:
        key = self.selected_key()
        if key is not None:
            self.model.set_revealed(key.id, not self.model.is_revealed(key.id))
            self._update_buttons()

    def copy_dsn(self) -> None:
        key = self.selected_key()
        if key is not None:
            QGuiApplication.clipboard().setText(key.sentry_dsn)
            self.tab.context.status_message.emit(f"DSN of key {key.id} copied to the clipboard")

    def create_key(self) -> None:
        project = self.tab.project
        if project is None:
            return

        async def create() -> None:
            key = await self.tab.api.create_client_key(project["id"])
            self.tab.context.status_message.emit(f"Client key {key.id} created")
            self.load()

        self.run(create(), "Creating a client key")

    def confirm_delete(self) -> None:
        key = self.selected_key()
        if key is None:
            return
        box = QMessageBox(QMessageBox.Icon.Warning, "Delete client key",
                          f"Delete client key {key.id}? Applications using its DSN can no longer send errors.",
                          QMessageBox.StandardButton.Cancel, self)
        delete_button = box.addButton("Delete", QMessageBox.ButtonRole.DestructiveRole)
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.buttonClicked.connect(lambda button: self._delete_confirmed(key) if button is delete_button else None)
        self.confirm_box = box
        box.open()

    def _delete_confirmed(self, key: ClientKey) -> None:
        project = self.tab.project
        if project is None:
            return

        async def delete() -> None:
            await self.tab.api.delete_client_key(project["id"], key.id)
            self.tab.context.status_message.emit(f"Client key {key.id} deleted")
            self.load()

        self.run(delete(), "Deleting the client key")

    def open_rotate_wizard(self) -> RotateKeyWizard | None:
        project = self.tab.project
        if project is None:
            return None
        old = self.selected_key() or (self.model.keys[0] if self.model.keys else None)
        wizard = RotateKeyWizard(self.tab.context, self.tab.api, project, old_key=old, parent=self)
        wizard.finished.connect(lambda _result: self.load())
        self.wizard = wizard
        wizard.open()
        return wizard


class ErrorTrackingTab(QWidget):
    """The feature tab: pick a project, then its errors, settings and client keys."""

    settings_saved = Signal()

    def __init__(self, context: AppContext) -> None:
        super().__init__()
        self.context = context
        self.project: dict[str, Any] | None = None
        self._projects_generation = 0
        self.project_picker = QComboBox()
        self.project_picker.setMinimumWidth(320)
        self.project_picker.setPlaceholderText("Choose a project")
        self.project_picker.currentIndexChanged.connect(self._project_chosen)
        top = QHBoxLayout()
        top.addWidget(QLabel("Project"))
        top.addWidget(self.project_picker)
        top.addStretch(1)
        self.errors_page = ErrorsPage(self)
        self.settings_page = SettingsPage(self)
        self.keys_page = ClientKeysPage(self)
        self.retention_page = RetentionPage(self)
        self.pages = QTabWidget()
        self.pages.addTab(self.errors_page, "Errors")
        self.pages.addTab(self.settings_page, "Settings")
        self.pages.addTab(self.keys_page, "Client keys")
        self.pages.addTab(self.retention_page, "Storage")
        self._stale_pages: set[QWidget] = set()
        self.pages.currentChanged.connect(lambda _index: self._load_current_page())
        layout = QVBoxLayout(self)
        layout.addLayout(top)
        layout.addWidget(self.pages, 1)
        self.refresh_timer = QTimer(self)
        self.refresh_timer.setInterval(AUTO_REFRESH_MS)
        self.refresh_timer.timeout.connect(self.errors_page.auto_refresh)
        self.settings_saved.connect(self.errors_page.reload)
        context.connection_changed.connect(self.load_projects)
        self.load_projects()

    @property
    def api(self) -> ErrorTrackingApi:
        if self.context.client is None:
            raise RuntimeError("not connected")
        return ErrorTrackingApi(self.context.client)

    def load_projects(self) -> None:
        self._projects_generation += 1
        generation = self._projects_generation
        self.project_picker.blockSignals(True)
        self.project_picker.clear()
        self.project_picker.blockSignals(False)
        self._set_project(None)
        if self.context.client is None:
            return

        def show(projects: list[dict[str, Any]]) -> None:
            if generation != self._projects_generation:
                return
            self.project_picker.blockSignals(True)
            for project in projects:
                self.project_picker.addItem(project["path_with_namespace"], project)
            self.project_picker.setCurrentIndex(-1)
            self.project_picker.blockSignals(False)

        self.context.run(self.api.projects(), description="Loading projects", on_success=show)

    async def explaining_stale_project(self, work: Coroutine[Any, Any, T]) -> T:
        """Runs a page's work; a 404 because the chosen project is gone is explained and the list reloaded."""
        project = self.project
        try:
            return await work
        except NotFound:
            if project is None or not await self._project_gone(project):
                raise
            if project is self.project:
                self.load_projects()
            raise ProjectGone(project["path_with_namespace"]) from None

    async def _project_gone(self, project: dict[str, Any]) -> bool:
        try:
            await self.api.client.get_json(f"/projects/{project['id']}")
        except NotFound:
            return True
        return False

    def select_project(self, path: str) -> None:
        index = self.project_picker.findText(path)
        if index < 0:
            raise LookupError(path)
        self.project_picker.setCurrentIndex(index)

    def _project_chosen(self, index: int) -> None:
        self._set_project(self.project_picker.itemData(index) if index >= 0 else None)

    def _set_project(self, project: dict[str, Any] | None) -> None:
        self.project = project
        self.pages.setEnabled(project is not None)
        # Each page loads the chosen project's data when it is shown: choosing a project costs only
        # the requests of the page on screen.
        self._stale_pages = {self.errors_page, self.settings_page, self.keys_page, self.retention_page}
        if project is None:
            self.errors_page.reload()
            self.keys_page.model.set_keys([])
        else:
            self._load_current_page()

    def _load_current_page(self) -> None:
        page = self.pages.currentWidget()
        if self.project is not None and page in self._stale_pages:
            self._stale_pages.discard(page)
            page.load()

    # Auto-refresh only while the tab is on screen.
    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        self.refresh_timer.start()

    def hideEvent(self, event: QHideEvent) -> None:
        super().hideEvent(event)
        self.refresh_timer.stop()
