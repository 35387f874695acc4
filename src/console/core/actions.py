"""What an action is, declared without Qt: its name, menu, text, shortcut, handler and when it is enabled.

The window declares its own actions (console.window_actions) and each tab declares its actions in its
package's ``actions`` module (read when the menus are filled, before the tab itself is built);
console.menus only renders the declarations, and a tab's buttons and context menus use the very same
actions (console.feature), so an action is enabled in the menu exactly when its button is.

Shortcuts are key sequences ("Ctrl+R") or the names of Qt's standard keys ("New", "Delete", "Save"),
which differ between platforms.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

TabT = TypeVar("TabT")

MENUS = (("file", "&File"), ("edit", "&Edit"), ("view", "&View"), ("variables", "V&ariables"),
         ("exports", "E&xports"), ("errors", "E&rrors"), ("help", "&Help"))
# Qt's standard keys that the console uses, by the name an action declares.
STANDARD_KEYS = ("New", "Delete", "Save", "Find", "Copy", "Refresh", "HelpContents")


@dataclass(frozen=True)
class WindowAction:
    """An action of the window itself. ``enabled`` None: always enabled."""

    name: str
    menu: str
    text: str
    shortcut: str | None
    run: Callable[[], object]
    enabled: Callable[[], bool] | None = None
    separator: bool = False  # a separator above it


@dataclass(frozen=True)
class TabAction(Generic[TabT]):
    """An action of one tab, carried out by the tab; the menus show the tab when it is chosen there.

    ``enabled`` says, of the built tab, whether the action applies now (a selection, its state); None means
    whenever the console is connected, also before the tab is built (choosing it builds the tab).
    """

    name: str
    menu: str
    text: str
    shortcut: str | None
    run: Callable[[TabT], object]
    enabled: Callable[[TabT], bool] | None = None


def tooltip(text: str, shortcut_text: str) -> str:
    """An action's tooltip: its text, and its shortcut as the platform writes it."""
    plain = text.replace("&", "")
    return f"{plain} ({shortcut_text})" if shortcut_text else plain
