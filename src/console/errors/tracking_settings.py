"""The Settings page: whether error tracking is active, and the backend (integrated, or an external Sentry)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from console.core.api.error_tracking import (
    PROJECTS_SESSION_ONLY,
    REQUIRED_SCOPES,
    api_url_for,
    external_host,
    linked_slugs,
    project_label,
)
from console.core.api.errors import ApiError
from console.core.errors.access import MAINTAINER_ONLY
from console.core.errors.connection_advice import explain_test_failure
from console.core.errors.settings_checks import settings_problems
from console.core.operations import ShowsFailures
from console.core.store import Change
from console.errors.origins import AllowedOriginsBox
from console.fitting import scrolling
from console.looks import colours
from console.operations import Op
from console.page_host import project_path
from console.unsaved import ask_to_save
from outpost_model.error_tracking import ExternalProject, TrackingSettings

if TYPE_CHECKING:
    from console.core.api.error_tracking import ErrorTrackingApi
    from console.page_host import ProjectHost

MASKED_TOKEN = "*" * 12
UNSAVED = "Unsaved changes"


SAVING = "Saving error tracking settings"


class SettingsPage(QWidget):
    """Active, backend choice and, for an external Sentry, its address, token and project.

    Changes not yet saved are marked (the window's modified mark, "Unsaved changes" beside Save, which is
    enabled only then), and :meth:`may_leave` asks before they are lost.

    Signals:
        saved: the project's error tracking settings were saved (the error list may come from elsewhere now).
        modified_changed(bool): the form now holds (or no longer holds) changes not saved.
    """

    saved = Signal()
    modified_changed = Signal(bool)

    def __init__(self, host: ProjectHost[ErrorTrackingApi]) -> None:
        super().__init__()
        self.host = host
        self.repository = host.context.repositories.tracking_settings
        self.baseline: tuple[Any, ...] | None = None  # the form as loaded or saved; None: nothing loaded
        self.modified = False
        self.question: QMessageBox | None = None  # the last "save the changes?" asked (kept for tests)
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
        # Its colour is set for it by name: a bare "color:" would also colour its tooltip (the details).
        self.connection_status.setObjectName("connectionStatus")
        self.connection_status.setWordWrap(True)
        self.external_project = QComboBox()
        self.external_project.setEnabled(False)
        self.external_project.setPlaceholderText("Connect to list the projects")
        self.scopes_label = QLabel("The token needs the scopes " + ", ".join(REQUIRED_SCOPES)
                                   + " (event:write lets you resolve errors).")
        self.scopes_label.setWordWrap(True)
        self.save_button = QPushButton("Save")
        self.save_button.clicked.connect(lambda: self.save())
        self.saved_label = QLabel()
        self.problems = QLabel()  # what stops Save, as the user types
        self.problems.setObjectName("problems")
        self.problems.setWordWrap(True)
        self.problems.setStyleSheet(f"color: {colours()['error']};")
        self.problems.hide()
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
        form_layout.addWidget(self.problems)
        form_layout.addLayout(buttons)
        content = QWidget()
        content_layout = QVBoxLayout(content)
        content_layout.addWidget(self.notice)
        content_layout.addWidget(self.form)
        content_layout.addStretch(1)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scrolling(content, "Error tracking settings"))
        self.external.toggled.connect(self._backend_changed)
        self._backend_changed()
        for edit in (self.api_host, self.token, self.origins_box.origins):
            edit.textChanged.connect(self._edited)
        for button in (self.active, self.external):
            button.toggled.connect(self._edited)
        self.external_project.currentIndexChanged.connect(self._edited)
        self._edited()
        self.repository.subscribe_view(self, self._held_changed, lambda: project_path(self.host))

    # unsaved changes ----------------------------------------------------------------------------------
    def _state(self) -> tuple[Any, ...]:
        chosen = self.external_project.currentData()
        return (self.active.isChecked(), self.integrated.isChecked(), self.api_host.text().strip(),
                self.token.text().strip(), (chosen.organization_slug, chosen.slug) if chosen else None,
                self.origins_box.allowed_origins())

    def _edited(self) -> None:
        modified = self.baseline is not None and self._state() != self.baseline
        problems = settings_problems(external=self.external.isChecked(), api_host=self.api_host.text(),
                                     project_chosen=self.external_project.currentData() is not None,
                                     origins=self.origins_box.allowed_origins())
        self.problems.setText("\n".join(problems))
        self.problems.setVisible(modified and bool(problems))
        self.save_button.setEnabled(modified and not problems)
        if modified:
            self.saved_label.setText(UNSAVED)
        elif self.saved_label.text() == UNSAVED:
            self.saved_label.clear()
        if "[*]" in self.window().windowTitle():  # the main window's title shows the mark
            self.window().setWindowModified(modified)
        if modified != self.modified:
            self.modified = modified
            self.modified_changed.emit(modified)

    def _unchanged(self) -> None:
        """What the form shows now is what the server holds."""
        self.baseline = self._state()
        self._edited()

    def may_leave(self, then: Callable[[], object]) -> bool:
        """True when nothing would be lost. Otherwise asks Save, Discard or Cancel and returns False; ``then``
        is called once the changes are saved or discarded (Cancel: the user stays)."""
        if not self.modified:
            return True
        project = self.host.project

        def discard() -> None:
            if self.loaded is not None:
                self._show_settings(self.loaded)
            if isinstance(self.host, ShowsFailures):  # a failed save of what was discarded no longer stands
                self.host.clear_failure(SAVING)
            then()

        self.question = ask_to_save(self, "Save the changes to the error tracking settings of "
                                    f"{project.path_with_namespace if project else 'this project'}?",
                                    save=lambda: self.save(then), discard=discard, earlier=self.question)
        return False

    def _backend_changed(self) -> None:
        self.external_box.setEnabled(self.external.isChecked())
        self.origins_box.setEnabled(self.integrated.isChecked())

    @property
    def loaded(self) -> TrackingSettings | None:
        """The chosen project's settings as the tracking settings repository holds them (read or saved)."""
        project = self.host.project
        return None if project is None else self.repository.settings(project.path_with_namespace)

    def _held_changed(self, _change: Change) -> None:
        """Settings read or saved elsewhere show here, unless the form holds changes of the user's (never lost)."""
        held = self.loaded
        if held is not None and self.baseline is not None and not self.modified:
            self._show_settings(held)

    def load(self) -> None:
        project, choice = self.host.project, self.host.project_choice.stamp()
        if project is None:
            return

        def show(settings: TrackingSettings | None) -> None:
            if not choice.current:
                return
            self.notice.setText(MAINTAINER_ONLY if settings is None else "")
            self.notice.setVisible(settings is None)
            self.form.setEnabled(settings is not None)
            if settings is not None:
                self._show_settings(settings)

        self.baseline = None  # nothing to save until the project's settings are in
        self._edited()
        Op(self.host, self.repository.fetch(self.host.api, project.path_with_namespace, project.id),
           description="Loading error tracking settings").success(show).run()

    def _show_settings(self, settings: TrackingSettings) -> None:
        self.active.setChecked(settings.active)
        (self.integrated if settings.integrated else self.external).setChecked(True)
        self.api_host.setText(external_host(settings))
        self.token.setText(MASKED_TOKEN if settings.api_url else "")
        self.external_project.clear()
        self.external_project.setEnabled(False)
        slugs = linked_slugs(settings)
        if slugs is not None:
            organization, slug = slugs
            name = settings.project_name or slug
            self.external_project.addItem(name, ExternalProject(
                id=None, name=name, status=None, slug=slug, organization_name=organization, organization_id=None,
                organization_slug=organization))
        self.origins_box.show_settings(settings)
        self.connection_status.clear()
        self.connection_status.setToolTip("")
        self.connection_status.setStyleSheet("")
        self.saved_label.clear()
        if not self.host.context.server.web_routes_take_tokens:  # GitLab: the project list is session-only
            self.connect_button.setEnabled(False)
            self.connection_status.setText(PROJECTS_SESSION_ONLY)
        self._unchanged()

    def forget(self) -> None:
        """Another connection, or none: nothing of the last one's form stays on screen (its draft, masked token
        and connection test) nor marks the window modified; a project's settings are read afresh when chosen."""
        self.api_host.clear()
        self.token.clear()
        self.integrated.setChecked(True)
        self.external_project.clear()
        self.origins_box.origins.clear()
        self.connection_status.clear()
        self.connection_status.setToolTip("")
        self.connection_status.setStyleSheet("")
        self.saved_label.clear()
        self.baseline = None
        self._edited()

    def test_connection(self) -> None:
        project = self.host.project
        if project is None:
            return
        api_host, token = self.api_host.text().strip(), self.token.text().strip()
        self.connect_button.setEnabled(False)
        self.connection_status.setText("Connecting…")
        self.connection_status.setToolTip("")

        async def connect() -> None:
            try:
                projects = await self.host.api.external_projects(project.path_with_namespace, api_host=api_host,
                                                                token=token)
            except ApiError as error:
                advice = explain_test_failure(error, api_host)
                self.connection_status.setText(advice.text)
                self.connection_status.setToolTip(advice.details)  # the server's words, API and setting names
                self.connection_status.setStyleSheet(f"#connectionStatus {{ color: {colours()['error']}; }}")
                self.external_project.clear()
                self.external_project.setEnabled(False)
                self.host.context.say("The connection test failed: the settings say why")  # not ": done"
                return
            finally:
                self.connect_button.setEnabled(True)
            self.connection_status.setStyleSheet(f"#connectionStatus {{ color: {colours()['success']}; }}")
            self.connection_status.setText(f"Connected: {len(projects)} project{'s' if len(projects) != 1 else ''}"
                                           " found.")
            self.external_project.clear()
            for item in projects:
                self.external_project.addItem(project_label(item), item)
            self.external_project.setEnabled(bool(projects))
            # Keep the project already linked selected; otherwise propose the first one.
            linked = linked_slugs(self.loaded) if self.loaded is not None else None
            chosen = next((index for index, item in enumerate(projects)
                           if linked == (item.organization_slug, item.slug)), 0)
            self.external_project.setCurrentIndex(chosen if projects else -1)

        Op(self.host, connect(), description="Testing the connection").run()

    def save(self, then: Callable[[], object] | None = None) -> None:
        """Save the form; ``then`` is called once it is saved."""
        project = self.host.project
        if project is None or self.problems.text():  # the form says what to fix first
            return
        integrated = self.integrated.isChecked()
        chosen: ExternalProject | None = self.external_project.currentData()
        api_url = None
        if not integrated and chosen is not None:
            api_url = api_url_for(self.api_host.text().strip(), chosen.organization_slug or "", chosen.slug or "")
        typed = self.token.text().strip()
        token = None if not typed or set(typed) == {"*"} else typed  # the masked placeholder keeps the stored one
        self.saved_label.clear()

        async def save() -> None:
            saved = await self.repository.save(self.host.api, project.path_with_namespace, project.id,
                                               active=self.active.isChecked(), integrated=integrated,
                                               api_url=api_url, token=token,
                                               project_name=chosen.name if chosen else None,
                                               allowed_origins=self.origins_box.allowed_origins())
            self.origins_box.show_settings(saved)
            self._unchanged()
            self.saved_label.setText("Saved.")
            self.saved.emit()
            if then is not None:
                then()

        Op(self.host, save(), description=SAVING).run()
