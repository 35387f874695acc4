"""Bugsink 2.6.1, a Sentry-compatible peer, run beside Outpost so both take the same load in one run.

It is installed from PyPI into a virtualenv of its own (`.venv/peers/bugsink-2.6.1`, made once), configured
with its `local` template (SQLite; events digested while the request is answered, so an answered event is a
stored event) and its per-project and global rate limits raised as its documentation advises for stress
tests, and served by gunicorn with the worker count of its Docker image (CPUs, at most 4).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

VERSION = "2.6.1"
REPO_ROOT = Path(__file__).resolve().parents[1]
VENV = REPO_ROOT / ".venv" / "peers" / f"bugsink-{VERSION}"
UNLIMITED = """
BUGSINK.update({
    "MAX_EVENTS_PER_PROJECT_PER_5_MINUTES": 10**9, "MAX_EVENTS_PER_PROJECT_PER_HOUR": 10**9,
    "MAX_EVENTS_PER_PROJECT_PER_MONTH": 10**12, "MAX_EVENTS_PER_5_MINUTES": 10**9,
    "MAX_EVENTS_PER_HOUR": 10**9, "MAX_EVENTS_PER_MONTH": 10**12,
})
"""
CREATE_PROJECT = """
from teams.models import Team
from projects.models import Project
project = Project.objects.create(name="bench", team=Team.objects.create(name="bench"))
print(project.id, project.sentry_key.hex)
"""


def ensure_installed() -> Path:
    """The peer's virtualenv, created and filled on first use."""
    if not (VENV / "bin" / "gunicorn").exists():
        print(f"installing Bugsink {VERSION} into its own virtualenv (once)…", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VENV / "bin" / "python"), "-m", "pip", "install", "--quiet", f"bugsink=={VERSION}"],
                       check=True)
    return VENV


class BugsinkPeer:
    def __init__(self, work_dir: Path, port: int):
        self.dir = work_dir
        self.port = port
        self.process: subprocess.Popen | None = None
        self.project_id = 0
        self.public_key = ""
        bin_dir = ensure_installed() / "bin"
        self.env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
                    "DJANGO_SETTINGS_MODULE": "bugsink_conf", "PYTHONPATH": str(self.dir)}

    def _run(self, *command: str) -> str:
        return subprocess.run(command, cwd=self.dir, env=self.env, check=True, capture_output=True,
                              text=True).stdout

    def start(self) -> subprocess.Popen:
        self.dir.mkdir(parents=True, exist_ok=True)
        self._run("bugsink-create-conf", "--template=local", f"--port={self.port}", "--host=127.0.0.1")
        with open(self.dir / "bugsink_conf.py", "a") as conf:
            conf.write(UNLIMITED)
        self._run("bugsink-manage", "migrate", "-v0")
        project_id, public_key = self._run("bugsink-manage", "shell", "-c", CREATE_PROJECT).split()[-2:]
        self.project_id, self.public_key = int(project_id), public_key
        workers = str(min(os.cpu_count() or 1, 4))
        log = open(self.dir / "gunicorn.log", "ab")
        self.process = subprocess.Popen(
            ["gunicorn", "--bind", f"127.0.0.1:{self.port}", "--workers", workers, "--log-level", "warning",
             "bugsink.wsgi"], cwd=self.dir, env=self.env, stdout=subprocess.DEVNULL, stderr=log)
        return self.process

    @property
    def store_path(self) -> str:
        return f"/api/{self.project_id}/store/"

    def stored_events(self) -> int:
        with sqlite3.connect(f"file:{self.dir / 'db.sqlite3'}?mode=ro", uri=True, timeout=30) as connection:
            return connection.execute("SELECT COUNT(*) FROM events_event").fetchone()[0]
