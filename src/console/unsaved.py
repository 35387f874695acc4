"""The one question asked before unsaved changes would be lost: Save, Discard or Cancel."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtWidgets import QMessageBox, QWidget


def ask_to_save(parent: QWidget, question: str, *, save: Callable[[], object], discard: Callable[[], object],
                earlier: QMessageBox | None = None) -> QMessageBox:
    """Opens the question (window-modal, not blocking) and calls ``save`` or ``discard`` as answered; Cancel
    calls neither, and the user stays where the changes are. ``earlier``: the caller's previous question,
    deleted now (callers keep the last one for tests)."""
    if earlier is not None:
        earlier.deleteLater()
    box = QMessageBox(QMessageBox.Icon.Warning, "Unsaved changes", question,
                      QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                      | QMessageBox.StandardButton.Cancel, parent)
    box.setDefaultButton(QMessageBox.StandardButton.Save)

    def answered(result: int) -> None:
        if result == QMessageBox.StandardButton.Save:
            save()
        elif result == QMessageBox.StandardButton.Discard:
            discard()

    box.finished.connect(answered)
    box.open()
    return box
