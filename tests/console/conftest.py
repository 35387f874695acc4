"""Fixtures for the console's GUI tests (offscreen Qt, in-memory keyring, running qasync loop)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
if os.environ["QT_QPA_PLATFORM"] == "offscreen":
    # The offscreen plugin's own screen is 800×800, smaller than the window's default 1100×700, which the window
    # then shrinks to fit (window_state.fit_on_screen): give it a desktop's screen.
    desktop = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir, "scripts", "offscreen_desktop.json")
    os.environ["QT_QPA_PLATFORM"] = f"offscreen:configfile={os.path.normpath(desktop)}"

import asyncio  # noqa: E402
import gc  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import httpx  # noqa: E402
import keyring  # noqa: E402
import pytest  # noqa: E402
import qasync  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402

from console.context import AppContext  # noqa: E402
from console.core.connection.credentials import CredentialStore
from tests.console.memkeyring import MemoryKeyring  # noqa: E402

HERE = Path(__file__).resolve().parent

def freedesktop_database(monkeypatch, folder: Path, defaults: dict[str, str]) -> None:
    """A freedesktop database of the test's own, as xdg-mime and xdg-open read it: for each type in ``defaults``
    (``inode/directory``, ``application/pdf``) a program, by its desktop file's name; no other type has one."""
    monkeypatch.setenv("XDG_CURRENT_DESKTOP", "X-Generic")
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_DATA_DIRS"):
        (folder / name).mkdir(parents=True)
        monkeypatch.setenv(name, str(folder / name))
    applications = folder / "XDG_DATA_HOME" / "applications"
    applications.mkdir()
    lines = ["[Default Applications]"]
    for kind, desktop_file in defaults.items():
        lines.append(f"{kind}={desktop_file}")
        (applications / desktop_file).write_text(
            f"[Desktop Entry]\nType=Application\nName={desktop_file}\nExec=true %U\nMimeType={kind};\n")
    (folder / "XDG_CONFIG_HOME" / "mimeapps.list").write_text("\n".join(lines) + "\n")


# The offscreen platform plugin says these whenever a window is shown or raised; they are not problems of the app.
OFFSCREEN_NOISE = r"This plugin does not support (propagateSizeHints|raise)\(\)"


def pytest_collection_modifyitems(items):
    for item in items:
        if HERE in Path(item.path).parents:
            item.add_marker(pytest.mark.qt_log_ignore(OFFSCREEN_NOISE))


@pytest.fixture(autouse=True)
def qt_garbage_collected_on_main_thread():
    """Collect each test's garbage here, on the main thread.

    Widgets caught in reference cycles are otherwise freed by whichever thread next triggers the
    garbage collector (a server-output reader, a load sender in a later test), and Qt objects
    destroyed off their thread warn about timers and can crash the interpreter.
    """
    yield
    gc.collect()


@pytest.fixture(autouse=True)
def memory_keyring():
    """Every test gets a fresh in-memory keyring instead of the machine's."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


@pytest.fixture(autouse=True)
def private_user_settings(tmp_path_factory):
    """QSettings("Outpost", ...) in any test writes below a temporary directory, never to the user's config."""
    directory = str(tmp_path_factory.mktemp("user-settings"))
    for settings_format in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(settings_format, QSettings.Scope.UserScope, directory)
    yield directory


@pytest.fixture
def settings(tmp_path):
    """A private settings file, so tests never read or write the user's settings."""
    store = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    yield store
    store.sync()


@pytest.fixture
def qloop_running(qapp):
    """A qasync loop marked as running, so Qt's own event processing (qtbot.waitUntil) runs asyncio tasks.

    Never call qtbot.wait*/waitUntil/waitSignal inside a coroutine on this loop; wait from the test body.
    """
    loop = qasync.QEventLoop(qapp, already_running=True)
    asyncio.set_event_loop(loop)
    yield loop
    # Work a test left running is cancelled and given the loop until it has ended, before its HTTP clients
    # close under it: a task still pending when the loop closes is destroyed mid-flight ("Task was destroyed
    # but it is pending!"), and a request cut by the closing client fails a gather no one awaits any more.
    left = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in left:
        task.cancel()
    _process_events_until(qapp, lambda: all(task.done() for task in left))
    _close_open_http_clients(loop, qapp)
    loop._QEventLoop__is_running = False  # qasync 0.28 has no public way to "un-run" the loop
    asyncio.events._set_running_loop(None)  # or later pytest-asyncio tests see "loop already running"
    asyncio.set_event_loop(None)
    loop.close()


def _close_open_http_clients(loop, qapp) -> None:
    """Close every HTTP client a test left open while its loop still runs.

    A socket that outlives its qasync loop keeps a Qt socket notifier pointing into the closed
    loop; the next event processing (in any later test) then crashes the interpreter.
    """
    clients = [obj for obj in gc.get_objects() if isinstance(obj, httpx.AsyncClient) and not obj.is_closed]
    closing = [loop.create_task(client.aclose()) for client in clients]
    _process_events_until(qapp, lambda: all(task.done() for task in closing))


def _process_events_until(qapp, done, seconds: float = 10) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        qapp.processEvents()
        time.sleep(0.005)


@pytest.fixture
def context(qapp):
    return AppContext()


@pytest.fixture
def credentials(memory_keyring):
    return CredentialStore(memory_keyring)
