"""The console's feature tabs, created when first shown.

Start-up builds only the first screen: each other tab's module is imported and its widget built the
first time the tab is opened (or asked for by a menu action), which keeps the console's start quick.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, TypeVar

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from console.context import AppContext

if TYPE_CHECKING:  # the tabs' modules are imported when each tab is built
    from console.core.actions import TabAction
    from console.feature import FeatureWidget

FeatureT = TypeVar("FeatureT", bound="FeatureWidget")


def _no_actions() -> Sequence[TabAction[Any]]:
    return ()


class TabFactory(NamedTuple):
    title: str
    name: str  # how menus and settings refer to the tab
    # (context, the directory of the exports history or None for the default) -> the feature widget
    create: Callable[[AppContext, Path | None], FeatureWidget]
    # The tab's declared actions, read by the menus without building the tab.
    actions: Callable[[], Sequence[TabAction[Any]]] = _no_actions


def _overview(context: AppContext, history_dir: Path | None) -> FeatureWidget:
    from console.overview.view import OverviewTab

    return OverviewTab(context, history_dir=history_dir)


def _variables(context: AppContext, _history_dir: Path | None) -> FeatureWidget:
    from console.variables.views import VariablesTab

    return VariablesTab(context)


def _variables_actions() -> Sequence[TabAction[Any]]:
    from console.variables.actions import ACTIONS

    return ACTIONS


def _exports(context: AppContext, history_dir: Path | None) -> FeatureWidget:
    from console.exports.views import ExportsTab

    return ExportsTab(context, history_dir=history_dir)


def _exports_actions() -> Sequence[TabAction[Any]]:
    from console.exports.actions import ACTIONS

    return ACTIONS


def _errors(context: AppContext, _history_dir: Path | None) -> FeatureWidget:
    from console.errors.tab import ErrorTrackingTab

    return ErrorTrackingTab(context)


def _errors_actions() -> Sequence[TabAction[Any]]:
    from console.errors.actions import ACTIONS

    return ACTIONS


# The console's tabs, in order (Ctrl+1 opens the first). A feature adds one line here.
TAB_FACTORIES: list[TabFactory] = [
    TabFactory("Overview", "overview", _overview),
    TabFactory("CI/CD variables", "variables", _variables, _variables_actions),
    TabFactory("Vulnerability exports", "exports", _exports, _exports_actions),
    TabFactory("Error tracking", "errors", _errors, _errors_actions),
]


class LazyTabs(QTabWidget):
    """A tab widget whose pages hold their feature widget once it has been created.

    Signals:
        tab_created(name, widget): a feature widget was just built.
    """

    tab_created = Signal(str, QWidget)  # (name, the FeatureWidget)

    def __init__(self, context: AppContext, *, history_dir: Path | None = None,
                 factories: list[TabFactory] | None = None) -> None:
        super().__init__()
        self.setDocumentMode(True)
        self.setAccessibleName("Feature tabs")
        self._context = context
        self._history_dir = history_dir
        self._factories = list(factories if factories is not None else TAB_FACTORIES)
        self._created: dict[str, FeatureWidget] = {}
        for factory in self._factories:
            holder = QWidget()
            holder.setAccessibleName(factory.title)
            QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
            self.addTab(holder, factory.title)
        self.currentChanged.connect(self._index_shown)

    @property
    def names(self) -> list[str]:
        return [factory.name for factory in self._factories]

    @property
    def factories(self) -> list[TabFactory]:
        return list(self._factories)

    def created(self, name: str) -> FeatureWidget | None:
        """The tab's feature widget if it exists, without creating it."""
        return self._created.get(name)

    def created_as(self, name: str, kind: type[FeatureT]) -> FeatureT | None:
        """The tab's widget, of the class it is known to be, if it exists."""
        widget = self._created.get(name)
        return widget if isinstance(widget, kind) else None

    def show_as(self, name: str, kind: type[FeatureT]) -> FeatureT:
        """Show the tab (building it if needed) and return its widget as the class it is known to be."""
        widget = self.show_tab(name)
        assert isinstance(widget, kind), f"the {name} tab is a {type(widget).__name__}"
        return widget

    def feature(self, name: str) -> FeatureWidget:
        """The tab's feature widget, created on first use."""
        widget = self._created.get(name)
        if widget is None:
            index = self.names.index(name)
            widget = self._created[name] = self._factories[index].create(self._context, self._history_dir)
            holder = self.widget(index)
            layout = holder.layout() if holder is not None else None
            assert layout is not None, "every page holds a layout from __init__"
            layout.addWidget(widget)
            self.tab_created.emit(name, widget)
        return widget

    def current_name(self) -> str:
        return self._factories[self.currentIndex()].name

    def current_feature(self) -> FeatureWidget:
        return self.feature(self.current_name())

    def show_tab(self, name: str) -> FeatureWidget:
        widget = self.feature(name)
        self.setCurrentIndex(self.names.index(name))
        return widget

    def may_close(self, then: Callable[[], object]) -> bool:
        """Whether every tab built may close as it is (see FeatureWidget.may_close); the first that may not asks,
        and is shown, so the question stands over what it is about."""
        for name, widget in self._created.items():
            if not widget.may_close(then):
                self.setCurrentIndex(self.names.index(name))
                return False
        return True

    def _index_shown(self, index: int) -> None:
        if 0 <= index < len(self._factories):
            self.feature(self._factories[index].name)
