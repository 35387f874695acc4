"""More real SDKs, as real processes, reporting to the running server; checked through the errors API.

Each app raises an exception in a named function and sends a message at warning level:
sentry-go 0.11.0 (Debian, built offline, store endpoint), sentry-ruby 5.3.0 (Debian, envelope endpoint,
gzip over 30 KB), sentry-cli 2.17.5 (its bundled Rust `sentry` client: send-event and send-envelope),
@sentry/deno with npm's deno, and the newest sentry-sdk 2.x and @sentry/node beside the pinned ones
of test_real_sdks.py.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from .through_api import ErrorsApi, collector_paths
from .toolchains import NODE_LATEST, SDK_APPS, node_latest_modules, python_latest, require, require_tool

TIMEOUT = 180
# Debian's Go libraries, built offline in GOPATH mode.
GOPATH = Path("/usr/share/gocode")
MESSAGE = "queue backlog"


def run(command: list[str], *, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=TIMEOUT,
                            env={**os.environ, **(env or {})})
    assert result.returncode == 0, result.stdout + result.stderr
    return result


def check_reports(api: ErrorsApi, *, title: str, culprit: str, function: str, release: str, platform: str,
                  message_title: str = MESSAGE) -> tuple[dict, dict]:
    """The exception and the warning, as the API shows them; returns both details."""
    assert len(api.wait_for(2)) == 2, [error["title"] for error in api.errors()]
    raised = api.details(api.titled(title))
    assert (raised["culprit"], raised["level"], raised["last_release_version"], raised["environment"],
            raised["platform"]) == (culprit, "error", release, "production", platform)
    functions = api.functions(raised)
    assert function in (functions[-1] or ""), functions
    message = api.details(api.titled(message_title))
    assert (message["level"], message["last_release_version"], message["environment"]) == (
        "warning", release, "production")
    return raised, message


def test_go_sentry_go(tracked, server, tmp_path):
    go = require_tool("go", "golang-go")
    for package, source in (("golang-github-getsentry-sentry-go-dev", "getsentry/sentry-go"),
                            ("golang-github-pkg-errors-dev", "pkg/errors")):
        require((GOPATH / "src/github.com" / source).is_dir(), source, package)
    env = {"GO111MODULE": "off", "GOPATH": str(GOPATH), "GOCACHE": str(tmp_path / "cache"), "GOFLAGS": ""}
    run([go, "build", "-o", str(tmp_path / "app"), "main.go"], cwd=SDK_APPS / "go", env=env)
    run([str(tmp_path / "app"), tracked.dsn], cwd=tmp_path)
    api = ErrorsApi.of(server, tracked.id)
    check_reports(api, title="*errors.fundamental: card declined for 42", culprit="main in chargeCard",
                  function="chargeCard", release="shop-go@1.0.0", platform="go")
    assert collector_paths(server, tracked) == {"store"}


def test_ruby_sentry_ruby(tracked, server):
    ruby = require_tool("ruby", "ruby")
    check = subprocess.run([ruby, "-e", 'require "sentry-ruby"'], capture_output=True, text=True, timeout=TIMEOUT)
    require(check.returncode == 0, "sentry-ruby", "ruby-sentry-ruby")
    result = run([ruby, "app.rb", tracked.dsn], cwd=SDK_APPS / "ruby")
    # The large event went gzipped, the small message did not: both decoded by the server.
    decisions = [line.split()[0] for line in result.stdout.splitlines() if line.startswith("compressed=")]
    assert decisions == ["compressed=true", "compressed=false"]
    api = ErrorsApi.of(server, tracked.id)
    check_reports(api, title="ArgumentError: card declined for 42", culprit="app.rb in charge_card",
                  function="charge_card", release="shop-ruby@1.0.0", platform="ruby")
    assert collector_paths(server, tracked) == {"envelope"}


def test_rust_sentry_cli_events_and_session_envelope(tracked, server):
    sdk = python_latest()
    cli = str(sdk / "bin" / "sentry-cli")
    env = {"SENTRY_DSN": tracked.dsn, "SENTRY_DISABLE_UPDATE_CHECK": "true", "SENTRY_LOAD_DOTENV": "0"}
    apps = SDK_APPS / "rust"
    run([cli, "send-event", "event.json"], cwd=apps, env=env)
    run([cli, "send-event", "--message", MESSAGE, "--level", "warning", "--release", "shop-rust@1.0.0",
         "--env", "production", "--no-environ"], cwd=apps, env=env)
    run([cli, "send-envelope", "sessions.envelope"], cwd=apps, env=env)
    api = ErrorsApi.of(server, tracked.id)
    raised, _ = check_reports(api, title="CardDeclined: card declined for 42",
                              culprit="shop::billing::charge_card",  # native: the function alone
                              function="charge_card", release="shop-rust@1.0.0", platform="native")
    (health,) = raised["release_health"]
    assert (health["release"], health["sessions"], health["crashed"], health["crash_free_rate"]) == (
        "shop-rust@1.0.0", 2, 1, 50.0)


def test_deno_sentry_deno(tracked, server):
    modules = node_latest_modules()
    deno = str(modules / ".bin" / "deno")
    run([deno, "run", "--allow-all", "--no-prompt", "deno_app.ts", tracked.dsn], cwd=NODE_LATEST,
        env={"DENO_NO_UPDATE_CHECK": "1", "NO_COLOR": "1"})
    api = ErrorsApi.of(server, tracked.id)
    check_reports(api, title="TypeError: card declined for 42", culprit="chargeCard(app:///deno_app.ts)",
                  function="chargeCard", release="shop-deno@1.0.0", platform="javascript")


def test_newest_python_sentry_sdk(tracked, server):
    sdk = python_latest()
    # The suite's interpreter, with the newest SDK ahead of the pinned 1.21.0 of its own environment.
    result = run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(sdk)!r});"
                  f" sys.argv[1:] = [{tracked.dsn!r}]; exec(open({str(SDK_APPS / 'python_latest.py')!r}).read())"],
                 cwd=SDK_APPS)
    assert result.stdout.startswith("sentry-sdk 2."), result.stdout
    api = ErrorsApi.of(server, tracked.id)
    check_reports(api, title="ValueError: card declined for 42", culprit="__main__ in charge_card",
                  function="charge_card", release="shop-python@2.0.0", platform="python")


def test_newest_node_sentry_sdk(tracked, server):
    node_latest_modules()
    run(["node", "node_app.js", tracked.dsn], cwd=NODE_LATEST)
    api = ErrorsApi.of(server, tracked.id)
    _, message = check_reports(api, title="TypeError: card declined for 42", culprit="chargeCard(node_app)",
                               function="chargeCard", release="shop-node@11.0.0", platform="node",
                               message_title="main")
    # The message comes with a synthetic exception: titled like Sentry does, but its text is shown.
    assert message["message"] == MESSAGE
