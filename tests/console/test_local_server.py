"""The local server launcher starts a real server, signs in as root and leaves no process behind."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from console.core.api.client import ApiClient
from console.core.connection import local_server
from console.core.connection.local_server import LocalServer, LocalServerError
from outpost_model.accounts import User

SRC_DIR = Path(local_server.__file__).resolve().parents[2]


def process_exists(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie still answers kill(0); it has exited, only its parent has not reaped it yet.
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ", 1)[1].startswith("Z"))


def wait_for(condition, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.1)
    return condition()


@pytest.mark.asyncio
async def test_start_connect_as_root_and_stop(tmp_path):
    server = LocalServer(tmp_path / "local", demo=True)
    url = await server.start()
    try:
        assert url.startswith("http://127.0.0.1:")
        assert server.is_running
        async with ApiClient(url, server.root_token) as client:
            user = await client.get_user()
            usernames = {u.username async for u in client.paginate_as(User, "/users")}
        assert user.username == "root" and user.is_admin is True
        assert len(usernames) > 1  # demo users were loaded
    finally:
        await server.stop()
    assert server.process.returncode is not None
    assert not process_exists(server.pid)
    assert server.url is None


@pytest.mark.asyncio
async def test_each_start_uses_a_fresh_root_token(tmp_path):
    server = LocalServer(tmp_path / "local", demo=False)
    await server.start()
    first_token = server.root_token
    await server.stop()
    url = await server.start()
    try:
        assert server.root_token != first_token
        async with ApiClient(url, server.root_token) as client:
            assert (await client.get_user()).username == "root"
    finally:
        await server.stop()


@pytest.mark.asyncio
async def test_failed_start_reports_the_server_output(tmp_path, monkeypatch):
    monkeypatch.setenv("OUTPOST_DATABASE_URL", "nosuchdriver://nowhere")
    server = LocalServer(tmp_path / "local", demo=False)
    with pytest.raises(LocalServerError) as caught:
        await server.start()
    assert "exited with code" in str(caught.value)
    assert "Its last output:" in str(caught.value)
    assert not server.is_running


def test_command_runs_this_interpreter_with_watch_parent(tmp_path):
    command = LocalServer(tmp_path, demo=True).command()
    assert command[:3] == [sys.executable, "-m", "outpost_server"]
    assert command[3:] == ["serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(tmp_path),
                           "--watch-parent", "--demo"]


def test_frozen_build_runs_itself_as_the_server(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    command = LocalServer(tmp_path, demo=False).command()
    assert command[:3] == [sys.executable, "--run-server", "serve"]


def test_server_exits_when_the_console_is_killed(tmp_path):
    """A console killed with SIGKILL cannot stop its server; the server must notice and exit."""
    script = textwrap.dedent(
        f"""
        import asyncio, sys
        from pathlib import Path
        from console.core.connection.local_server import LocalServer

        async def main():
            server = LocalServer(Path({str(tmp_path / 'local')!r}), demo=False)
            await server.start()
            print(server.pid, flush=True)
            await asyncio.sleep(3600)

        asyncio.run(main())
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")]))}
    console = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    try:
        server_pid = int(console.stdout.readline())
        assert process_exists(server_pid)
    finally:
        console.send_signal(signal.SIGKILL)
        console.wait()
    assert wait_for(lambda: not process_exists(server_pid), timeout=30)


def test_start_local_server_button_connects_and_closing_stops_it(qtbot, qloop_running, context, credentials,
                                                                 settings, tmp_path):
    from PySide6.QtCore import Qt

    from console.main_window import MainWindow

    window = MainWindow(context, credentials, settings=settings, local_server_dir=tmp_path / "local-server")
    qtbot.addWidget(window)
    window.show()
    qtbot.mouseClick(window.connection_bar.local_server_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: context.is_connected, timeout=60_000)
    server = window.local_server
    pid = server.pid
    bar = window.connection_bar
    assert bar.server_label.full_text() == f"Connected to local server {server.url}"
    assert "@root" in bar.user_label.full_text() and bar.admin_badge.isVisible()
    assert not bar.local_server_button.isEnabled()
    assert (tmp_path / "local-server").is_dir()
    assert process_exists(pid)

    window.close()
    assert window.local_server is None and not context.is_connected
    assert not process_exists(pid)


@pytest.mark.asyncio
async def test_the_demo_keeps_its_port_while_it_is_free_and_says_when_it_could_not(tmp_path):
    import socket
    from urllib.parse import urlsplit

    server = LocalServer(tmp_path / "local", demo=True)
    first = urlsplit(await server.start()).port
    await server.stop()
    try:
        assert urlsplit(await server.start()).port == first and server.moved_from is None
    finally:
        await server.stop()
    with socket.socket() as holder:  # another program takes the port while the demo is closed
        holder.bind(("127.0.0.1", first))
        holder.listen()
        try:
            moved = urlsplit(await server.start()).port
        finally:
            await server.stop()
    assert moved != first and server.moved_from == first
    assert server.remembered_port() == moved  # the next start asks for the new one
