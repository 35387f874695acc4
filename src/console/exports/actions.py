"""The vulnerability exports tab's actions (Exports menu and the tab's Save and Archive export buttons)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from console.core.actions import TabAction

if TYPE_CHECKING:
    from console.exports.views import ExportsTab


def open_archive_export(tab: ExportsTab) -> object:
    # Imported when chosen: the menus read this module before the tab (and its Qt modules) exist.
    from console.exports.archive_dialog import open_archive_dialog

    return open_archive_dialog(tab)


ACTIONS: tuple[TabAction[ExportsTab], ...] = (
    TabAction("save_export", "exports", "&Save export…", "Save", run=lambda tab: tab.save_as(),
              enabled=lambda tab: tab.can_save()),
    TabAction("archive_export", "exports", "&Archive export…", None, run=open_archive_export),
)
