"""The administrator's round trip: a backup taken while the real Python SDK sends events restores into SQLite
and into PostgreSQL, `check` passes, everything reads back the same through the API, and the old DSN's next
event joins its old error."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy

from outpost_server.maintenance.loading import id_sequences
from tests.server.maintenance.commands import (
    PASSPHRASE,
    command_env,
    new_pg_database,
    outpost,
    pg_admin_url,
    server_options,
    sqlite_url,
)
from tests.support import ApiHelper, RunningServer, launch_server

HERE = Path(__file__).parent
LINK = re.compile(r'<(?P<url>[^>]+)>; rel="next"; results="true"')
# Read through the REST API on both servers; every object made before the backup must come back the same.
STATIC_READS = ("/users?per_page=100", "/groups?per_page=100", "/projects?per_page=100&order_by=id",
                "/admin/ci/variables?per_page=100", "/personal_access_tokens?per_page=100")


class Sender:
    """sdk_sender.py in a process of its own; the event ids the server has answered, as they are told."""

    def __init__(self, dsn: str, stop_file: Path):
        self.stop_file = stop_file
        self.acked: list[str] = []
        self.process = subprocess.Popen([sys.executable, str(HERE / "sdk_sender.py"), dsn, str(stop_file)],
                                        stdout=subprocess.PIPE, text=True)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            if line.startswith("acked "):
                self.acked.append(line.split()[1].replace("-", ""))

    def wait_for(self, count: int) -> None:
        deadline = time.monotonic() + 120
        while len(self.acked) < count:
            assert self.process.poll() is None and time.monotonic() < deadline, "the SDK stopped sending"
            time.sleep(0.05)

    def stop(self) -> None:
        self.stop_file.touch()
        assert self.process.wait(timeout=120) == 0
        self._reader.join(timeout=30)


def make_objects(server: RunningServer) -> dict:
    helper = ApiHelper(server)
    user, token = helper.user()
    group = helper.group()
    project = helper.project(group_id=group["id"])
    other = helper.project()
    with server.client() as root:
        assert root.post("/admin/ci/variables", data={"key": "DEPLOY_KEY", "value": "s3cret-value-1",
                                                      "masked": "true"}).status_code == 201
        assert root.post("/admin/ci/variables", data={"key": "REGION", "value": "eu-west"}).status_code == 201
        for tracked in (project, other):
            setting = root.put(f"/projects/{tracked['id']}/error_tracking/settings",
                               json={"active": True, "integrated": True})
            assert setting.status_code == 200, setting.text
        keys = root.get(f"/projects/{project['id']}/error_tracking/client_keys").json()
    return {"project": project, "token": token, "dsn": keys[0]["sentry_dsn"], "user": user}


def static_state(server: RunningServer, project: dict) -> dict:
    """What the API says of the objects, with the server's own address (in links and DSNs) and the tokens'
    last use left out."""
    with server.client() as root:
        state = {path: root.get(path).text for path in STATIC_READS}
        for suffix in ("error_tracking/settings", "error_tracking/client_keys"):
            state[suffix] = root.get(f"/projects/{project['id']}/{suffix}").text
    host = server.url.removeprefix("http://")
    return {path: _without_use(json.loads(text.replace(host, "SERVER"))) for path, text in state.items()}


def _without_use(value):
    """A token's last_used_at moves with every read (at most once a while), on both servers after the backup."""
    if isinstance(value, list):
        return [_without_use(item) for item in value]
    if isinstance(value, dict):
        return {key: _without_use(item) for key, item in value.items() if key != "last_used_at"}
    return value


def errors_of(server: RunningServer, project: dict) -> list[dict]:
    server.wait_for_digest(timeout=120)
    url = f"{server.url}/{project['path_with_namespace']}/-/error_tracking.json"
    found = []
    for status in ("unresolved", "resolved", "ignored"):
        response = httpx.get(url, params={"issue_status": status}, headers={"PRIVATE-TOKEN": server.root_token},
                             timeout=30)
        assert response.status_code == 200, response.text
        found += response.json()["errors"]
    return sorted(found, key=lambda error: error["id"])


def event_ids(server: RunningServer, error_id: int) -> list[str]:
    ids: list[str] = []
    url: str | None = f"{server.url}/api/0/issues/{error_id}/events/"
    with httpx.Client(headers={"Authorization": f"Bearer {server.root_token}"}, timeout=30) as client:
        while url:
            page = client.get(url)
            assert page.status_code == 200, page.text
            ids += [event["eventID"] for event in page.json()]
            following = LINK.search(page.headers.get("link", ""))
            url = following["url"] if following else None
    return ids


def sequences_behind(database_url: str) -> list[str]:
    """PostgreSQL: the id sequences that would hand out an id a restored row has (the event tables' too)."""
    engine = sqlalchemy.create_engine(database_url)
    try:
        with engine.connect() as connection:
            found = id_sequences(connection)
            assert any(table == "error_tracking_error_events" for table, _, _ in found)
            return [f"{table}.{column}" for table, column, sequence in found if connection.execute(sqlalchemy.text(
                f'SELECT (SELECT coalesce(max("{column}"), 0) FROM "{table}") > '
                f"(SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM {sequence})")).scalar()]
    finally:
        engine.dispose()


def restore_and_read(backup: Path, target_dir: Path, database_url: str, source: dict) -> None:
    options = ["--data-dir", str(target_dir)]
    if not database_url.startswith("sqlite"):
        options += ["--database-url", database_url]
    env = command_env(OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE)
    restored = outpost("restore", str(backup), *options, env=env)
    assert restored.returncode == 0, restored.stderr
    if not database_url.startswith("sqlite"):
        assert sequences_behind(database_url) == []
    checked = outpost("check", *options, env=command_env())
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "FAIL" not in checked.stdout
    server = launch_server(target_dir, database_url=database_url, root_token=source["root_token"])
    try:
        project = source["project"]
        assert static_state(server, project) == source["static"]
        with server.client(source["token"]) as user:
            assert user.get("/user").json()["id"] == source["user"]["id"]
        errors = errors_of(server, project)
        assert [(e["id"], e["title"], e["status"]) for e in errors] == source["errors"]
        restored_events = set()
        for error in errors:
            ids = event_ids(server, error["id"])
            assert len(ids) == len(set(ids)) == error["count"], error
            restored_events.update(ids)
        # One point in time: everything answered before the backup began is in it, nothing twice, nothing
        # invented; what arrived while it ran is in it or not, whole.
        assert set(source["acked_before"]) <= restored_events <= set(source["acked_all"])
        counts = {error["id"]: error["count"] for error in errors}
        # The old DSN, its key and project as they were, at the address the restored server has.
        dsn = source["dsn"].replace(source["url"].removeprefix("http://"), server.url.removeprefix("http://"))
        sent = subprocess.run([sys.executable, str(HERE / "sdk_sender.py"), dsn, "once"],
                              capture_output=True, text=True, timeout=120, input="")
        assert sent.returncode == 0, sent.stderr
        after = {error["id"]: error["count"] for error in errors_of(server, project)}
        assert set(after) == set(counts), "the old DSN's events made a new error"
        assert sum(after.values()) > sum(counts.values())
    finally:
        server.stop()


@pytest.mark.budget(300)
@pytest.mark.parametrize("source_kind", ["sqlite", "postgresql"])
def test_a_backup_taken_while_events_arrive_restores_whole(tmp_path, source_kind):
    source_dir = tmp_path / "source"
    source_dir.mkdir()
    database_url = sqlite_url(source_dir) if source_kind == "sqlite" else new_pg_database()
    server = launch_server(source_dir, database_url=database_url)
    try:
        made = make_objects(server)
        sender = Sender(made["dsn"], tmp_path / "stop-sending")
        sender.wait_for(40)
        errors = errors_of(server, made["project"])
        assert len(errors) == 3
        with server.client() as root:
            path = made["project"]["path_with_namespace"]
            ignored = httpx.put(f"{server.url}/{path}/-/error_tracking/{errors[0]['id']}.json",
                                 json={"status": "ignored"}, headers={"PRIVATE-TOKEN": server.root_token})
            assert ignored.status_code == 200, ignored.text
            assert root.get("/user").status_code == 200
        acked_before = list(sender.acked)
        backup = tmp_path / "outpost.backup"
        taken = outpost("backup", "--output", str(backup), *server_options(server),
                        env=command_env(OUTPOST_BACKUP_PASSPHRASE=PASSPHRASE))
        assert taken.returncode == 0, taken.stderr
        sender.stop()
        static = static_state(server, made["project"])
        source = {**made, "root_token": server.root_token, "url": server.url, "static": static,
                  "acked_before": acked_before, "acked_all": list(sender.acked),
                  "errors": [(error["id"], error["title"], error["status"])
                             for error in errors_of(server, made["project"])]}
    finally:
        server.stop()
    restore_and_read(backup, tmp_path / "into-sqlite", sqlite_url(tmp_path / "into-sqlite"), source)
    if source_kind == "postgresql" or _has_postgresql():
        restore_and_read(backup, tmp_path / "into-postgresql", new_pg_database(), source)


def _has_postgresql() -> bool:
    try:
        pg_admin_url()
    except pytest.skip.Exception:
        return False
    return True
