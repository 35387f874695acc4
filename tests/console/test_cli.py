"""The ``outpost`` command line, run as a real subprocess."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import console

SRC_DIR = Path(console.__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent


def run_console(*args: str, extra_env: dict[str, str] | None = None,
                timeout: float = 120) -> subprocess.CompletedProcess:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **(extra_env or {})}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(SRC_DIR), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "console", *args], capture_output=True, text=True,
                          env=env, timeout=timeout)


def test_version_prints_name_and_version():
    result = run_console("--version")
    assert result.returncode == 0
    assert result.stdout.strip() == f"outpost {console.__version__}"


def test_version_does_not_start_qt():
    script = textwrap.dedent(
        """
        import sys
        from console.__main__ import run
        try:
            run(["--version"])
        except SystemExit as exit:
            assert exit.code == 0
        print("QtWidgets loaded" if "PySide6.QtWidgets" in sys.modules else "no Qt")
        """
    )
    env = {**os.environ, "PYTHONPATH": str(SRC_DIR)}
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=60)
    assert result.stdout.splitlines()[-1] == "no Qt"


def test_help_lists_the_options():
    result = run_console("--help")
    assert result.returncode == 0
    for option in ("--version", "--demo", "--self-test"):
        assert option in result.stdout


def test_unknown_option_fails():
    result = run_console("--no-such-option")
    assert result.returncode == 2
    assert "unrecognized arguments" in result.stderr


def test_self_test_passes_and_reports_each_check():
    memory_backend = {"PYTHON_KEYRING_BACKEND": "tests.console.memkeyring.MemoryKeyring",
                      "PYTHONPATH": str(HERE.parents[1])}
    result = run_console("--self-test", extra_env=memory_backend)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"outpost {console.__version__} on Python")
    assert any(line.startswith("imports: ok (") for line in lines)
    assert "keyring: tests.console.memkeyring.MemoryKeyring (tokens are stored securely)" in lines
    assert any(line.startswith("bundled server: listening on http://127.0.0.1:") for line in lines)
    assert "GET /api/v4/user: ok, signed in as root (administrator)" in lines
    assert lines[-2:] == ["bundled server: stopped", "self-test passed"]


def test_self_test_reports_a_missing_keyring():
    result = run_console("--self-test", extra_env={"PYTHON_KEYRING_BACKEND": "keyring.backends.fail.Keyring"})
    assert result.returncode == 0, result.stdout + result.stderr
    keyring_line = next(line for line in result.stdout.splitlines() if line.startswith("keyring:"))
    assert "keyring.backends.fail.Keyring (not usable:" in keyring_line
    assert "this session only" in keyring_line


def test_self_test_fails_when_the_server_cannot_start():
    result = run_console("--self-test", extra_env={"OUTPOST_DATABASE_URL": "nosuchdriver://nowhere"})
    assert result.returncode == 1
    assert "bundled server: FAILED" in result.stdout
    assert result.stdout.splitlines()[-1] == "self-test FAILED"


def test_run_server_dispatches_to_the_server_cli():
    result = run_console("--run-server", "--version")
    assert result.returncode == 0
    assert result.stdout.startswith("outpost-server ")


def test_demo_connects_to_a_local_server_and_stops_it_on_close(tmp_path):
    picture = tmp_path / "window.png"
    private_home = {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"),
                    "XDG_CONFIG_HOME": str(tmp_path / "config"),
                    "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
    result = run_console("--demo", "--screenshot", str(picture), extra_env=private_home)
    assert result.returncode == 0, result.stderr
    assert picture.stat().st_size > 0
    assert (tmp_path / "data" / "Outpost" / "local-server").is_dir()
    log = result.stderr
    started = next(line for line in log.splitlines() if "Local server" in line and "started at" in line)
    pid = started.split("Local server ")[1].split()[0]
    assert f"Local server {pid} stopped" in log
    assert not Path(f"/proc/{pid}").exists()


def test_screenshot_requires_demo():
    result = run_console("--screenshot", "x.png")
    assert result.returncode == 2
    assert "--screenshot needs --demo" in result.stderr


def test_sigterm_closes_the_demo_and_stops_its_server(tmp_path):
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", "HOME": str(tmp_path),
           "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring",
           "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")]))}
    app = subprocess.Popen([sys.executable, "-m", "console", "--demo"], stderr=subprocess.PIPE, text=True, env=env)
    try:
        for line in app.stderr:
            if "Local server" in line and "started at" in line:
                server_pid = line.split("Local server ")[1].split()[0]
                break
        else:
            raise AssertionError("the demo never started its local server")
        app.send_signal(signal.SIGTERM)
        rest = app.stderr.read()
        assert app.wait(timeout=60) == 0
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    assert f"Local server {server_pid} stopped" in rest
    assert not Path(f"/proc/{server_pid}").exists()


def demo_environment(tmp_path: Path) -> dict[str, str]:
    """A home of its own (data, settings, the null keyring): no real user's data is touched."""
    return {"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
            "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}


def start_demo(env: dict[str, str]) -> subprocess.Popen:
    """A real `--demo` console, returned once its local server has started (its log is on stderr)."""
    full_env = {**os.environ, "QT_QPA_PLATFORM": "offscreen", **env,
                "PYTHONPATH": os.pathsep.join(filter(None, [str(SRC_DIR), os.environ.get("PYTHONPATH")]))}
    app = subprocess.Popen([sys.executable, "-m", "console", "--demo"], stderr=subprocess.PIPE, text=True,
                           env=full_env)
    assert app.stderr is not None
    for line in app.stderr:
        if "Local server" in line and "started at" in line:
            return app
    app.kill()
    app.wait()
    raise AssertionError("the demo never started its local server")


def test_demo_reset_refuses_while_a_demo_console_runs_then_works_once_it_is_killed(tmp_path):
    env = demo_environment(tmp_path)
    data = tmp_path / "data" / "Outpost" / "local-server"
    app = start_demo(env)
    try:
        kept = sorted(path.name for path in data.iterdir())
        refused = run_console("--demo-reset", extra_env=env)
        assert refused.returncode == 1, refused.stdout + refused.stderr
        assert "The demo is running" in refused.stderr and "Removed" not in refused.stdout
        assert "outpost.sqlite3" in kept and set(kept) <= {path.name for path in data.iterdir()}
        app.kill()  # no goodbye: the system lets go of the lock when the console and its server are gone
        app.wait(timeout=60)
    finally:
        if app.poll() is None:
            app.kill()
            app.wait()
    # The server follows its killed console out; until then the reset may still refuse.
    for _ in range(60):
        reset = run_console("--demo-reset", extra_env=env)
        if reset.returncode == 0:
            break
        time.sleep(0.5)
    assert reset.returncode == 0, reset.stdout + reset.stderr
    assert "Removed the demo data" in reset.stdout
    assert [path.name for path in data.iterdir()] == ["port"], "the port of the last start is kept"


def test_a_second_demo_start_hands_over_to_the_running_demo_and_exits(tmp_path):
    """A second `--demo` while the demo runs opened a second window, unconnected, on data already in use; it
    hands over to the running console instead, as links do, and exits."""
    env = demo_environment(tmp_path)
    app = start_demo(env)
    try:
        second = run_console("--demo", extra_env=env, timeout=60)
        assert second.returncode == 0, second.stdout + second.stderr
        assert "The demo is already running" in second.stdout
        assert "Local server" not in second.stderr  # no second server, no second window's start
        for line in app.stderr:
            if "Another start asked for the demo" in line:
                break
        else:
            raise AssertionError("the running console never heard of the second start")
    finally:
        app.terminate()  # the window closes and stops its local server
        try:
            app.wait(timeout=60)
        except subprocess.TimeoutExpired:
            app.kill()
            app.wait()
