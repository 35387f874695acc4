"""The connection dialog: pick or create a profile, test it, connect."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from console.connection.profiles import Profile, ProfileStore
from console.context import AppContext
from console.core.api.errors import ApiError
from console.core.connection.check import check_connection, describe_user
from console.core.connection.credentials import CredentialStore
from console.core.operations import Token
from console.operations import Op

NEW_PROFILE = "New profile…"


class ConnectionDialog(QDialog):
    """Opened with ``open()`` (never ``exec()``, which would block the asyncio loop)."""

    def __init__(
        self,
        context: AppContext,
        profiles: ProfileStore,
        credentials: CredentialStore,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Connect to a server")
        self.setMinimumWidth(520)
        self._context = context
        self._token_reads = Token()
        self._profiles = profiles
        self._credentials = credentials

        self.profile_box = QComboBox()
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Remove this profile and its saved token")
        self.name_edit = QLineEdit()
        self.name_edit.setPlaceholderText("e.g. Production")
        self.url_edit = QLineEdit()
        self.url_edit.setPlaceholderText("https://gitlab.example.com")
        self.token_edit = QLineEdit()
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText("personal access token with the api scope")
        self.remember_box = QCheckBox("Remember the token in the system keyring")
        self.keyring_note = QLabel()
        self.keyring_note.setWordWrap(True)
        self.keyring_note.setObjectName("warning")
        self.test_button = QPushButton("Test connection")
        self.result_label = QLabel()
        self.result_label.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.connect_button = self.buttons.addButton("Connect", QDialogButtonBox.ButtonRole.AcceptRole)

        form = QFormLayout()
        profile_row = QHBoxLayout()
        profile_row.addWidget(self.profile_box, 1)
        profile_row.addWidget(self.forget_button)
        form.addRow("Profile", profile_row)
        form.addRow("Name", self.name_edit)
        form.addRow("Server URL", self.url_edit)
        form.addRow("Access token", self.token_edit)
        form.addRow("", self.remember_box)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.keyring_note)
        layout.addWidget(self.test_button)
        layout.addWidget(self.result_label)
        layout.addWidget(self.buttons)

        self.profile_box.currentTextChanged.connect(self._on_profile_chosen)
        self.test_button.clicked.connect(self._on_test_clicked)
        self.forget_button.clicked.connect(self._on_forget_clicked)
        self.buttons.accepted.connect(self._on_connect_clicked)
        self.buttons.rejected.connect(self.reject)
        self._fill_profiles()
        self._show_keyring_state()
        if credentials.backend is None:  # a cold start: the window's look at the keyring has not answered yet
            Op(context, credentials.probe(), description="Checking the system keyring", quiet=True).success(
                lambda _: self._show_keyring_state()).run()

    def _fill_profiles(self) -> None:
        self.profile_box.blockSignals(True)
        self.profile_box.clear()
        self.profile_box.addItem(NEW_PROFILE)
        for profile in self._profiles.load():
            self.profile_box.addItem(profile.name)
        self.profile_box.blockSignals(False)
        last = self._profiles.last_used
        self.profile_box.setCurrentIndex(max(0, self.profile_box.findText(last)) if last else 0)
        self._on_profile_chosen(self.profile_box.currentText())

    def _show_keyring_state(self) -> None:
        warning = self._credentials.warning
        self.keyring_note.setText(warning or "")
        self.keyring_note.setVisible(warning is not None)
        known = self._credentials.backend is not None  # offered only once a keyring is known to work
        self.remember_box.setEnabled(known and warning is None)
        self.remember_box.setChecked(known and warning is None)

    def _on_profile_chosen(self, name: str) -> None:
        self.result_label.clear()
        self.token_edit.clear()
        profile = next((p for p in self._profiles.load() if p.name == name), None)
        self.forget_button.setEnabled(profile is not None)
        self.name_edit.setText(profile.name if profile else "")
        self.url_edit.setText(profile.base_url if profile else "")
        if profile is not None:
            # The token of a profile chosen before this one is stale.
            Op(self._context, self._credentials.load_token(profile.base_url, profile.name),
               description="Reading the saved token").success(self._on_token_loaded).stale_when(
                self._token_reads.advance()).run()

    def _on_token_loaded(self, token: str | None) -> None:
        if token and not self.token_edit.text():
            self.token_edit.setText(token)
        self._show_keyring_state()

    def _on_forget_clicked(self) -> None:
        Op(self._context, self.forget_profile(), description="Forgetting the profile").run()

    async def forget_profile(self) -> None:
        """Remove the selected profile and its token from the keyring."""
        profile = next((p for p in self._profiles.load() if p.name == self.profile_box.currentText()), None)
        if profile is None:
            return
        await self._credentials.delete_token(profile.base_url, profile.name)
        self._profiles.delete(profile.name)
        self._fill_profiles()
        self._context.say(f"Forgot the profile {profile.name}")

    def _on_test_clicked(self) -> None:
        self.result_label.setText("Testing…")
        Op(self._context, self.test_connection(), description="Testing the connection").run()

    def _on_connect_clicked(self) -> None:
        Op(self._context, self.connect_profile(), description="Connecting").run()

    def _set_controls_enabled(self, enabled: bool) -> None:
        for widget in (self.test_button, self.connect_button):
            widget.setEnabled(enabled)

    async def test_connection(self) -> None:
        self._set_controls_enabled(False)
        try:
            report = await check_connection(self.url_edit.text(), self.token_edit.text())
        finally:
            self._set_controls_enabled(True)
        self.result_label.setText(("✔ " if report.ok else "✘ ") + report.message)
        # The outcome, not "Testing the connection: done", which read as success after a failure.
        self._context.say("The connection works" if report.ok else "The connection test failed: see the dialog")

    async def connect_profile(self) -> None:
        """Connect; on success remember the profile (and token) and close the dialog."""
        base_url, token = self.url_edit.text().strip(), self.token_edit.text().strip()
        name = self.name_edit.text().strip() or base_url
        self._set_controls_enabled(False)
        try:
            user = await self._context.connect_to(base_url, token)
        except ApiError as exc:
            self.result_label.setText("✘ " + exc.message)
            return
        finally:
            self._set_controls_enabled(True)
        assert self._context.client is not None
        profile = Profile(name, self._context.client.base_url)
        self._profiles.save(profile)
        self._profiles.last_used = profile.name
        if self.remember_box.isChecked() or not self._credentials.is_persistent:
            await self._credentials.save_token(profile.base_url, profile.name, token)
        else:
            await self._credentials.delete_token(profile.base_url, profile.name)
        self._show_keyring_state()
        self.result_label.setText("✔ Signed in as " + describe_user(user))
        self.accept()
