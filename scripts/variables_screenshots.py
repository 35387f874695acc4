"""Grab the variables tab screenshots offscreen: the tab with demo data, and the edit dialog
showing why a value cannot be masked.

    .venv/bin/python scripts/variables_screenshots.py [OUTPUT_DIR]   (default: resources/screenshots)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from screenshot_support import local_console, run_grab, settle, show_tab  # noqa: E402

from console.variables.views import VariablesTab  # noqa: E402


async def grab(output: Path, workdir: Path) -> None:
    async with local_console(workdir, 1280, 640) as window:
        tab = show_tab(window, VariablesTab)
        await settle(lambda: tab.model.rowCount() > 0 and tab.limit is not None)
        tab.select_key("SONAR_TOKEN")
        tab.toggle_reveal()
        await asyncio.sleep(0.3)
        window.grab().save(str(output / "variables.png"))

        tab.select_key("DOCKER_AUTH_TOKEN")
        dialog = tab.edit_selected()
        dialog.value_edit.setPlainText("dckr pat $REGISTRY_SUFFIX")
        await asyncio.sleep(0.3)
        dialog.grab().save(str(output / "variables-edit-masking-error.png"))
        dialog.reject()


def main() -> int:
    output = run_grab(grab)
    print(f"Saved {output / 'variables.png'} and {output / 'variables-edit-masking-error.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
