"""Test support: real server processes and REST helpers (no mocks of our own components)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.preloaded_server import ForkedServerProcess, migrated_sqlite_database, preloaded_servers

REPO_ROOT = Path(__file__).resolve().parents[1]
# A server starts (imports, migrations, demo data) in a few seconds alone; beside the suite's other workers on
# a busy 2-core machine it can take a minute or more, and a session server that gives up fails every test of
# its worker. This only bounds a start that hangs.
START_TIMEOUT = 240
# The logs of every server this process started, for the log guard (tests/log_guard.py).
SERVER_LOGS: list[Path] = []


@dataclass
class RunningServer:
    url: str
    root_token: str
    data_dir: Path
    process: subprocess.Popen | ForkedServerProcess
    log_path: Path
    env: dict[str, str] = field(default_factory=dict)

    @property
    def api_url(self) -> str:
        return self.url + "/api/v4"

    def client(self, token: str | None = None, **kwargs) -> httpx.Client:
        headers = {"PRIVATE-TOKEN": token if token is not None else self.root_token}
        return httpx.Client(base_url=self.api_url, headers=headers, timeout=30, **kwargs)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def request_log(self) -> list[dict]:
        """The structured request log: one JSON object per line (other log lines are skipped)."""
        entries = []
        for line in self.log_text().splitlines():
            start = line.find("{")
            if start < 0:
                continue
            try:
                entry = json.loads(line[start:])
            except ValueError:
                continue
            if isinstance(entry, dict) and "request_id" in entry:
                entries.append(entry)
        return entries

    def wait_for_digest(self, timeout: float = 30) -> None:
        """Waits until every request this server answered 200 is digested, so its events are listed.

        A 200 from the collector means "queued durably"; the entry leaves the spool only after the
        digest's commit, so an empty spool means everything answered so far can be read.
        """
        deadline = time.monotonic() + timeout
        with self.client() as client:
            while True:
                status = client.get("/error_tracking/ingestion")
                assert status.status_code == 200, status.text
                if status.json()["queue"]["entries"] == 0:
                    return
                assert time.monotonic() < deadline, f"the ingest spool did not drain: {status.json()}"
                time.sleep(0.02)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.wait()


def database_url_for(data_dir: Path) -> str | None:
    """The database a test server in data_dir uses: SQLite in data_dir unless PostgreSQL is configured.

    With OUTPOST_TEST_PG_ADMIN_URL set (CI does), each data dir gets its own fresh PostgreSQL
    database, reused when a server is restarted on the same data dir.
    """
    admin_url = os.environ.get("OUTPOST_TEST_PG_ADMIN_URL")
    if not admin_url:
        return None
    marker = data_dir / ".test_database_url"
    if marker.exists():
        return marker.read_text().strip()
    import sqlalchemy

    name = "outpost_test_" + uuid.uuid4().hex[:12]
    engine = sqlalchemy.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    url = admin_url.rsplit("/", 1)[0] + "/" + name
    marker.write_text(url)
    return url


def launch_server(data_dir: Path, *, demo: bool = False, extra_env: dict[str, str] | None = None,
                  root_token: str | None = None, database_url: str | None = None, port: int = 0,
                  preloaded: bool = True) -> RunningServer:
    """Starts `outpost-server serve` on 127.0.0.1 in a process of its own and waits for its Listening line.

    Preloaded (the default), the server is forked from this test process's template that has imported it
    already (tests/preloaded_server.py), and a new SQLite database starts as a copy of one already migrated,
    which saves the imports' and the migrations' CPU; `preloaded=False` runs the real `python -m
    outpost_server` command on what the test gives it, for tests of the command or of a first start.
    """
    # The template forks and talks over SOCK_SEQPACKET Unix sockets: Linux has both, Windows neither, and
    # macOS no such socket type, so there every server runs the real command.
    preloaded = preloaded and sys.platform.startswith("linux")
    data_dir.mkdir(parents=True, exist_ok=True)
    token = root_token or "glpat-root-" + secrets.token_hex(8)
    env = {**os.environ, "OUTPOST_ROOT_TOKEN": token, "OUTPOST_LOG_LEVEL": "INFO", **(extra_env or {})}
    database_url = database_url or database_url_for(data_dir)
    if database_url:
        env["OUTPOST_DATABASE_URL"] = database_url
    database = data_dir / "outpost.sqlite3"
    if preloaded and "OUTPOST_DATABASE_URL" not in env and not database.exists():
        shutil.copyfile(migrated_sqlite_database(REPO_ROOT), database)
    arguments = ["serve", "--host", "127.0.0.1", "--port", str(port), "--data-dir", str(data_dir)]
    if demo:
        arguments.append("--demo")
    log_path = data_dir / "server.log"
    if log_path not in SERVER_LOGS:
        SERVER_LOGS.append(log_path)
    with open(log_path, "ab") as log_file:
        process: subprocess.Popen | ForkedServerProcess
        if preloaded:
            process = preloaded_servers(REPO_ROOT).start(arguments, env=env, cwd=REPO_ROOT,
                                                         stderr=log_file.fileno())
        else:
            process = subprocess.Popen([sys.executable, "-m", "outpost_server", *arguments], stdout=subprocess.PIPE,
                                       stderr=log_file, env=env, cwd=REPO_ROOT)
    url_holder: list[str] = []
    stdout = process.stdout
    assert stdout is not None  # started with stdout=PIPE

    def read_listening_line() -> None:
        for raw in stdout:
            line = raw.decode(errors="replace").strip()
            if line.startswith("Listening on "):
                url_holder.append(line.removeprefix("Listening on "))
                break
        # Keep draining stdout so the server never blocks on a full pipe.
        for _ in stdout:
            pass

    reader = threading.Thread(target=read_listening_line, daemon=True)
    reader.start()
    deadline = time.monotonic() + START_TIMEOUT
    while not url_holder and time.monotonic() < deadline and process.poll() is None:
        threading.Event().wait(0.05)
    if not url_holder:
        process.kill()
        raise RuntimeError(f"server did not start (exit code {process.wait()}):\n"
                           f"{log_path.read_text(errors='replace')[-4000:]}")
    return RunningServer(url=url_holder[0], root_token=token, data_dir=data_dir, process=process,
                         log_path=log_path, env=env)


def wait_for_digest_at(base_url: str, timeout: float = 30) -> None:
    """Waits until the server at `base_url` has digested everything it accepted, reading /-/metrics as the
    loopback address may (for callers that know a DSN but not the server's token)."""
    deadline = time.monotonic() + timeout
    while True:
        metrics = httpx.get(f"{base_url}/-/metrics", timeout=30)
        assert metrics.status_code == 200, metrics.text
        waiting = [line for line in metrics.text.splitlines() if line.startswith("outpost_ingest_queue_entries ")]
        if waiting and float(waiting[0].split()[1]) == 0:
            return
        assert time.monotonic() < deadline, f"the ingest spool did not drain: {waiting}"
        time.sleep(0.02)


@contextlib.contextmanager
def start_server(data_dir: Path, **kwargs) -> Iterator[RunningServer]:
    server = launch_server(data_dir, **kwargs)
    try:
        yield server
    finally:
        server.stop()


def start_well_inside(period: float, *, margin: float) -> None:
    """Rate limits, throttles and caps count per wall-clock period (a minute, an hour): waits, when fewer than
    `margin` seconds of the current one are left, for the next, so a test's requests all fall in one period
    even when a loaded machine makes them slow."""
    left = period - time.time() % period
    if left < margin:
        time.sleep(left + 0.5)


def unique(prefix: str = "x") -> str:
    return f"{prefix}{uuid.uuid4().hex[:10]}"


class ApiHelper:
    """Creates users, tokens, groups, projects and memberships through the REST API as root."""

    def __init__(self, server: RunningServer):
        self.server = server
        self.root = server.client()

    def user(self, *, admin: bool = False, scopes: tuple[str, ...] = ("api",), username: str | None = None
             ) -> tuple[dict, str]:
        """A new user and a personal access token for it."""
        username = username or unique("user")
        response = self.root.post("/users", json={"username": username, "name": username.title(),
                                                  "email": f"{username}@example.com", "password": "s3cret-pass-1",
                                                  "admin": admin})
        response.raise_for_status()
        user = response.json()
        return user, self.token(user["id"], scopes=scopes)

    def token(self, user_id: int, *, scopes: tuple[str, ...] = ("api",), expires_at: str | None = None) -> str:
        body = {"name": unique("token"), "scopes": list(scopes)}
        if expires_at:
            body["expires_at"] = expires_at
        response = self.root.post(f"/users/{user_id}/personal_access_tokens", json=body)
        response.raise_for_status()
        return response.json()["token"]

    def group(self, *, parent_id: int | None = None, visibility: str = "private") -> dict:
        path = unique("group")
        body: dict[str, str | int] = {"name": path, "path": path, "visibility": visibility}
        if parent_id is not None:
            body["parent_id"] = parent_id
        response = self.root.post("/groups", json=body)
        response.raise_for_status()
        return response.json()

    def project(self, *, group_id: int | None = None, visibility: str = "private") -> dict:
        body: dict[str, str | int] = {"name": unique("project"), "visibility": visibility}
        if group_id is not None:
            body["namespace_id"] = group_id
        response = self.root.post("/projects", json=body)
        response.raise_for_status()
        return response.json()

    def member(self, kind: str, target_id: int, user_id: int, access_level: int) -> dict:
        response = self.root.post(f"/{kind}/{target_id}/members", json={"user_id": user_id,
                                                                         "access_level": access_level})
        response.raise_for_status()
        return response.json()

    def project_with_roles(self, levels: dict[str, int]) -> tuple[dict, dict[str, str]]:
        """A fresh project and a token for a new member at each named access level."""
        project = self.project()
        tokens = {}
        for role, level in levels.items():
            user, token = self.user()
            self.member("projects", project["id"], user["id"], level)
            tokens[role] = token
        return project, tokens
