"""The vulnerability exports tab's actions (Exports menu and the tab's Save and Archive export buttons)."""

from __future__ import annotations

from typing import Protocol

from console.core.actions import TabAction


class ExportsTabView(Protocol):
    """What these actions use of the exports tab (console.exports.views, which installs them)."""

    def save_as(self) -> object: ...

    def can_save(self) -> bool: ...

    def open_archive_export(self) -> object: ...


ACTIONS: tuple[TabAction[ExportsTabView], ...] = (
    TabAction("save_export", "exports", "&Save export…", "Save", run=lambda tab: tab.save_as(),
              enabled=lambda tab: tab.can_save()),
    TabAction("archive_export", "exports", "&Archive export…", None, run=lambda tab: tab.open_archive_export()),
)
