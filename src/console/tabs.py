"""The console's feature tabs, created when first shown.

Start-up builds only the first screen: each other tab's module is imported and its widget built the
first time the tab is opened (or asked for by a menu action), which keeps the console's start quick.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QVBoxLayout, QWidget

from console.context import AppContext


class TabFactory(NamedTuple):
    title: str
    name: str  # how menus and settings refer to the tab
    # (context, the directory of the exports history or None for the default) -> the feature widget
    create: Callable[[AppContext, Path | None], QWidget]


def _overview(context: AppContext, history_dir: Path | None) -> QWidget:
    from console.overview import OverviewTab

    return OverviewTab(context, history_dir=history_dir)


def _variables(context: AppContext, _history_dir: Path | None) -> QWidget:
    from console.variables.views import VariablesTab

    return VariablesTab(context)


def _exports(context: AppContext, history_dir: Path | None) -> QWidget:
    from console.exports import ExportsTab

    return ExportsTab(context, history_dir=history_dir)


def _errors(context: AppContext, _history_dir: Path | None) -> QWidget:
    from console.errors import ErrorTrackingTab

    return ErrorTrackingTab(context)


# The console's tabs, in order (Ctrl+1 opens the first). A feature adds one line here.
TAB_FACTORIES: list[TabFactory] = [
    TabFactory("Overview", "overview", _overview),
    TabFactory("CI/CD variables", "variables", _variables),
    TabFactory("Vulnerability exports", "exports", _exports),
    TabFactory("Error tracking", "errors", _errors),
]


class LazyTabs(QTabWidget):
    """A tab widget whose pages hold their feature widget once it has been created.

    Signals:
        tab_created(name, widget): a feature widget was just built.
    """

    tab_created = Signal(str, QWidget)

    def __init__(self, context: AppContext, *, history_dir: Path | None = None,
                 factories: list[TabFactory] | None = None) -> None:
        super().__init__()
        self.setDocumentMode(True)
        self.setAccessibleName("Feature tabs")
        self._context = context
        self._history_dir = history_dir
        self._factories = list(factories if factories is not None else TAB_FACTORIES)
        self._created: dict[str, QWidget] = {}
        for factory in self._factories:
            holder = QWidget()
            holder.setAccessibleName(factory.title)
            QVBoxLayout(holder).setContentsMargins(0, 0, 0, 0)
            self.addTab(holder, factory.title)
        self.currentChanged.connect(self._index_shown)

    @property
    def names(self) -> list[str]:
        return [factory.name for factory in self._factories]

    def created(self, name: str) -> QWidget | None:
        """The tab's feature widget if it exists, without creating it."""
        return self._created.get(name)

    def feature(self, name: str) -> QWidget:
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

    def current_feature(self) -> QWidget:
        return self.feature(self.current_name())

    def show_tab(self, name: str) -> QWidget:
        widget = self.feature(name)
        self.setCurrentIndex(self.names.index(name))
        return widget

    def _index_shown(self, index: int) -> None:
        if 0 <= index < len(self._factories):
            self.feature(self._factories[index].name)
