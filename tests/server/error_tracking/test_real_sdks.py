"""The real SDKs, as real processes, reporting to the running server.

Python: sentry-sdk 1.21.0 (store and envelope modes, an unhandled crash with a session) and
raven 6.10.0. Node: @sentry/node 7.38.0 (handled and crashing) and raven 2.6.4, installed with
`npm ci` from the committed lock file on first use.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .through_api import collector_paths
from .toolchains import installing

HERE = Path(__file__).resolve().parent
PYTHON_APPS = HERE / "sdk_apps"
NODE_DIR = HERE / "node"
TIMEOUT = 120


@pytest.fixture(scope="session")
def node_modules() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node.js and npm are required for the Node SDK tests (CI installs them)")
    with installing("node"):
        if not (NODE_DIR / "node_modules" / "@sentry" / "node").exists():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR, check=True, timeout=600)
    return NODE_DIR / "node_modules"


def run(command: list[str], *, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT)


def frame_functions(payload: dict) -> list[str]:
    values = payload["exception"]["values"] if isinstance(payload["exception"], dict) else payload["exception"]
    return [frame.get("function") for frame in values[-1]["stacktrace"]["frames"]]


@pytest.mark.parametrize("mode", ["store", "envelope"])
def test_python_sentry_sdk(server, tracked, mode):
    result = run([sys.executable, str(PYTHON_APPS / "python_sentry_sdk.py"), mode, tracked.dsn], cwd=HERE)
    assert result.returncode == 0, result.stderr
    key_error = tracked.error_titled("KeyError: 'missing'")
    assert (key_error.count, key_error.users_count, key_error.culprit, key_error.platform, key_error.level) == (
        1, 1, "__main__ in level3", "python", "error")
    assert key_error.last_release == "shop@1.0.0" and key_error.last_environment == "production"
    assert frame_functions(tracked.latest_payload(key_error))[-3:] == ["<module>", "level2", "level3"]
    message = tracked.error_titled("Something happened: order 42 failed")
    assert (message.kind, message.level, message.count) == ("default", "warning", 1)
    logged = tracked.error_titled("Payment pay_123 failed for user 42")
    assert (logged.level, logged.count) == ("error", 1)
    # The SDK chose the endpoint from its configuration, as the protocol reference says.
    assert collector_paths(server, tracked) == {mode}


def test_python_sentry_sdk_unhandled_crash_and_session(tracked):
    result = run([sys.executable, str(PYTHON_APPS / "python_sentry_sdk.py"), "crash", tracked.dsn], cwd=HERE)
    assert result.returncode == 1 and "ValueError" in result.stderr
    crash = tracked.error_titled("ValueError: invalid literal for int() with base 10: 'not-a-number'")
    assert (crash.culprit, crash.count, crash.users_count) == ("__main__ in parse", 1, 1)
    payload = tracked.latest_payload(crash)
    assert payload["exception"]["values"][-1]["mechanism"] == {"type": "excepthook", "handled": False}
    (health,) = tracked.release_health()
    assert (health.release, health.environment, health.sessions, health.crashed) == ("shop@1.0.0", "production", 1, 1)
    assert health.crash_free_rate == 0.0


def test_python_raven(tracked):
    result = run([sys.executable, str(PYTHON_APPS / "python_raven.py"), tracked.dsn], cwd=HERE)
    assert result.returncode == 0, result.stderr
    key_error = tracked.error_titled("KeyError: 'missing'")
    assert (key_error.count, key_error.users_count, key_error.culprit, key_error.level) == (
        1, 1, "__main__ in level3", "error")
    assert frame_functions(tracked.latest_payload(key_error))[-2:] == ["<module>", "level3"]
    message = tracked.error_titled("Something happened: order 42 failed")
    assert (message.level, message.count) == ("warning", 1)


def test_node_sentry_sdk_handled(node_modules, tracked):
    result = run(["node", "sentry_node.js", "handled", tracked.dsn], cwd=NODE_DIR)
    assert result.returncode == 0, result.stderr
    type_error = tracked.error_titled("TypeError: Cannot read properties of undefined (reading 'toFixed')")
    assert (type_error.count, type_error.users_count, type_error.platform, type_error.level) == (1, 1, "node", "error")
    assert type_error.culprit.startswith("level3(")
    assert frame_functions(tracked.latest_payload(type_error))[-2:] == ["run", "level3"]
    message = tracked.error_titled("Something happened: order 42 failed")
    assert (message.level, message.count) == ("warning", 1)
    (health,) = tracked.release_health()
    assert (health.release, health.environment, health.sessions, health.crashed, health.errored) == (
        "shop@2.0.0", "staging", 1, 0, 1)


def test_node_sentry_sdk_uncaught_crash(node_modules, tracked):
    result = run(["node", "sentry_node.js", "crash", tracked.dsn], cwd=NODE_DIR)
    assert result.returncode != 0
    crashes = [error for error in tracked.errors() if error.title.startswith("SyntaxError:")]
    assert len(crashes) == 1
    assert (crashes[0].level, crashes[0].count) == ("fatal", 1)
    assert any("parseConfig" in function for function in frame_functions(tracked.latest_payload(crashes[0])))
    (health,) = tracked.release_health()
    assert (health.sessions, health.crashed) == (1, 1)


def test_node_raven(node_modules, tracked):
    result = run(["node", "raven_node.js", tracked.dsn], cwd=NODE_DIR)
    assert result.returncode == 0, result.stderr + result.stdout
    type_error = tracked.error_titled("TypeError: Cannot read properties of undefined (reading 'toFixed')")
    assert (type_error.count, type_error.users_count, type_error.level) == (1, 1, "error")
    assert "level3" in frame_functions(tracked.latest_payload(type_error))
    message = tracked.error_titled("Something happened: order 42 failed")
    assert (message.level, message.count) == ("warning", 1)
