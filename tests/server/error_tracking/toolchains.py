"""The SDKs' toolchains and packages, found or installed once per test session.

CI installs the Debian packages (.ci/run) and sets OUTPOST_REQUIRE_SDKS=1, so there a missing toolchain
fails the test. Elsewhere such a test is skipped with the package to install. Packages from PyPI and npm
are installed by the tests themselves at the versions pinned in this directory.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from filelock import FileLock

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
SDK_APPS = HERE / "sdk_apps"
NODE_LATEST = HERE / "node_latest"
# Installed SDKs that are not the project's own dependencies (git-ignored).
SDK_CACHE = REPO / ".sdks"
INSTALL_TIMEOUT = 900


def require(present: bool, what: str, debian_package: str) -> None:
    """Fails (in CI) or skips (elsewhere) unless `present`."""
    if present:
        return
    reason = f"{what} is missing: apt-get install {debian_package}"
    if os.environ.get("OUTPOST_REQUIRE_SDKS") == "1":
        pytest.fail(reason + " (OUTPOST_REQUIRE_SDKS=1 makes every real SDK mandatory)")
    pytest.skip(reason)


def require_tool(command: str, debian_package: str) -> str:
    found = shutil.which(command)
    require(found is not None, f"`{command}`", debian_package)
    assert found is not None
    return found


@contextlib.contextmanager
def installing(what: str) -> Iterator[None]:
    """Held while one test process checks and installs `what`: the suite's parallel workers would otherwise
    run npm or pip into the same directory at once; a worker that waited finds the install done."""
    SDK_CACHE.mkdir(exist_ok=True)
    with FileLock(SDK_CACHE / f"{what}.lock"):
        yield


def python_latest() -> Path:
    """A directory holding the newest sentry-sdk and sentry-cli, for PYTHONPATH and PATH."""
    target = SDK_CACHE / "python-latest"
    requirements = SDK_APPS / "requirements-latest.txt"
    stamp = target / ".requirements"
    with installing("python-latest"):
        if not stamp.exists() or stamp.read_text() != requirements.read_text():
            shutil.rmtree(target, ignore_errors=True)
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                            "--target", str(target), "-r", str(requirements)], check=True, timeout=INSTALL_TIMEOUT)
            stamp.write_text(requirements.read_text())
    return target


def node_latest_modules() -> Path:
    """node_latest/ installed from its lock file (the newest @sentry/node, @sentry/deno, deno, @sentry/browser).

    `npm install` rather than `npm ci`: npm's lock holds deno's binary package for this platform only,
    which `npm ci` refuses as out of sync; `npm install` installs the locked versions all the same.
    """
    require_tool("npm", "npm")
    modules = NODE_LATEST / "node_modules"
    lock = NODE_LATEST / "package-lock.json"
    stamp = modules / ".installed-lock"
    with installing("node-latest"):
        if not stamp.exists() or stamp.read_text() != lock.read_text():
            subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--no-save"], cwd=NODE_LATEST, check=True,
                           timeout=INSTALL_TIMEOUT)
            stamp.write_text(lock.read_text())
    return modules
