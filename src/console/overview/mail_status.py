"""The overview's Email box, for administrators of an Outpost server: whether outgoing mail (alerts) is
configured, and *Send test email* to their own address."""

from __future__ import annotations

from PySide6.QtWidgets import QGroupBox, QHBoxLayout, QLabel, QPushButton

from console.context import AppContext
from console.core.api.alerts import AlertsApi
from console.core.api.errors import readable
from console.operations import Op
from outpost_model.instance import MailSettings

NOT_CONFIGURED = ("Email is not configured: alert rules cannot send email until the server has "
                  "OUTPOST_SMTP_HOST (and its other OUTPOST_SMTP_* settings).")


# The server's OUTPOST_SMTP_SECURITY values, said in words.
SECURITY_WORDS = {"none": "unencrypted", "starttls": "encrypted with STARTTLS", "tls": "encrypted with TLS"}


def status_text(status: MailSettings) -> str:
    if not status.configured:
        return NOT_CONFIGURED
    security = SECURITY_WORDS.get(status.security or "", status.security or "")
    return f"Email is sent through {status.host}:{status.port} ({security}) from {status.sender}."


class MailStatusBox(QGroupBox):
    def __init__(self, context: AppContext) -> None:
        super().__init__("Email")
        self.context = context
        self.status_label = QLabel()
        self.status_label.setWordWrap(True)
        self.result = QLabel()
        self.test_button = QPushButton("Send test email")
        self.test_button.clicked.connect(self.send_test)
        layout = QHBoxLayout(self)
        layout.addWidget(self.status_label, 1)
        layout.addWidget(self.result)
        layout.addWidget(self.test_button)
        self.hide()
        context.connection_changed.connect(self.load)
        self.load()

    def _applies(self) -> bool:
        return self.context.client is not None and self.context.is_admin and self.context.server.is_outpost

    def load(self) -> None:
        self.result.clear()
        if not self._applies():
            self.hide()
            return
        client = self.context.client
        assert client is not None  # _applies checked it

        def show(status: MailSettings) -> None:
            self.status_label.setText(status_text(status))
            self.test_button.setEnabled(status.configured)
            self.show()

        Op(self.context, AlertsApi(client).mail_status(), description="Reading the mail settings").success(show).run()

    def send_test(self) -> None:
        client = self.context.client
        if client is None:
            return
        self.result.setText("Sending…")
        Op(self.context, AlertsApi(client).send_test_email(), description="Sending a test email").success(
            lambda to: self.result.setText(f"Sent to {to}.")).failure(
            lambda failure: self.result.setText(f"Not sent: {readable(failure)}")).run()
