"""Records tests/fixtures/releases/NAME.sqlite3.gz and NAME.json: data written by an earlier release of the server
through its own REST API, and what that API then answered.

    python -m tests.server.migrations.record_release COMMIT NAME [--demo] [--postgres ADMIN_URL]

It checks COMMIT out into a temporary worktree, runs that checkout's `outpost-server serve` (its own code,
this environment's packages) on a new data dir with a fixed secret key and root token, and writes through its
API: a user with a token, a group, projects in it and in the user's namespace, instance variables (one masked),
integrated error tracking with a client key, events through the collector, and one error resolved. Each read
of READS (and each error's details) that the release answers 200 is kept with its body; the database is
compacted into the fixture (VACUUM INTO, gzip'd). With --demo it writes nothing itself: the release's
`serve --demo` data, as the console's demo keeps it in its local-server folder, is read instead. With
--postgres the release runs on a new PostgreSQL database instead, kept as NAME.pg.sql.gz (pg_dump's plain
SQL with INSERTs, no owners, no psql meta-commands).
tests/server/migrations/test_upgrade_from_releases.py upgrades it.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import httpx

REPO_ROOT = Path(__file__).resolve().parents[3]
FIXTURES = REPO_ROOT / "tests" / "fixtures" / "releases"
SECRET_KEY = "release-fixture-secret-key"
ROOT_TOKEN = "glpat-release-fixture-root"
READS = ("/users?per_page=100", "/groups?per_page=100", "/projects?per_page=100",
         "/admin/ci/variables?per_page=100", "/user")


def serve(checkout: Path, data_dir: Path, *, demo: bool, database_url: str | None
          ) -> tuple[subprocess.Popen, str]:
    env = {**os.environ, "PYTHONPATH": str(checkout / "server"), "OUTPOST_SECRET_KEY": SECRET_KEY,
           "OUTPOST_ROOT_TOKEN": ROOT_TOKEN}
    env.pop("OUTPOST_DATABASE_URL", None)
    if database_url:
        env["OUTPOST_DATABASE_URL"] = database_url
    arguments = ["serve", "--port", "0", "--data-dir", str(data_dir), *(["--demo"] if demo else [])]
    process = subprocess.Popen([sys.executable, "-m", "outpost_server", *arguments], stdout=subprocess.PIPE,
                               text=True, env=env, cwd=checkout)
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith("Listening on "):
            return process, line.split()[-1]
    raise RuntimeError(f"the server of {checkout} did not start")


def write(url: str) -> dict:
    root = httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30)

    def ok(response: httpx.Response) -> dict:
        assert response.status_code in (200, 201), (response.request.url, response.status_code, response.text)
        return response.json()

    user = ok(root.post("/users", json={"username": "Alice", "name": "Alice Example", "email": "alice@example.com",
                                        "password": "a-long-password-1", "skip_confirmation": True}))
    token = ok(root.post(f"/users/{user['id']}/personal_access_tokens", json={"name": "ci", "scopes": ["api"]}))
    group = ok(root.post("/groups", json={"name": "Shop", "path": "shop"}))
    project = ok(root.post("/projects", json={"name": "Webshop", "path": "webshop", "namespace_id": group["id"]}))
    alice = httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": token["token"]}, timeout=30)
    ok(alice.post("/projects", json={"name": "Notes", "path": "notes"}))
    ok(root.post("/admin/ci/variables", json={"key": "DEPLOY_TOKEN", "value": "release-secret-1", "masked": True}))
    ok(root.post("/admin/ci/variables", json={"key": "REGION", "value": "eu-west-1"}))
    ok(root.put(f"/projects/{project['id']}/error_tracking/settings", json={"active": True, "integrated": True}))
    key = ok(root.get(f"/projects/{project['id']}/error_tracking/client_keys"))[0]["public_key"]
    for number, title in enumerate(("Checkout failed", "Checkout failed", "Cart empty", "Checkout failed")):
        event = {"event_id": uuid.uuid4().hex, "timestamp": time.time() - 60 + number, "platform": "python",
                 "level": "error", "environment": "production", "release": "shop@1.0.0",
                 "tags": {"region": "eu"}, "user": {"id": f"u{number % 2}"}, "fingerprint": [title],
                 "exception": {"values": [{"type": "RuntimeError", "value": title, "stacktrace": {"frames": [
                     {"filename": "shop/cart.py", "function": "checkout", "lineno": 10 + number, "in_app": True}]}}]}}
        stored = httpx.post(f"{url}/api/v4/error_tracking/collector/api/{project['id']}/store", json=event,
                            headers={"X-Sentry-Auth": f"Sentry sentry_key={key}"}, timeout=30)
        assert stored.status_code == 200, stored.text
    path = project["path_with_namespace"]
    errors_url = f"{url}/{path}/-/error_tracking.json"
    deadline = time.monotonic() + 60
    while True:
        errors = httpx.get(errors_url, headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30).json()["errors"]
        if sum(error["count"] for error in errors) == 4 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    cart = next(error for error in errors if error["title"].endswith("Cart empty"))
    resolved = httpx.put(f"{url}/{path}/-/error_tracking/{cart['id']}.json", json={"status": "resolved"},
                         headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30)
    assert resolved.status_code == 200, resolved.text
    return {"project": project, "token": token["token"], "user_id": user["id"]}


def read_demo(url: str) -> dict[str, object]:
    """The demo's objects: the lists, and each project's errors."""
    reads: dict[str, object] = {}
    with httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30) as root:
        for path in READS:
            reads["/api/v4" + path] = root.get(path).json()
        projects = root.get("/projects?per_page=100").json()
    for project in projects:
        listed = httpx.get(f"{url}/{project['path_with_namespace']}/-/error_tracking.json",
                           headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30)
        if listed.status_code == 200:
            reads[f"/{project['path_with_namespace']}/-/error_tracking.json"] = listed.json()
    return reads


def read(url: str, made: dict) -> dict[str, object]:
    reads: dict[str, object] = {}
    project = made["project"]
    paths = [*READS, f"/projects/{project['id']}/error_tracking/settings",
             f"/projects/{project['id']}/error_tracking/client_keys"]
    with httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30) as root:
        for path in paths:
            response = root.get(path)
            if response.status_code == 200:
                reads["/api/v4" + path] = response.json()
    base = f"/{project['path_with_namespace']}/-/error_tracking"
    for status in ("unresolved", "resolved"):
        listed = httpx.get(f"{url}{base}.json", params={"status": status, "issue_status": status},
                           headers={"PRIVATE-TOKEN": ROOT_TOKEN}, timeout=30)
        reads[f"{base}.json?issue_status={status}"] = listed.json()
        for error in listed.json()["errors"]:
            details = httpx.get(f"{url}{base}/{error['id']}/details.json", headers={"PRIVATE-TOKEN": ROOT_TOKEN},
                                timeout=30)
            if details.status_code == 200:
                reads[f"{base}/{error['id']}/details.json"] = details.json()
    with httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": made["token"]}, timeout=30) as alice:
        reads["token:/api/v4/user"] = alice.get("/user").json()
    return reads


def new_database(admin_url: str) -> str:
    name = "outpost_release_" + uuid.uuid4().hex[:10]
    subprocess.run([*psql(admin_url), "-c", f'CREATE DATABASE "{name}"'], check=True, capture_output=True)
    return admin_url.rsplit("/", 1)[0] + "/" + name


def psql(url: str, tool: str = "psql") -> list[str]:
    """The PostgreSQL client `tool` (psql, pg_dump) for a SQLAlchemy URL."""
    binary = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{tool}"))[-1]
    return [str(binary), "--dbname", url.replace("postgresql+psycopg://", "postgresql://")]


def record(commit: str, name: str, *, demo: bool, admin_url: str | None) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        checkout = Path(scratch) / "checkout"
        subprocess.run(["git", "worktree", "add", "--detach", str(checkout), commit], cwd=REPO_ROOT, check=True)
        try:
            data_dir = Path(scratch) / "data"
            database_url = new_database(admin_url) if admin_url else None
            process, url = serve(checkout, data_dir, demo=demo, database_url=database_url)
            try:
                if demo:
                    made, reads = {"token": ""}, read_demo(url)
                else:
                    made = write(url)
                    reads = read(url, made)
            finally:
                process.terminate()
                process.wait(timeout=60)
            FIXTURES.mkdir(parents=True, exist_ok=True)
            if database_url:
                dump = subprocess.run([*psql(database_url, "pg_dump"), "--inserts", "--no-owner", "--no-privileges"],
                                      check=True, capture_output=True).stdout
                # Only SQL: newer pg_dumps wrap the script in psql's \restrict meta-commands.
                dump = b"".join(line for line in dump.splitlines(keepends=True) if not line.startswith(b"\\"))
                (FIXTURES / f"{name}.pg.sql.gz").write_bytes(gzip.compress(dump, mtime=0))
            else:
                compact = Path(scratch) / "compact.sqlite3"
                with sqlite3.connect(data_dir / "outpost.sqlite3") as database:
                    database.execute("VACUUM INTO ?", (str(compact),))
                database.close()
                (FIXTURES / f"{name}.sqlite3.gz").write_bytes(gzip.compress(compact.read_bytes(), mtime=0))
            host = url.removeprefix("http://")
            text = json.dumps({"commit": commit, "secret_key": SECRET_KEY, "root_token": ROOT_TOKEN, "demo": demo,
                               "user_token": made["token"], "reads": reads}, indent=1, sort_keys=True)
            (FIXTURES / f"{name}{'.pg' if database_url else ''}.json").write_text(text.replace(host, "SERVER") + "\n")
        finally:
            subprocess.run(["git", "worktree", "remove", "--force", str(checkout)], cwd=REPO_ROOT, check=False)
            shutil.rmtree(checkout, ignore_errors=True)


if __name__ == "__main__":
    options = sys.argv[3:]
    record(sys.argv[1], sys.argv[2], demo="--demo" in options,
           admin_url=options[options.index("--postgres") + 1] if "--postgres" in options else None)
