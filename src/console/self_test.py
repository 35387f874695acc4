"""``outpost --self-test``: check the installation (imports, keyring, bundled server, one API call) and exit.

Kept apart from :mod:`console.app` so the window's start does not import what only this check needs.
"""

from __future__ import annotations

import asyncio
import importlib
import os
import pkgutil
import platform
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import qasync
from PySide6 import __version__ as pyside_version
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

import console
from console import __version__
from console.application import create_application
from console.core.api.client import ApiClient
from console.core.connection.credentials import CredentialStore
from console.core.connection.local_server import LocalServer
from console.icons import app_icon


def run_self_test() -> int:
    """Print one line per check; exit code 0 only when every check passed."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = create_application()
    QApplication.setWindowIcon(app_icon())  # as the window sets it once its first frame is painted
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        passed = loop.run_until_complete(self_test(lambda line: print(line, flush=True)))
    print("self-test passed" if passed else "self-test FAILED", flush=True)
    return 0 if passed else 1


def import_all_modules() -> list[str]:
    """Import every module of the console and the bundled server's entry point."""
    names = [info.name for info in pkgutil.walk_packages(console.__path__, "console.")]
    names.append("outpost_server.cli")
    for name in names:
        importlib.import_module(name)
    return names


async def self_test(report: Callable[[str], None]) -> bool:
    report(f"outpost {__version__} on Python {platform.python_version()}, PySide6 {pyside_version}, "
           f"Qt platform {QGuiApplication.platformName()}")
    try:
        names = import_all_modules()
    except Exception as exc:  # a broken install shows up here
        report(f"imports: FAILED ({type(exc).__name__}: {exc})")
        return False
    report(f"imports: ok ({len(names)} modules)")

    credentials = CredentialStore()
    await credentials.probe()
    if credentials.is_persistent:
        report(f"keyring: {credentials.backend_name} (tokens are stored securely)")
    else:
        report(f"keyring: {credentials.backend_name} (not usable: {credentials.warning})")

    with tempfile.TemporaryDirectory(prefix="outpost-self-test-") as data_dir:
        server = LocalServer(Path(data_dir), demo=False)
        report(f"bundled server: {' '.join(server.command())}")
        try:
            url = await server.start()
            report(f"bundled server: listening on {url} (pid {server.pid})")
            async with ApiClient(url, server.root_token) as client:
                user = await client.get_user()
            admin = "administrator" if user.is_admin is True else "not an administrator"
            report(f"GET /api/v4/user: ok, signed in as {user.username} ({admin})")
        except Exception as exc:
            report(f"bundled server: FAILED: {getattr(exc, 'message', None) or exc}")
            return False
        finally:
            await server.stop()
        stopped = server.process is not None and server.process.returncode is not None
        report(f"bundled server: {'stopped' if stopped else 'FAILED to stop'}")
        return stopped
