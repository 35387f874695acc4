"""The CI/CD variables tab's actions (Variables menu and the tab's Add button)."""

from __future__ import annotations

from typing import Protocol

from console.core.actions import TabAction


class VariablesTabView(Protocol):
    """What these actions use of the variables tab (console.variables.views, which installs them)."""

    def add_variable(self) -> object: ...


ACTIONS: tuple[TabAction[VariablesTabView], ...] = (
    TabAction("new_variable", "variables", "&New variable…", "New", run=lambda tab: tab.add_variable()),
)
