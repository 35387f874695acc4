"""What the screenshot scripts share: waiting for the console to settle, and running one grab on a
qasync loop with a private work directory (settings, local server data)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
import tempfile
from collections.abc import AsyncIterator, Callable, Coroutine
from pathlib import Path
from typing import Any

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from console.context import AppContext
from console.core.connection.credentials import CredentialStore
from console.main_window import MainWindow

ROOT = Path(__file__).resolve().parents[1]


async def settle(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError("the console did not reach the expected state")
        await asyncio.sleep(0.05)


def run_grab(grab: Callable[[Path, Path], Coroutine[Any, Any, None]]) -> Path:
    """Runs ``grab(output, workdir)``; the output directory is argv[1] or resources/screenshots."""
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "resources" / "screenshots"
    output.mkdir(parents=True, exist_ok=True)
    if os.environ.get("QT_QPA_PLATFORM") == "offscreen":
        # The plugin's own screen is 800×800, and the window fits itself into its screen: a desktop's screen.
        os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={ROOT / 'scripts' / 'offscreen_desktop.json'}"
    app = QApplication.instance() or QApplication(sys.argv[:1])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="outpost-screenshots-") as workdir, loop:
        loop.run_until_complete(grab(output, Path(workdir)))
    return output


@contextlib.asynccontextmanager
async def local_console(workdir: Path, size: tuple[int, int] | None = None) -> AsyncIterator[MainWindow]:
    """The console's main window on screen (at its default size unless given), connected to a local server
    of its own."""
    settings = QSettings(str(workdir / "settings.ini"), QSettings.Format.IniFormat)
    window = MainWindow(AppContext(), CredentialStore(), settings=settings, local_server_dir=workdir / "server",
                        history_dir=workdir / "exports")
    if size is not None:
        window.resize(*size)
    window.show()
    try:
        await window.start_local_server()
        yield window
    finally:
        await window.changes.shutdown()
        window.hide()
