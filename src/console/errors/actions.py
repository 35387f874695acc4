"""The error tracking tab's actions (Errors menu, the detail pane's buttons, the list's context menu)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from console.core.actions import TabAction

if TYPE_CHECKING:
    from console.errors.error_list import ErrorsPage
    from console.errors.triage import Triage


class ErrorsTabView(Protocol):
    """What these actions use of the error tracking tab (console.errors.tab, which installs them)."""

    errors_page: ErrorsPage


def _setting(status: str, name: str, text: str, shortcut: str) -> TabAction[ErrorsTabView]:
    """An action giving the shown error ``status``; enabled while an error with another status is shown."""
    return TabAction(name, "errors", text, shortcut, run=lambda tab: tab.errors_page.triage.set_shown_status(status),
                     enabled=lambda tab: tab.errors_page.triage.can_set_shown_status(status))


def _toggle_mine(tab: ErrorsTabView) -> None:
    """"Assigned to me" on, or off again (the filter row's button does the same)."""
    filters = tab.errors_page.filters
    filters.show_mine(not filters.mine.isChecked())


def _mine_offered(tab: ErrorsTabView) -> bool:
    return tab.errors_page.filters.mine.isEnabled()


def _triage(name: str, text: str, shortcut: str, run: Callable[[Triage], object], least_selected: int = 1
            ) -> TabAction[ErrorsTabView]:
    """An action on every selected error at once (console.errors.triage); enabled where the user may triage."""
    return TabAction(name, "errors", text, shortcut, run=lambda tab: run(tab.errors_page.triage),
                     enabled=lambda tab: tab.errors_page.triage.can(least_selected))


ACTIONS: tuple[TabAction[ErrorsTabView], ...] = (
    _setting("resolved", "resolve", "&Resolve selected error", "Ctrl+R"),
    _setting("ignored", "ignore", "&Ignore selected error", "Ctrl+I"),
    _setting("unresolved", "unresolve", "&Unresolve selected error", "Ctrl+U"),
    _triage("resolve_all", "Resolve all selected errors", "Ctrl+Shift+R", lambda triage: triage.resolve()),
    _triage("ignore_until", "Ignore selected errors &until…", "Ctrl+Shift+I", lambda triage: triage.ignore()),
    _triage("assign", "&Assign selected errors…", "Ctrl+Shift+A", lambda triage: triage.assign()),
    _triage("merge", "&Merge selected errors", "Ctrl+Shift+M", lambda triage: triage.merge(), least_selected=2),
    TabAction("assigned_to_me", "errors", "Show errors assigned to &me", "Ctrl+Shift+E", run=_toggle_mine,
              enabled=_mine_offered),
)
# The triage actions the list's context menu offers beside Resolve, Ignore and Unresolve.
TRIAGE = ("resolve_all", "ignore_until", "assign", "merge")
# Which detail pane button carries out which action.
BUTTONS = {"resolve": "resolved", "ignore": "ignored", "unresolve": "unresolved"}
