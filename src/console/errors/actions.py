"""The error tracking tab's actions (Errors menu, the detail pane's buttons, the list's context menu)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.actions import TabAction

if TYPE_CHECKING:
    from console.errors.tab import ErrorTrackingTab


def _setting(status: str, name: str, text: str, shortcut: str) -> TabAction[ErrorTrackingTab]:
    """An action giving the shown error ``status``; enabled while an error with another status is shown."""
    return TabAction(name, "errors", text, shortcut, run=lambda tab: tab.errors_page.set_status(status),
                     enabled=lambda tab: tab.errors_page.can_set_status(status))


ACTIONS: tuple[TabAction[ErrorTrackingTab], ...] = (
    _setting("resolved", "resolve", "&Resolve selected error", "Ctrl+R"),
    _setting("ignored", "ignore", "&Ignore selected error", "Ctrl+I"),
    _setting("unresolved", "unresolve", "&Unresolve selected error", "Ctrl+U"),
)
# Which detail pane button carries out which action.
BUTTONS = {"resolve": "resolved", "ignore": "ignored", "unresolve": "unresolved"}
