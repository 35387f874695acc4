"""Every earlier release's data upgrades to this one and reads back the same through the API.

tests/fixtures/releases/ holds, per release (the state of main where each round of work landed), a SQLite
database written by that release's own server through its REST API, and what that API answered then
(record_release.py), and the same on PostgreSQL as pg_dump wrote it (`.pg.sql.gz`, run when
OUTPOST_TEST_PG_ADMIN_URL is set, as CI's PostgreSQL pass does). The `-demo` ones hold a release's demo
data, as the console keeps it in its local-server folder, which must survive an upgrade of the console.
Here this server starts on a copy of each, migrates it, and must answer every one of those reads with the
same values: fields added since may be new, nothing recorded may change or go.
"""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import psycopg
import pytest

from outpost_server.maintenance import archive
from outpost_server.migrations import head_revisions
from tests.support import REPO_ROOT, database_url_for, launch_server

RELEASES = REPO_ROOT / "tests" / "fixtures" / "releases"
# What changed on purpose, per release: where (the end of a difference's path) and why.
# Read relative to the clock, so never the same twice: an error's frequency, the counts of the last 24 hours.
RELATIVE_TO_NOW = (".frequency",)
CHANGED = {
    # Before namespaces (0007) a personal namespace was shown with its user's id; 0007 gave each one an id
    # of its own from the namespaces' sequence, as GitLab has one id space for groups and users' namespaces.
    "2026-11-22-eb2a394": (".namespace.id",),
}


def _releases(suffix: str) -> list[str]:
    return sorted(path.name.removesuffix(suffix) for path in RELEASES.glob(f"*{suffix}"))


def differences(recorded: Any, now: Any, where: str = "") -> list[str]:
    """Where `now` lacks or changes what `recorded` holds (what `now` has beyond it is fine)."""
    if isinstance(recorded, dict):
        if not isinstance(now, dict):
            return [f"{where}: {now!r} is not an object"]
        return [found for key, value in recorded.items() for found in (
            differences(value, now[key], f"{where}.{key}") if key in now else [f"{where}.{key}: gone"])]
    if isinstance(recorded, list):
        if not isinstance(now, list) or len(now) != len(recorded):
            return [f"{where}: {len(recorded)} items then, {now!r} now"]
        if all(isinstance(item, dict) and "id" in item for item in recorded + now):
            # A list's default order may have changed since (GET /users is newest first now): by id.
            recorded, now = (sorted(items, key=lambda item: str(item["id"])) for items in (recorded, now))
        return [found for index, (then, later) in enumerate(zip(recorded, now, strict=True))
                for found in differences(then, later, f"{where}[{index}]")]
    return [] if recorded == now else [f"{where}: {recorded!r} then, {now!r} now"]


def test_the_reader_of_differences_sees_a_change_and_allows_an_addition():
    assert differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 2, "c": 3}], "d": 4}) == []
    assert differences({"a": [1, {"b": 2}]}, {"a": [1, {"b": 5}]}) == [".a[1].b: 2 then, 5 now"]
    assert differences({"a": 1}, {}) == [".a: gone"]


@pytest.mark.parametrize("release", _releases(".sqlite3.gz"))
def test_a_release_upgrades_and_reads_back_the_same(tmp_path, release):
    database = tmp_path / "outpost.sqlite3"
    database.write_bytes(gzip.decompress((RELEASES / f"{release}.sqlite3.gz").read_bytes()))
    upgrade_and_read(tmp_path, release, json.loads((RELEASES / f"{release}.json").read_text()),
                     f"sqlite:///{database}")


@pytest.mark.parametrize("release", _releases(".pg.sql.gz"))
def test_a_release_upgrades_and_reads_back_the_same_on_postgresql(tmp_path, release):
    admin = os.environ.get("OUTPOST_TEST_PG_ADMIN_URL")
    if not admin:
        pytest.skip("needs PostgreSQL: set OUTPOST_TEST_PG_ADMIN_URL")
    url = database_url_for(tmp_path)
    assert url is not None
    dump = gzip.decompress((RELEASES / f"{release}.pg.sql.gz").read_bytes()).decode()
    with psycopg.connect(url.replace("postgresql+psycopg://", "postgresql://"), autocommit=True) as connection:
        connection.execute(dump)  # pg_dump's statements, run as one script
    upgrade_and_read(tmp_path, release, json.loads((RELEASES / f"{release}.pg.json").read_text()), url)


def upgrade_and_read(data_dir: Path, release: str, recorded: dict, database_url: str) -> None:
    (data_dir / "secret_key").write_text(recorded["secret_key"])
    # A demo release's data dir is the console's local-server folder: its server starts with --demo again.
    server = launch_server(data_dir, root_token=recorded["root_token"], database_url=database_url,
                           demo=recorded.get("demo", False))
    try:
        host = server.url.removeprefix("http://")
        found = []
        for read, then in recorded["reads"].items():
            token = recorded["root_token"]
            if read.startswith("token:"):
                read, token = read.removeprefix("token:"), recorded["user_token"]
            response = httpx.get(server.url + read, headers={"PRIVATE-TOKEN": token}, timeout=30)
            assert response.status_code == 200, (read, response.text)
            now = json.loads(response.text.replace(host, "SERVER"))
            found += [f"{read}{where}" for where in differences(then, now)
                      if not where.split(":")[0].endswith(CHANGED.get(release, ()))
                      and not any(f"{key}[" in where or f"{key}:" in where for key in RELATIVE_TO_NOW)]
        assert found == []
    finally:
        server.stop()


@pytest.mark.parametrize("release", ["2026-11-22-eb2a394", "2026-11-25-d0e54bc"])
def test_a_backup_of_a_release_restores_into_this_one_and_is_migrated(tmp_path, release):
    """A backup taken of a database still at an earlier release's schema: restore makes that schema, loads
    the rows, then migrates them, and everything reads back as that release answered."""
    old = tmp_path / "old"
    old.mkdir()
    (old / "outpost.sqlite3").write_bytes(gzip.decompress((RELEASES / f"{release}.sqlite3.gz").read_bytes()))
    recorded = json.loads((RELEASES / f"{release}.json").read_text())
    (old / "secret_key").write_text(recorded["secret_key"])
    env = {name: value for name, value in os.environ.items() if not name.startswith("OUTPOST_")}
    env["OUTPOST_BACKUP_PASSPHRASE"] = "an old release's backup"
    for arguments in (["backup", "--data-dir", str(old), "--output", str(tmp_path / "old.backup")],
                      ["restore", str(tmp_path / "old.backup"), "--data-dir", str(tmp_path / "new")]):
        ran = subprocess.run([sys.executable, "-m", "outpost_server", *arguments], capture_output=True, text=True,
                             env=env, cwd=REPO_ROOT, timeout=300)
        assert ran.returncode == 0, ran.stderr
    manifest = archive.read_manifest(tmp_path / "old.backup")
    assert manifest["schema_revisions"] != head_revisions()
    upgrade_and_read(tmp_path / "new", release, recorded, f"sqlite:///{tmp_path / 'new' / 'outpost.sqlite3'}")
