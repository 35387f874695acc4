"""The inline message bar: a failure stays where the user acted until dismissed or tried again.

As KDE's KMessageWidget does, the bar sits at the top of a tab (or the window, for what belongs to no tab)
and holds the failures of the actions started there, one line each, with a Dismiss button. Doing the
action again takes its old failure away; a background refresh that works does not.
"""

from __future__ import annotations

from PySide6 import QtCore  # its Qt namespace only at call time: made on first touch, costly for a first frame
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

OBJECT_NAME = "messageBar"  # styled by console.looks.STYLE


class MessageBar(QFrame):
    """Failures by action ("Saving the alert rule"), newest last; hidden while there are none."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName(OBJECT_NAME)
        self.setAccessibleName("Failures")
        self.failures: dict[str, str] = {}  # action -> what went wrong
        self.label = QLabel()
        self.label.setWordWrap(True)
        self.dismiss_button = QPushButton("Dismiss")
        self.dismiss_button.setToolTip("Hide these messages (View > Messages… keeps them)")
        self.dismiss_button.clicked.connect(self.dismiss)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(8, 4, 4, 4)
        layout.addWidget(self.label, 1)
        layout.addWidget(self.dismiss_button)
        self.hide()

    def show_failure(self, action: str, text: str) -> None:
        # Set here, not when built: the window's first frame leaves the Qt namespace alone (main_window).

        self.label.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.failures.pop(action, None)
        self.failures[action] = text
        self._render()

    def clear_failure(self, action: str) -> None:
        """The action is being tried again: its earlier failure no longer stands."""
        if self.failures.pop(action, None) is not None:
            self._render()

    def dismiss(self) -> None:
        self.failures.clear()
        self._render()

    def _render(self) -> None:
        self.label.setText("\n".join(self.failures.values()))
        self.setVisible(bool(self.failures))
