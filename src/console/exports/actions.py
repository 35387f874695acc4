"""The vulnerability exports tab's actions (Exports menu and the tab's Save button)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.actions import TabAction

if TYPE_CHECKING:
    from console.exports.views import ExportsTab

ACTIONS: tuple[TabAction[ExportsTab], ...] = (
    TabAction("save_export", "exports", "&Save export…", "Save", run=lambda tab: tab.save_as(),
              enabled=lambda tab: tab.can_save()),
)
