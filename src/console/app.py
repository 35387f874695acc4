"""Command line entry point: ``outpost [--demo | --self-test | --version | --help]``."""

from __future__ import annotations

import argparse
import logging
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from console import __version__
from console.core import settings_keys as keys

if TYPE_CHECKING:
    from console.operations import Op

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
        "link",
        nargs="?",
        help=("an outpost://HOST[:PORT]/GROUP/PROJECT/-/error_tracking/ID link: open that error (in the console "
              "already running, if there is one)"),
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="start the bundled server on this computer with demo data and connect to it as its administrator",
    )
    parser.add_argument(
        "--demo-reset",
        action="store_true",
        help="remove the local demo server's data (the next --demo starts from fresh demo data) and exit",
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
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:
        # A plain start from the desktop: the window is what matters, and argparse (with the lookup of
        # its translations) would only delay it.
        _log_to_console()
        return run_gui(demo=False)
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.screenshot and not args.demo:
        parser.error("--screenshot needs --demo")
    _log_to_console()
    if args.demo_reset:
        return reset_demo()
    if args.self_test:
        from console.self_test import run_self_test

        return run_self_test()
    if args.link and not args.demo:
        from console.application import create_application
        from console.single_instance import hand_over

        create_application()
        if hand_over(args.link):
            return 0
    if args.demo and not args.link and not args.screenshot:
        from console.application import create_application
        from console.single_instance import DEMO_REQUEST, hand_over

        create_application()
        if hand_over(DEMO_REQUEST):  # a second window would find the demo's data in use
            print("The demo is already running: its console window was brought forward.")
            return 0
    return run_gui(demo=args.demo, screenshot=args.screenshot, link=args.link)


def reset_demo(folder: Path | None = None, *, history_dir: Path | None = None) -> int:
    """Removes the local demo server's data folder and the demo profile's export history, whose exports
    were in that data; refuses (exit code 1) while a console or its server uses the folder."""
    from console.core.connection.data_lock import LOCK_FILE, DataFolderLock
    from console.core.connection.local_server import PORT_FILE
    from console.core.exports.store import ExportHistory
    from console.settings import app_data_dir, local_server_dir

    history = ExportHistory(history_dir if history_dir is not None else app_data_dir() / "exports",
                            keys.profile_key(keys.LOCAL_DEMO_PROFILE, "root"))
    target = folder if folder is not None else local_server_dir()
    if not target.exists() or {entry.name for entry in target.iterdir()} <= {PORT_FILE, LOCK_FILE}:
        history.path.unlink(missing_ok=True)
        print(f"No demo data to remove: {target} does not exist.")
        return 0
    lock = DataFolderLock(target)
    if not lock.acquire():
        print(f"The demo is running: a console or its local server is using {target}. Nothing was removed; "
              "close the demo's console window, then reset again.", file=sys.stderr)
        return 1
    # The port of the last start is kept: the next demo listens where links and DSNs pointed, if it is free.
    kept = {lock.path, target / PORT_FILE}
    with lock:
        # Everything but the held lock file goes first, so no console can start on half the data.
        for entry in target.iterdir():
            if entry not in kept:
                shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
        history.path.unlink(missing_ok=True)
    lock.path.unlink(missing_ok=True)
    print(f"Removed the demo data in {target}; the next demo starts from fresh demo data, on the same port while "
          "it is free. Its client keys are new: copy the DSNs into your applications again, and links to errors "
          "of the old data no longer lead to them.")
    return 0


def _log_to_console() -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs every request URL at INFO; URLs are kept out of the log as a rule.
    logging.getLogger("httpx").setLevel(logging.WARNING)


def run_gui(*, demo: bool, screenshot: Path | None = None, link: str | None = None) -> int:
    from PySide6.QtCore import QEventLoop

    from console.application import create_application
    from console.context import AppContext
    from console.core.connection.credentials import CredentialStore
    from console.main_window import MainWindow

    app = create_application()
    context = AppContext()
    credentials = CredentialStore()
    window = MainWindow(context, credentials)
    window.show()
    # The first frame is painted before the asyncio loop, the log file and the exception reporter are set
    # up: nothing on the first screen needs them, and they would only delay it. Input waits for the loop.
    app.processEvents(QEventLoop.ProcessEventsFlag.ExcludeUserInputEvents)

    import asyncio
    import signal

    import qasync

    from console.excepthook import ExceptionReporter
    from console.operations import Op

    _log_to_file()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    reporter = ExceptionReporter()
    reporter.install()
    reporter.unexpected.connect(window.show_unexpected_error)

    quitting = asyncio.Event()
    app.aboutToQuit.connect(quitting.set)  # may fire twice; setting an Event is idempotent
    with loop:
        for signum in (signal.SIGINT, signal.SIGTERM):
            # Ctrl+C in the terminal (or a polite kill) closes the window, which stops the local server.
            loop.add_signal_handler(signum, window.close)
        Op(context, credentials.probe(), description="Checking the system keyring").success(
            lambda _: window.connection_bar.show_keyring_warning(credentials.warning)).run()
        if link:
            window.complete_setup()  # listening for later starts' links from now on
            window.open_link(link)
        if demo:
            started = window.start_local_server()
            if screenshot is not None:
                Op(context, _save_screenshot(window, started, screenshot), description="Taking a screenshot").run()
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


async def _save_screenshot(window, started: Op[None], path: Path) -> None:
    import asyncio

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
