"""The data dir is the server user's alone: the directory 0700 and every file in it 0600, the SQLite database
with its -wal and -shm included, whatever the umask it was started with, and what an older version left
readable is tightened at start."""

from __future__ import annotations

import os
import sqlite3
import stat

from tests.e2e.test_ingest_faults import send_one, tracked_project
from tests.support import launch_server


def _modes(root) -> dict[str, int]:
    modes = {".": stat.S_IMODE(os.stat(root).st_mode)}
    for folder, folders, files in os.walk(root):
        for name in folders + files:
            path = os.path.join(folder, name)
            modes[os.path.relpath(path, root)] = stat.S_IMODE(os.lstat(path).st_mode)
    return modes


def test_every_file_of_the_data_dir_is_private(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir(mode=0o755)
    data_dir.chmod(0o755)
    # What an older version left: a world-readable database and folder.
    old = data_dir / "old-export"
    old.mkdir(mode=0o755)
    (old / "report.csv").write_text("a,b\n")
    (old / "report.csv").chmod(0o644)
    previous = os.umask(0o022)
    try:
        # The real command on an empty data dir: the server creates every file itself.
        server = launch_server(data_dir, preloaded=False)
    finally:
        os.umask(previous)
    try:
        project_id, key = tracked_project(server)
        assert send_one(server, key, project_id).status_code == 200
        server.wait_for_digest()
        modes = _modes(data_dir)
    finally:
        server.stop()
    if not os.environ.get("OUTPOST_TEST_PG_ADMIN_URL"):
        assert {"outpost.sqlite3", "outpost.sqlite3-wal", "outpost.sqlite3-shm"} <= set(modes), sorted(modes)
    assert "secret_key" in modes and "old-export/report.csv" in modes, sorted(modes)
    assert {name: oct(mode) for name, mode in modes.items()
            if mode != (0o700 if os.path.isdir(data_dir / name) else 0o600)} == {}


def test_a_database_file_created_before_is_made_private(tmp_path):
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    database = data_dir / "outpost.sqlite3"
    sqlite3.connect(database).close()
    database.chmod(0o644)
    server = launch_server(data_dir)
    server.stop()
    assert stat.S_IMODE(database.stat().st_mode) == 0o600
