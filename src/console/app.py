"""Command line entry point: ``outpost [--demo | --self-test | --version | --help]``."""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import pkgutil
import platform
import signal
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from console import __version__

log = logging.getLogger(__name__)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="outpost",
        description=(
            "Outpost console: administer CI/CD variables, vulnerability exports and error tracking "
            "on a GitLab-compatible server."
        ),
    )
    parser.add_argument("--version", action="version", version=f"outpost {__version__}")
    parser.add_argument(
        "--demo",
        action="store_true",
        help="start the bundled server on this computer with demo data and connect to it as its administrator",
    )
    parser.add_argument(
        "--self-test",
        action="store_true",
        help=("check the installation (imports, keyring, bundled server, one API call) and exit; "
              "works without a display"),
    )
    parser.add_argument(
        "--screenshot",
        metavar="PNG",
        type=Path,
        help="with --demo: once connected, save a picture of the window to PNG and exit (for documentation)",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.screenshot and not args.demo:
        parser.error("--screenshot needs --demo")
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs every request URL at INFO; URLs are kept out of the log as a rule.
    logging.getLogger("httpx").setLevel(logging.WARNING)
    if args.self_test:
        return run_self_test()
    return run_gui(demo=args.demo, screenshot=args.screenshot)


def _create_application():
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication([sys.argv[0]])
    app.setOrganizationName("Outpost")
    app.setApplicationName("Outpost console")
    app.setApplicationVersion(__version__)
    from console.icons import app_icon

    app.setWindowIcon(app_icon())
    return app


def run_gui(*, demo: bool, screenshot: Path | None = None) -> int:
    import qasync

    from console.connection.credentials import CredentialStore
    from console.context import AppContext
    from console.excepthook import ExceptionReporter
    from console.main_window import MainWindow

    app = _create_application()
    _log_to_file()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    reporter = ExceptionReporter()
    reporter.install()
    context = AppContext()
    credentials = CredentialStore()
    window = MainWindow(context, credentials)
    reporter.unexpected.connect(window.show_unexpected_error)
    window.show()

    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)  # may fire twice; setting an Event is idempotent
    with loop:
        for signum in (signal.SIGINT, signal.SIGTERM):
            # Ctrl+C in the terminal (or a polite kill) closes the window, which stops the local server.
            loop.add_signal_handler(signum, window.close)
        context.run(
            credentials.probe(),
            description="Checking the system keyring",
            on_success=lambda _: window.connection_bar.show_keyring_warning(credentials.warning),
        )
        if demo:
            started = window.start_local_server()
            if screenshot is not None:
                loop.create_task(_save_screenshot(window, started, screenshot))
        loop.run_until_complete(quitting.wait())
    reporter.uninstall()
    return 0


LOG_FILE_BYTES = 1_000_000


def _log_to_file() -> None:
    """Also log to a small rotating file in the log folder (Help > Open log folder)."""
    from logging.handlers import RotatingFileHandler

    from console.settings import log_dir

    folder = log_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = RotatingFileHandler(folder / "console.log", maxBytes=LOG_FILE_BYTES, backupCount=2, encoding="utf-8")
    except OSError as exc:
        log.warning("not logging to a file: %s", exc)
        return
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logging.getLogger().addHandler(handler)


SCREENSHOT_SETTLE_SECONDS = 2.0


async def _save_screenshot(window, started: asyncio.Task[None], path: Path) -> None:
    from PySide6.QtCore import QTimer

    await started
    await asyncio.sleep(SCREENSHOT_SETTLE_SECONDS)  # let the tabs load their first data
    path.parent.mkdir(parents=True, exist_ok=True)
    if window.grab().save(str(path)):
        log.info("Saved a screenshot of the window to %s", path)
    else:
        log.error("Could not save the screenshot to %s", path)
    # Closing runs an asynchronous shutdown, which must start from Qt, not from inside this task.
    QTimer.singleShot(0, window.close)


def run_self_test() -> int:
    """Print one line per check; exit code 0 only when every check passed."""
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    import qasync

    app = _create_application()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        passed = loop.run_until_complete(self_test(lambda line: print(line, flush=True)))
    print("self-test passed" if passed else "self-test FAILED", flush=True)
    return 0 if passed else 1


def import_all_modules() -> list[str]:
    """Import every module of the console and the bundled server's entry point."""
    import console

    names = [info.name for info in pkgutil.walk_packages(console.__path__, "console.")]
    names.append("outpost_server.cli")
    for name in names:
        importlib.import_module(name)
    return names


async def self_test(report: Callable[[str], None]) -> bool:
    from PySide6 import __version__ as pyside_version
    from PySide6.QtGui import QGuiApplication

    from console.api.client import ApiClient
    from console.connection.credentials import CredentialStore
    from console.connection.local_server import LocalServer

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
            admin = "administrator" if user.get("is_admin") else "not an administrator"
            report(f"GET /api/v4/user: ok, signed in as {user.get('username')} ({admin})")
        except Exception as exc:
            report(f"bundled server: FAILED: {getattr(exc, 'message', None) or exc}")
            return False
        finally:
            await server.stop()
        stopped = server.process is not None and server.process.returncode is not None
        report(f"bundled server: {'stopped' if stopped else 'FAILED to stop'}")
        return stopped
