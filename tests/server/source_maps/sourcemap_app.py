"""The source map fixture app (tests/fixtures/sourcemap_app): installed from npm, built with esbuild, its
maps injected and uploaded with the real sentry-cli, and run in Node or Chromium.

npm packages are pinned in the fixture's package.json and lock file; installed once per lock (git-ignored
node_modules). Without npm the tests skip, or fail under OUTPOST_REQUIRE_SDKS=1 (toolchains.require).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.server.error_tracking.toolchains import INSTALL_TIMEOUT, SDK_CACHE, installing, require_tool
from tests.support import REPO_ROOT, RunningServer

APP = REPO_ROOT / "tests" / "fixtures" / "sourcemap_app"
# sentry-cli 2.x for the legacy release flow (the 3.x line removed it), pinned.
SENTRY_CLI_2 = "sentry-cli==2.58.6"
DEBUG_ID_COMMENT = re.compile(r"//# debugId=([0-9a-fA-F-]{36})")
RUN_TIMEOUT = 120


def install_app() -> Path:
    """The fixture's node_modules, installed from its lock file when it changed."""
    require_tool("npm", "npm")
    modules = APP / "node_modules"
    lock = APP / "package-lock.json"
    stamp = modules / ".installed-lock"
    with installing("sourcemap-app"):
        if not stamp.exists() or stamp.read_text() != lock.read_text():
            subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=APP, check=True, timeout=INSTALL_TIMEOUT)
            stamp.write_text(lock.read_text())
    return modules


def build(name: str, *, plugin: dict | None = None, variant: dict | None = None) -> Path:
    """Bundles the app into dist/<name>/{browser,node}; returns dist/<name>. `variant` picks another entry
    and what else goes in (build.mjs's OUTPOST_VARIANT)."""
    install_app()
    out = APP / "dist" / name
    shutil.rmtree(out, ignore_errors=True)
    env = {**os.environ, "OUTPOST_OUT": f"dist/{name}"}
    if plugin is not None:
        env["OUTPOST_PLUGIN"] = json.dumps(plugin)
    if variant is not None:
        env["OUTPOST_VARIANT"] = json.dumps(variant)
    subprocess.run([require_tool("node", "nodejs"), "build.mjs"], cwd=APP, check=True, timeout=RUN_TIMEOUT, env=env)
    return out


def inject(directory: Path) -> Path:
    """`sentry-cli sourcemaps inject`: debug ids into the minified files and their maps (no server needed)."""
    subprocess.run([str(sentry_cli_3()), "sourcemaps", "inject", str(directory)], check=True, capture_output=True,
                   timeout=RUN_TIMEOUT)
    return directory


def debug_id_of(minified: Path) -> str:
    found = DEBUG_ID_COMMENT.search(minified.read_text())
    assert found, f"no debug id injected into {minified}"
    return found.group(1).lower()


def sentry_cli_2() -> Path:
    """A sentry-cli 2.x executable installed into the SDK cache (PyPI's sentry-cli wheel)."""
    target = SDK_CACHE / "sentry-cli-2"
    executable = target / "bin" / "sentry-cli"
    with installing("sentry-cli-2"):
        if not executable.exists():
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--target", str(target), SENTRY_CLI_2], check=True, timeout=INSTALL_TIMEOUT)
    assert executable.exists(), list(target.rglob("sentry-cli"))
    return executable


def sentry_cli_3() -> Path:
    return Path(sys.executable).parent / "sentry-cli"


@dataclass
class Uploader:
    """sentry-cli pointed at the test server with a personal access token."""

    server: RunningServer
    token: str
    organization: str
    project: str
    executable: Path

    def run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        env = {**os.environ, "SENTRY_URL": self.server.url, "SENTRY_AUTH_TOKEN": self.token,
               "SENTRY_ORG": self.organization, "SENTRY_PROJECT": self.project, "SENTRY_LOG_LEVEL": "warn",
               "SENTRY_DISABLE_UPDATE_CHECK": "1", "SENTRY_NO_PROGRESS_BAR": "1"}
        result = subprocess.run([str(self.executable), *args], env=env, capture_output=True, text=True,
                                timeout=RUN_TIMEOUT)
        if check:
            assert result.returncode == 0, f"sentry-cli {' '.join(args)}:\n{result.stdout}\n{result.stderr}"
        return result

    def inject_and_upload(self, directory: Path, *extra: str) -> None:
        self.run("sourcemaps", "inject", str(directory))
        self.run("sourcemaps", "upload", *extra, str(directory))


def run_node(directory: Path, *, dsn: str, release: str, rewrite_frames: bool = False) -> None:
    """Runs the Node build once; it reports its error and flushes before printing `sent`. With
    `rewrite_frames` the app's frames name their file `app:///app.min.js` (rewriteFramesIntegration)."""
    settings = {"dsn": dsn, "release": release, "rewriteFrames": rewrite_frames}
    env = {**os.environ, "OUTPOST_APP": json.dumps(settings),
           "NODE_PATH": str(APP / "node_modules")}
    result = subprocess.run([require_tool("node", "nodejs"), str(directory / "node" / "app.min.js")], env=env,
                            capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert result.returncode == 0 and "sent" in result.stdout, result.stdout + result.stderr
