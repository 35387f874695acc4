"""The menu bar and keyboard shortcuts of the main window, rendered from what is declared.

The window declares its actions (console.window_actions) and each tab its own (console.core.actions); this
module only makes the menu entries. A tab's action is shown by a stand-in until the tab is built (choosing
it builds the tab); then the tab's own QAction, the one its buttons and context menus use, takes the
stand-in's place. Every shortcut is shown in the menu and in the action's tooltip.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenuBar

from console.core.actions import TabAction, WindowAction
from console.feature import FeatureWidget, make_action

if TYPE_CHECKING:
    from PySide6.QtWidgets import QMenu, QWidget

    from console.context import AppContext
    from console.tabs import LazyTabs


class MenuWindow(Protocol):
    """What the menus use of the main window (console.main_window, which makes them)."""

    context: AppContext
    tabs: LazyTabs
    menus: dict[str, QMenu]

    def window(self) -> QWidget: ...

    def menuBar(self) -> QMenuBar: ...

    def addAction(self, action: QAction, /) -> None: ...

    def removeAction(self, action: QAction, /) -> None: ...


class WindowActions(QObject):
    """Fills the menus of ``window`` (the window shows them, empty, from its first frame) with ``declared``
    and with the actions each tab declares; keeps them enabled as declared."""

    def __init__(self, window: MenuWindow, declared: Sequence[WindowAction]) -> None:
        super().__init__(window.window())
        self.window = window
        self.by_name: dict[str, QAction] = {}
        self._window_actions = list(declared)
        self._stand_ins: dict[str, tuple[str, TabAction[Any]]] = {}  # action -> (tab, declaration)
        bar: QMenuBar = window.menuBar()
        bar.setAccessibleName("Menu bar")
        by_menu: dict[str, list[WindowAction | tuple[str, TabAction[Any]]]] = {name: [] for name in window.menus}
        for spec in declared:
            by_menu[spec.menu].append(spec)
        for factory in window.tabs.factories:
            for tab_spec in factory.actions():
                by_menu[tab_spec.menu].append((factory.name, tab_spec))
        # Menus in the window's order; within one, the window's actions first, then the tabs'.
        for menu_name, entries in by_menu.items():
            for entry in entries:
                if isinstance(entry, WindowAction):
                    self._add_window_action(menu_name, entry)
                else:
                    self._add_stand_in(menu_name, *entry)
        window.context.connection_changed.connect(self.update_enabled)
        window.tabs.currentChanged.connect(lambda _index: self.update_enabled())
        self.update_enabled()

    def _place(self, menu_name: str, name: str, action: QAction, separator: bool = False) -> None:
        menu = self.window.menus[menu_name]
        if separator:
            menu.addSeparator()
        menu.addAction(action)
        self.window.addAction(action)  # shortcuts work while the menu bar is hidden too
        self.by_name[name] = action

    def _add_window_action(self, menu_name: str, spec: WindowAction) -> None:
        action = make_action(spec.text, spec.shortcut, self.window.window())
        action.triggered.connect(lambda _checked=False: spec.run())
        self._place(menu_name, spec.name, action, spec.separator)

    def _add_stand_in(self, menu_name: str, tab: str, spec: TabAction[Any]) -> None:
        action = make_action(spec.text, spec.shortcut, self.window.window())
        action.triggered.connect(lambda _checked=False: self._build_and_trigger(tab, spec.name))
        self._place(menu_name, spec.name, action)
        self._stand_ins[spec.name] = (tab, spec)

    def _build_and_trigger(self, tab: str, name: str) -> None:
        feature = self.window.tabs.show_tab(tab)  # building it puts its own action in the stand-in's place
        action = feature.tab_actions()[name]
        if action.isEnabled():
            action.trigger()

    def tab_created(self, name: str, feature: FeatureWidget) -> None:
        """Called by the window for each tab it builds: the tab's actions replace their stand-ins."""
        for action_name, action in feature.tab_actions().items():
            stand_in = self.by_name[action_name]
            self._stand_ins.pop(action_name, None)
            for menu in self.window.menus.values():
                if stand_in in menu.actions():
                    menu.insertAction(stand_in, action)
                    menu.removeAction(stand_in)
            self.window.removeAction(stand_in)
            stand_in.deleteLater()
            self.window.addAction(action)
            # Chosen in a menu or by its shortcut while another tab is shown, it shows its tab.
            action.triggered.connect(lambda _checked=False, tab=name: self.window.tabs.show_tab(tab))
            self.by_name[action_name] = action
        feature.actions_changed.connect(self.update_enabled)

    def update_enabled(self) -> None:
        connected = self.window.context.is_connected
        for spec in self._window_actions:
            self.by_name[spec.name].setEnabled(spec.enabled is None or spec.enabled())
        for name, (_tab, tab_spec) in self._stand_ins.items():
            # Before its tab is built, an action that depends on the tab's state is not available yet.
            self.by_name[name].setEnabled(connected and tab_spec.enabled is None)
