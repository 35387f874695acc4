"""The Settings page's browser apps box: which page origins may report, and what the server refused.

Outpost's extension of the settings API; hidden against a server without it (a GitLab).
"""

from __future__ import annotations

import re

from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QLineEdit

from console.core.timestamps import short_time
from outpost_model import UnsetType
from outpost_model.error_tracking import RejectedOrigins, TrackingSettings

ANY_ORIGIN_HINT = "Any origin. To restrict: https://shop.example.com, *.example.com, localhost:3000"


def rejected_text(rejected: RejectedOrigins | UnsetType) -> str:
    if isinstance(rejected, UnsetType) or rejected.count == 0:
        return "No browser report has been refused."
    plural = "s" if rejected.count != 1 else ""
    return (f"{rejected.count} browser report{plural} refused because the page's origin is not allowed; "
            f"the last from {rejected.last_origin} ({short_time(rejected.last_at)}). "
            "Add that origin above to accept its reports.")


class AllowedOriginsBox(QGroupBox):
    def __init__(self) -> None:
        super().__init__("Browser apps")
        self.origins = QLineEdit()
        self.origins.setPlaceholderText(ANY_ORIGIN_HINT)
        self.rejected = QLabel()
        self.rejected.setWordWrap(True)
        layout = QFormLayout(self)
        layout.addRow("Allowed origins", self.origins)
        layout.addRow("", self.rejected)
        self.hide()

    def show_settings(self, settings: TrackingSettings) -> None:
        origins = settings.allowed_origins
        supported = not isinstance(origins, UnsetType)  # absent on a server without the extension (GitLab)
        self.setVisible(supported)
        self.origins.setText("" if isinstance(origins, UnsetType) else ", ".join(origins))
        self.rejected.setText(rejected_text(settings.rejected_origins) if supported else "")

    def allowed_origins(self) -> list[str] | None:
        """What to save; None when the server does not have the setting."""
        if self.isHidden():
            return None
        return [part for part in re.split(r"[\s,]+", self.origins.text()) if part]
