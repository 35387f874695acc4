"""Running `outpost-server backup`, `restore` and `check` as an administrator does, and fresh targets."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy

from tests.support import REPO_ROOT, RunningServer

PASSPHRASE = "correct horse battery staple"


def outpost(*arguments: str, env: dict[str, str] | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """`outpost-server ARGUMENTS`, in a process of its own, with the environment given (or this one)."""
    return subprocess.run([sys.executable, "-m", "outpost_server", *arguments], capture_output=True, text=True,
                          env=env if env is not None else dict(os.environ), cwd=REPO_ROOT, timeout=timeout)


def command_env(**variables: str) -> dict[str, str]:
    """This environment without the OUTPOST_ settings a test server may have left, plus `variables`."""
    env = {name: value for name, value in os.environ.items() if not name.startswith("OUTPOST_")}
    return {**env, **variables}


def server_options(server: RunningServer) -> list[str]:
    """The --data-dir and --database-url a server runs with, as the commands take them."""
    options = ["--data-dir", str(server.data_dir)]
    if server.env.get("OUTPOST_DATABASE_URL"):
        options += ["--database-url", server.env["OUTPOST_DATABASE_URL"]]
    return options


def pg_admin_url() -> str:
    url = os.environ.get("OUTPOST_TEST_PG_ADMIN_URL")
    if not url:
        pytest.skip("needs PostgreSQL: set OUTPOST_TEST_PG_ADMIN_URL")
    return url


def new_pg_database() -> str:
    """A new, empty PostgreSQL database; its URL."""
    admin = pg_admin_url()
    name = "outpost_restore_" + uuid.uuid4().hex[:12]
    engine = sqlalchemy.create_engine(admin, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin.rsplit("/", 1)[0] + "/" + name


def sqlite_url(data_dir: Path) -> str:
    return f"sqlite:///{(data_dir / 'outpost.sqlite3').resolve()}"
