"""The CI/CD variables tab's actions (Variables menu and the tab's Add button)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.core.actions import TabAction

if TYPE_CHECKING:
    from console.variables.views import VariablesTab

ACTIONS: tuple[TabAction[VariablesTab], ...] = (
    TabAction("new_variable", "variables", "&New variable…", "New", run=lambda tab: tab.add_variable()),
)
