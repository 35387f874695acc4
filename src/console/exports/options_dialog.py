"""The options of a new export: CSV or PDF, filters (severity, status, tool) and "Email me when it is ready".

The exports tab shows them as one line with an Options… button (:class:`ExportOptionsBar`); the dialog
offers what the connected server has (console.exports.options.offer_for) and says why it offers less.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QRadioButton,
    QVBoxLayout,
    QWidget,
)

from console.accessibility import give_accessible_names
from console.core.api.alerts import AlertsApi
from console.core.exports.options import (
    FORMATS,
    REPORT_TYPES,
    SEVERITIES,
    STATES,
    ExportOffer,
    ExportOptions,
    offer_for,
)
from console.fitting import ElidedLabel
from console.operations import Op

if TYPE_CHECKING:
    from console.context import AppContext
    from outpost_model.instance import MailSettings

NO_MAIL = ("This server cannot send email (it has no OUTPOST_SMTP_HOST setting), so no export is emailed; "
           "save it from the list when it is ready.")
MAIL_UNKNOWN = ("Whether the email arrives depends on the server's mail setup, which only an administrator can see; "
                "if none is set up, no email comes. The export can always be saved from the list when it is ready.")


class ExportOptionsDialog(QDialog):
    def __init__(self, options: ExportOptions, offer: ExportOffer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Export options")
        self.offer = offer
        self.format_buttons: dict[str, QRadioButton] = {}
        format_group = QButtonGroup(self)
        format_row = QHBoxLayout()
        for value, label in FORMATS:
            button = QRadioButton(label)
            button.setChecked(value == options.export_format)
            button.setEnabled(value == "csv" or offer.pdf)
            format_group.addButton(button)
            format_row.addWidget(button)
            self.format_buttons[value] = button
        format_row.addStretch(1)
        self.email = QCheckBox("Email me when it is ready")
        self.email.setChecked(options.send_email and offer.email)
        self.email.setEnabled(offer.email)
        self.format_buttons["pdf"].toggled.connect(self._format_changed)

        self.filter_boxes: dict[str, dict[str, QCheckBox]] = {}
        filters = QGroupBox("Only these vulnerabilities (nothing ticked in a row: all of them)")
        form = QFormLayout(filters)
        for key, label, choices, chosen in (
                ("severity", "Severity", [(value, value) for value in SEVERITIES], options.severity),
                ("state", "Status", [(value, value) for value in STATES], options.state),
                ("report_type", "Tool", list(REPORT_TYPES), options.report_type)):
            row = QHBoxLayout()
            boxes = {}
            for value, text in choices:
                box = QCheckBox(text)
                box.setChecked(value in chosen)
                boxes[value] = box
                row.addWidget(box)
            row.addStretch(1)
            self.filter_boxes[key] = boxes
            form.addRow(label, row)
        filters.setEnabled(offer.filters)

        self.note = QLabel(offer.note)
        self.note.setWordWrap(True)
        self.note.setVisible(bool(offer.note))
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        form_top = QFormLayout()
        form_top.addRow("Format", format_row)
        form_top.addRow("", self.email)
        layout.addLayout(form_top)
        layout.addWidget(filters)
        layout.addWidget(self.note)
        layout.addWidget(buttons)
        give_accessible_names(self)  # built after the tab was named

    def _format_changed(self, pdf: bool) -> None:
        # As GitLab defaults send_email: true for a PDF (it takes a while), false for a CSV.
        if self.offer.email:
            self.email.setChecked(pdf)

    def set_format(self, export_format: str) -> None:
        self.format_buttons[export_format].setChecked(True)

    def tick(self, key: str, *values: str) -> None:
        """Tick ``values`` of a filter row (severity, state or report_type), untick the others."""
        for value, box in self.filter_boxes[key].items():
            box.setChecked(value in values)

    def options(self) -> ExportOptions:
        def ticked(key: str) -> tuple[str, ...]:
            return tuple(value for value, box in self.filter_boxes[key].items() if box.isChecked())

        chosen = ExportOptions(export_format="pdf" if self.format_buttons["pdf"].isChecked() else "csv",
                               send_email=self.email.isChecked(), severity=ticked("severity"),
                               state=ticked("state"), report_type=ticked("report_type"))
        return self.offer.allow(chosen)


class ExportOptionsBar(QWidget):
    """The options of the next export as one line, and the Options… button that changes them."""

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.options = ExportOptions()
        self.dialog: ExportOptionsDialog | None = None
        self.mail_configured: bool | None = None  # None: not known (only administrators may ask the server)
        self.mail_hidden = False  # an Outpost whose mail setup this user may not see
        self.summary = ElidedLabel()  # PDF with many filters is a long line: cut, whole in its tooltip
        self.button = QPushButton("Options…")
        self.button.setToolTip("Format (CSV or PDF), filters and email of the next export")
        self.button.clicked.connect(self.open_dialog)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.summary, 1)
        layout.addWidget(self.button)
        context.connection_changed.connect(self._connection_changed)
        self._connection_changed()

    def offer(self) -> ExportOffer:
        offer = offer_for(self.context.server)
        if self.mail_configured is False and offer.email:
            return replace(offer, email=False, note=" ".join(filter(None, (offer.note, NO_MAIL))))
        if self.mail_hidden and offer.email:
            return replace(offer, note=" ".join(filter(None, (offer.note, MAIL_UNKNOWN))))
        return offer

    def _connection_changed(self) -> None:
        """An Outpost server without SMTP settings cannot mail anyone: the email is not offered there."""
        self.mail_configured = None
        client = self.context.client
        self.mail_hidden = client is not None and self.context.server.is_outpost and not self.context.is_admin
        self._show()
        if client is None or not self.context.is_admin or not self.context.server.is_outpost:
            return

        def known(status: MailSettings) -> None:
            if self.context.client is client:
                self.mail_configured = status.configured
                self._show()

        Op(self.context, AlertsApi(client).mail_status(), description="Checking the server's email",
           quiet=True).success(known).run()

    def request_body(self) -> dict:
        """The create request's parameters: the options the connected server offers."""
        return self.offer().allow(self.options).body()

    def open_dialog(self) -> ExportOptionsDialog:
        if self.dialog is not None:
            self.dialog.close()
        dialog = self.dialog = ExportOptionsDialog(self.options, self.offer(), self)
        dialog.accepted.connect(lambda: self.set_options(dialog.options()))
        dialog.open()
        return dialog

    def set_options(self, options: ExportOptions) -> None:
        self.options = options
        self._show()

    def _show(self) -> None:
        # What a server offers changes with the connection; the line shows what the next request asks for.
        self.summary.setText(self.offer().allow(self.options).summary())
