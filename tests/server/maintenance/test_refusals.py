"""What a restore refuses, each with its message and the target left as it was; what `check` and a server
say of a database they cannot trust."""

from __future__ import annotations

import hashlib
import os
import pty
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from outpost_server.maintenance import archive
from tests.server.maintenance.commands import PASSPHRASE, command_env, outpost, server_options, sqlite_url
from tests.support import REPO_ROOT, ApiHelper, RunningServer, launch_server, wait_for_digest_at


@pytest.fixture(scope="module")
def source(tmp_path_factory) -> Iterator[RunningServer]:
    data_dir = tmp_path_factory.mktemp("source")
    # The digest never runs here (it needs more free disk than any has), so the spool keeps what arrives.
    server = launch_server(data_dir, extra_env={"OUTPOST_ERROR_TRACKING_DIGEST_MIN_FREE_BYTES": str(2**62)})
    yield server
    server.stop()


@pytest.fixture(scope="module")
def made(source) -> dict:
    helper = ApiHelper(source)
    project = helper.project()
    with source.client() as root:
        assert root.post("/admin/ci/variables", data={"key": "SEALED", "value": "v1", "masked": "false"}
                         ).status_code == 201
        assert root.put(f"/projects/{project['id']}/error_tracking/settings",
                        json={"active": True, "integrated": True}).status_code == 200
        key = root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()[0]["public_key"]
    for number in range(3):
        response = httpx.post(f"{source.url}/api/v4/error_tracking/collector/api/{project['id']}/store",
                              json={"message": f"waiting in the spool {number}", "level": "error"},
                              headers={"X-Sentry-Auth": f"Sentry sentry_key={key}"}, timeout=30)
        assert response.status_code == 200, response.text
    return {"project": project}


@pytest.fixture(scope="module")
def sealed_backup(source, made, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("backups") / "sealed.backup"
    taken = outpost("backup", "--output", str(path), *server_options(source),
                    env=command_env(OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE))
    assert taken.returncode == 0, taken.stderr
    assert "sealed with the passphrase" in taken.stdout
    return path


def restore(backup: Path, target: Path, **env: str):
    return outpost("restore", str(backup), "--data-dir", str(target), env=command_env(**env))


def files_of(folder: Path) -> dict[str, str]:
    return {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in sorted(folder.iterdir())
            if path.is_file()} if folder.exists() else {}


def test_the_spools_waiting_events_are_restored_and_digested(sealed_backup, made, tmp_path):
    manifest = archive.read_manifest(sealed_backup)
    assert manifest["spool_entries"] == 3
    assert manifest["secret_key"] == "sealed with a passphrase"
    restored = restore(sealed_backup, tmp_path / "target", OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE)
    assert restored.returncode == 0, restored.stderr
    server = launch_server(tmp_path / "target", database_url=sqlite_url(tmp_path / "target"))
    try:
        wait_for_digest_at(server.url)
        path = made["project"]["path_with_namespace"]
        listed = httpx.get(f"{server.url}/{path}/-/error_tracking.json",
                           headers={"PRIVATE-TOKEN": server.root_token}, timeout=30).json()["errors"]
        assert sorted(error["title"] for error in listed) == [f"waiting in the spool {n}" for n in range(3)]
        with server.client() as root:
            assert root.get("/admin/ci/variables/SEALED").json()["value"] == "v1"
    finally:
        server.stop()


def test_a_damaged_backup_is_refused_and_nothing_is_written(sealed_backup, tmp_path):
    data = bytearray(sealed_backup.read_bytes())
    data[len(data) // 2] ^= 0xFF
    damaged = tmp_path / "damaged.backup"
    damaged.write_bytes(bytes(data))
    cut = tmp_path / "cut.backup"
    cut.write_bytes(bytes(data[: len(data) * 3 // 4]))
    for broken in (damaged, cut):
        refused = restore(broken, tmp_path / "target", OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE)
        assert refused.returncode == 1
        assert f"{broken} is damaged: " in refused.stderr and "Nothing was restored." in refused.stderr
        assert "Traceback" not in refused.stderr
        assert files_of(tmp_path / "target") == {}


def test_a_wrong_passphrase_is_refused_and_nothing_is_written(sealed_backup, tmp_path):
    refused = restore(sealed_backup, tmp_path / "target", OUTPOST_BACKUP_PASSPHRASE="not the passphrase")
    assert refused.returncode == 1
    assert refused.stderr.strip() == ("The passphrase does not open the secret key sealed in this backup. "
                                      "Nothing was restored.")
    assert files_of(tmp_path / "target") == {}
    missing = restore(sealed_backup, tmp_path / "target")
    assert missing.returncode == 1 and "sealed with a passphrase: give it with" in missing.stderr


def test_a_target_that_is_not_empty_is_refused_and_left_as_it_was(source, sealed_backup, tmp_path):
    target = tmp_path / "target"
    key = (source.data_dir / "secret_key").read_text()
    migrated = outpost("migrate", "--data-dir", str(target), env=command_env(OUTPOST_SECRET_KEY=key))
    assert migrated.returncode == 0, migrated.stderr
    before = files_of(target)
    refused = restore(sealed_backup, target, OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE, OUTPOST_SECRET_KEY=key)
    assert refused.returncode == 1
    assert refused.stderr.startswith(f"The database {target / 'outpost.sqlite3'} is not empty: it has ")
    assert files_of(target) == before


def test_a_key_left_out_must_be_given_and_must_be_the_datas(source, made, tmp_path):
    backup = tmp_path / "plain.backup"
    taken = outpost("backup", "--output", str(backup), *server_options(source), env=command_env())
    assert taken.returncode == 0, taken.stderr
    assert "The secret key is NOT in this backup" in taken.stdout
    assert archive.read_manifest(backup)["secret_key"] == "not included"
    assert (source.data_dir / "secret_key").read_bytes() not in backup.read_bytes()
    refused = restore(backup, tmp_path / "target")
    assert refused.returncode == 1 and "This backup does not hold the secret key." in refused.stderr
    wrong = restore(backup, tmp_path / "target", OUTPOST_SECRET_KEY="another key")
    assert wrong.returncode == 1 and "is not the one this backup's data was written with" in wrong.stderr
    assert files_of(tmp_path / "target") == {}
    restored = restore(backup, tmp_path / "target", OUTPOST_SECRET_KEY=(source.data_dir / "secret_key").read_text())
    assert restored.returncode == 0, restored.stderr


def test_a_backup_from_a_newer_outpost_is_refused_naming_both_versions(sealed_backup, tmp_path):
    newer = tmp_path / "newer.backup"
    writer = archive.BackupWriter(newer)
    for name, data in archive.members(sealed_backup):
        if name == archive.MANIFEST:
            manifest = archive._json(name, data)
            manifest.update(outpost_version="99.0.0", schema_revisions=["9999_from_the_future"])
            writer.add_json(name, manifest)
        elif name != archive.CHECKSUMS:
            writer.add(name, data)
    writer.close()
    refused = restore(newer, tmp_path / "target", OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE)
    assert refused.returncode == 1
    assert "taken by Outpost 99.0.0 at schema revision 9999_from_the_future, newer than this Outpost 0." \
        in refused.stderr
    assert files_of(tmp_path / "target") == {}


def test_check_names_the_values_the_key_does_not_open(sealed_backup, tmp_path):
    target = tmp_path / "target"
    assert restore(sealed_backup, target, OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE).returncode == 0
    passed = outpost("check", "--data-dir", str(target), env=command_env())
    assert passed.returncode == 0, passed.stdout
    failed = outpost("check", "--data-dir", str(target), env=command_env(OUTPOST_SECRET_KEY="a different key"))
    assert failed.returncode == 1
    assert "FAIL  Sealed values: 1 of 1 in ci_instance_variables.encrypted_value do not open" in failed.stdout
    assert "FAIL  Spool: 3 of the first 3 entries do not open" in failed.stdout


def test_a_server_refuses_a_database_newer_than_itself_and_changes_nothing(tmp_path):
    data_dir = tmp_path / "data"
    assert outpost("migrate", "--data-dir", str(data_dir), env=command_env()).returncode == 0
    database = data_dir / "outpost.sqlite3"
    with sqlite3.connect(database) as connection:
        changed = connection.execute("UPDATE alembic_version SET version_num = '9999_from_the_future' "
                                     "WHERE version_num = (SELECT min(version_num) FROM alembic_version)")
        assert changed.rowcount == 1
    connection.close()
    before = files_of(data_dir)
    for command in (["serve", "--port", "0"], ["migrate"]):
        refused = outpost(*command, "--data-dir", str(data_dir), env=command_env(), timeout=120)
        assert refused.returncode == 1
        assert refused.stderr.startswith("The database is at schema revision ")
        assert "9999_from_the_future" in refused.stderr and "which this Outpost (0." in refused.stderr
        assert "Traceback" not in refused.stderr
    assert files_of(data_dir) == before


@pytest.mark.expected_log(r"WARNING outpost\.app Check: Sealed values: 1 of 1 in ci_instance_variables")
def test_serve_logs_checks_findings_at_start(sealed_backup, tmp_path):
    target = tmp_path / "target"
    assert restore(sealed_backup, target, OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE).returncode == 0
    with sqlite3.connect(target / "outpost.sqlite3") as connection:
        connection.execute("UPDATE ci_instance_variables SET encrypted_value = 'not sealed with any key'")
    connection.close()
    server = launch_server(target, database_url=sqlite_url(target))
    try:
        log = server.log_text()
    finally:
        server.stop()
    assert "INFO outpost.app Check: Schema: at head" in log
    assert ("WARNING outpost.app Check: Sealed values: 1 of 1 in ci_instance_variables.encrypted_value "
            "do not open with the configured secret key") in log


def test_a_backup_on_a_terminal_shows_how_far_it_is(source, made, tmp_path):
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "outpost_server", "backup", "--output",
                                str(tmp_path / "b.backup"), *server_options(source)],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=follower,
                               env=command_env(), cwd=REPO_ROOT)
    os.close(follower)
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other side closed: the command is done
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    assert process.wait(timeout=120) == 0
    assert re.search(rb"\rBacking up: [\d,]+ of [\d,]+ rows \(100%\)\r?\n", shown), shown
