"""Grab every page of the console offscreen, at the default 1100×700 and at 900×600, in the Light and Dark
themes, from a local server with demo data: each tab and each page of the tab widgets inside it, the error
tracking tab with an error open. For looking at, not for the repository (the README's are screenshots.py's).

    .venv/bin/python scripts/page_screenshots.py [OUTPUT_DIR]   (default: build/page-screenshots)
"""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
ROOT = Path(__file__).resolve().parents[1]
if len(sys.argv) < 2:
    sys.argv.append(str(ROOT / "build" / "page-screenshots"))

from PySide6.QtWidgets import QTabWidget  # noqa: E402
from screenshot_support import local_console, run_grab, settle  # noqa: E402

from console.errors.tab import ErrorTrackingTab  # noqa: E402
from console.main_window import DEFAULT_SIZE, MainWindow  # noqa: E402

SIZES = (DEFAULT_SIZE, (900, 600))
THEMES = ("light", "dark")


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower().replace("&", "")).strip("-")


async def quiet(window: MainWindow) -> None:
    """What the page asked for has arrived: nothing runs, then a moment for the layout."""
    await asyncio.sleep(0.2)
    await settle(lambda: not window.status_line.progress.isVisible())
    await asyncio.sleep(0.3)


async def grab_pages(window: MainWindow, output: Path, prefix: str) -> list[str]:
    saved = []
    for index, name in enumerate(window.tabs.names):
        feature = window.tabs.show_tab(name)
        await quiet(window)
        inner = [tabs for tabs in feature.findChildren(QTabWidget) if tabs.isVisibleTo(feature)]
        pages: list[tuple[QTabWidget | None, int]] = [(None, 0)]
        pages += [(tabs, page) for tabs in inner for page in range(tabs.count())]
        for tabs, page in pages:
            label = window.tabs.tabText(index)
            if tabs is not None:
                tabs.setCurrentIndex(page)
                await quiet(window)
                label += f" {tabs.tabText(page)}"
            file_name = f"{prefix}-{index + 1}-{slug(label)}.png"
            window.grab().save(str(output / file_name))
            saved.append(file_name)
        for tabs in inner:
            tabs.setCurrentIndex(0)
    return saved


async def grab(output: Path, workdir: Path) -> None:
    async with local_console(workdir) as window:
        window.open_target(("errors", "acme/webshop"))
        errors = window.tabs.current_feature()
        assert isinstance(errors, ErrorTrackingTab)
        await settle(lambda: errors.errors_page.model.rowCount() > 0)
        errors.errors_page.table.selectRow(0)
        await settle(lambda: errors.errors_page.shown_error is not None)
        saved = []
        for theme in THEMES:
            window.themes.apply(theme)
            for width, height in SIZES:
                window.resize(width, height)
                await asyncio.sleep(0.3)
                saved += await grab_pages(window, output, f"{width}x{height}-{theme}")
        window.themes.apply("system")
    print(f"{len(saved)} screenshots in {output}")


def main() -> int:
    run_grab(grab)
    return 0


if __name__ == "__main__":
    sys.exit(main())
