"""Grab the README's screenshots offscreen from the running console with demo data, at the window's
default size: the overview (console.png), the error tracking tab with an error's detail, the variables
tab, and the edit dialog showing why a value cannot be masked.

    .venv/bin/python scripts/screenshots.py [OUTPUT_DIR]   (default: resources/screenshots)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from screenshot_support import local_console, run_grab, settle  # noqa: E402

from console.errors.tab import ErrorTrackingTab  # noqa: E402
from console.overview.view import OverviewTab  # noqa: E402
from console.variables.views import VariablesTab  # noqa: E402


async def grab(output: Path, workdir: Path) -> None:
    async with local_console(workdir) as window:  # at its default size, as a new user sees it
        overview = window.tabs.show_tab("overview")
        assert isinstance(overview, OverviewTab)
        await settle(lambda: overview.overview is not None)
        await asyncio.sleep(0.3)
        window.grab().save(str(output / "console.png"))

        window.open_target(("errors", "acme/webshop"))
        errors = window.tabs.current_feature()
        assert isinstance(errors, ErrorTrackingTab)
        page = errors.errors_page
        await settle(lambda: page.model.rowCount() > 0)
        page.table.selectRow(0)
        await settle(lambda: page.shown_error is not None)  # the details and the stack trace have arrived
        await asyncio.sleep(0.3)
        window.grab().save(str(output / "errors-list-detail.png"))
        window.tabs.show_tab("overview")

        tab = window.tabs.show_tab("variables")
        assert isinstance(tab, VariablesTab)
        await settle(lambda: tab.model.rowCount() > 0 and tab.limit is not None)
        tab.select_key("SONAR_TOKEN")
        tab.toggle_reveal()
        await asyncio.sleep(0.3)
        window.grab().save(str(output / "variables.png"))

        tab.select_key("DOCKER_AUTH_TOKEN")
        dialog = tab.edit_selected()
        assert dialog is not None  # a variable is selected
        dialog.value_edit.setPlainText("dckr pat $REGISTRY_SUFFIX")
        await asyncio.sleep(0.3)
        dialog.grab().save(str(output / "variables-edit-masking-error.png"))
        dialog.reject()


def main() -> int:
    output = run_grab(grab)
    print(f"Saved console.png, errors-list-detail.png, variables.png and variables-edit-masking-error.png in {output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
