"""The base of every feature tab's widget: what the window asks of a tab, and the tab's own actions.

A tab declares its actions (console.core.actions.TabAction, in its package's ``actions`` module); the tab
makes one QAction of each, which its buttons and context menus use and the window's menus show, so an
action is enabled in the same way wherever it appears. The window also asks every tab the same few
things: refresh, where its find field is, delete or copy the selection.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QAbstractButton, QWidget

from console.context import AppContext
from console.core.actions import STANDARD_KEYS, TabAction, tooltip


def key_sequence(shortcut: str) -> QKeySequence:
    if shortcut in STANDARD_KEYS:
        return QKeySequence(QKeySequence.StandardKey[shortcut])
    return QKeySequence(shortcut)


def make_action(text: str, shortcut: str | None, parent: QWidget) -> QAction:
    action = QAction(text, parent)
    if shortcut is not None:
        action.setShortcut(key_sequence(shortcut))
    action.setToolTip(tooltip(text, action.shortcut().toString(QKeySequence.SequenceFormat.NativeText)))
    return action


class FeatureWidget(QWidget):
    """A feature tab. Subclasses call :meth:`install_actions` once their widgets exist.

    Signals:
        actions_changed: what the tab's actions (and find, delete, copy) would act on has changed.
    """

    actions_changed = Signal()

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._context = context
        self._declared: list[tuple[TabAction[Any], QAction]] = []
        context.connection_changed.connect(self.update_actions)

    @property
    def context(self) -> AppContext:
        return self._context

    # the tab's actions ----------------------------------------------------------------------------
    def install_actions(self, declared: Sequence[TabAction[Any]]) -> None:
        for spec in declared:
            action = make_action(spec.text, spec.shortcut, self)
            action.triggered.connect(lambda _checked=False, spec=spec: spec.run(self))
            self._declared.append((spec, action))
        self.update_actions()

    def tab_actions(self) -> dict[str, QAction]:
        """The tab's QActions by name (the window shows these same objects in its menus)."""
        return {spec.name: action for spec, action in self._declared}

    def bind_button(self, button: QAbstractButton, name: str) -> None:
        """``button`` carries out the action and is enabled exactly when the action is."""
        action = self.tab_actions()[name]
        button.clicked.connect(lambda _checked=False: action.trigger())
        action.changed.connect(lambda: button.setEnabled(action.isEnabled()))
        button.setEnabled(action.isEnabled())

    def update_actions(self) -> None:
        """Enable each action as its declaration says; call whenever a selection or a state changes."""
        connected = self.context.is_connected
        for spec, action in self._declared:
            action.setEnabled(connected and (spec.enabled is None or bool(spec.enabled(self))))
        self.actions_changed.emit()

    # what the window asks of every tab -----------------------------------------------------------
    def refresh(self) -> object:
        """Read the tab's data again (View > Refresh)."""
        return None

    def find_field(self) -> QWidget | None:
        """Where Edit > Find puts the focus: the tab's filter or search field."""
        return None

    def can_delete_selection(self) -> bool:
        return False

    def delete_selection(self) -> object:
        """Edit > Delete: delete (or forget) the selected item, asking first where that cannot be undone."""
        return None

    def may_close(self, then: Callable[[], object]) -> bool:
        """Whether the window may close without losing what the user did here. A tab holding unsaved changes
        asks (Save, Discard, Cancel), returns False and calls ``then`` once they are saved or discarded."""
        return True

    def copy_selection(self, focus: QWidget | None) -> bool:
        """Edit > Copy where the tab knows better than the generic copy (a variable's value); True if done."""
        return False
