"""Records tests/server/migrations/pre_namespaces.json: a database filled through the API of the server as it was
before migration 0007_namespaces, dumped table by table.

The fixture was recorded once from commit eb2a394 (the last revision without namespaces):

    git worktree add --detach OLD eb2a394
    python -m tests.server.migrations.record_pre_namespaces OLD/server tests/server/migrations/pre_namespaces.json
    git worktree remove OLD

It runs that checkout's server with this checkout's test helpers, fills it through the REST API and
the Sentry collector as clients would (including what the old model got wrong: a project created
with namespace_id equal to the caller's user id, and a user whose username is a top-level group's
path), stops it and writes every row of every table, tagged where JSON has no type of its own.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import json
import sys
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

import httpx
import sqlalchemy

from tests.e2e.flows import sast_report, sentry_event, store_path, store_request, upload_report, wait_for_export
from tests.support import ApiHelper, launch_server

SECRET_KEY = "pre-namespaces-fixture-secret-key"
ROOT_TOKEN = "glpat-pre-namespaces-root-token"


def encode(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return {"datetime": value.isoformat()}
    if isinstance(value, dt.date):
        return {"date": value.isoformat()}
    if isinstance(value, (bytes, memoryview)):
        return {"bytes": base64.b64encode(bytes(value)).decode()}
    if isinstance(value, (dict, list)):
        return {"json": value}
    return value


def fill(api: ApiHelper) -> dict[str, Any]:
    root = api.root
    users = {}
    for name in ("alice", "bob", "shared"):
        response = root.post("/users", json={"username": name, "name": name.title(), "email": f"{name}@example.com",
                                              "password": "s3cret-pass-1"})
        response.raise_for_status()
        users[name] = response.json()
    tokens = {name: api.token(user["id"]) for name, user in users.items()}
    api.token(users["bob"]["id"], scopes=("read_api",), expires_at="2031-01-01")
    revoked = api.token(users["bob"]["id"])
    httpx.delete(api.server.api_url + "/personal_access_tokens/self", headers={"PRIVATE-TOKEN": revoked})

    def group(path: str, parent_id: int | None = None) -> dict:
        body = {"name": path.title(), "path": path, "parent_id": parent_id}
        response = root.post("/groups", json={k: v for k, v in body.items() if v is not None})
        response.raise_for_status()
        return response.json()

    acme = group("acme")
    platform = group("platform", acme["id"])
    shared = group("shared")  # the same path as user "shared": the old model allowed it

    def project(client: httpx.Client, name: str, namespace_id: int | None = None) -> dict:
        body = {"name": name} | ({"namespace_id": namespace_id} if namespace_id is not None else {})
        response = client.post("/projects", json=body)
        response.raise_for_status()
        return response.json()

    # acme's id is 1, root's user id too: the old model put this one in root's personal namespace.
    webshop = project(root, "webshop", acme["id"])
    assert webshop["path_with_namespace"] == "root/webshop", "the server run is not the pre-namespaces one"
    project(root, "api", platform["id"])
    project(root, "site", shared["id"])
    # The old model read namespace_id == the caller's user id as "my personal namespace".
    project(root, "shop", 1)
    project(root, "notes")
    with api.server.client(tokens["alice"]) as alice:
        project(alice, "sandbox")
    with api.server.client(tokens["shared"]) as shared_user:
        project(shared_user, "dotfiles")
    api.member("groups", acme["id"], users["bob"]["id"], 30)
    api.member("projects", webshop["id"], users["alice"]["id"], 40)

    root.put(f"/projects/{webshop['id']}/error_tracking/settings",
             json={"active": True, "integrated": True}).raise_for_status()
    key = root.get(f"/projects/{webshop['id']}/error_tracking/client_keys").json()[0]["public_key"]
    for group_number in range(2):
        headers, body = store_request(key, sentry_event(message="recorded", group=group_number))
        httpx.post(api.server.url + store_path(webshop["id"]), headers=headers, content=body).raise_for_status()
    upload_report(root, webshop["id"], sast_report(3, tag="recorded"))
    with api.server.client(tokens["alice"]) as alice:
        response = alice.post(f"/security/projects/{webshop['id']}/vulnerability_exports")
        assert response.status_code == 201, response.text
        wait_for_export(alice, response.json()["id"])
    root.post("/admin/ci/variables", json={"key": "RECORDED", "value": "recorded-value"}).raise_for_status()
    return {"tokens": tokens}


def dump(url: str) -> dict[str, Any]:
    engine = sqlalchemy.create_engine(url)
    metadata = sqlalchemy.MetaData()
    metadata.reflect(engine)
    tables = {}
    with engine.connect() as connection:
        for table in metadata.sorted_tables:
            rows = connection.execute(sqlalchemy.select(table)).mappings().all()
            tables[table.name] = [{column: encode(value) for column, value in row.items()} for row in rows]
    engine.dispose()
    return tables


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old_server_dir", type=Path, help="the server/ directory of the old checkout")
    parser.add_argument("output", type=Path)
    args = parser.parse_args()
    with TemporaryDirectory() as tmp:
        data_dir = Path(tmp) / "data"
        env = {"PYTHONPATH": str(args.old_server_dir.resolve()), "OUTPOST_SECRET_KEY": SECRET_KEY}
        # The old checkout is imported through PYTHONPATH, so this server is the real command, not a fork.
        server = launch_server(data_dir, root_token=ROOT_TOKEN, extra_env=env, database_url=f"sqlite:///{data_dir}/old.db",
                               preloaded=False)
        try:
            recorded = fill(ApiHelper(server))
        finally:
            server.stop()
        document = {"secret_key": SECRET_KEY, "root_token": ROOT_TOKEN, "tokens": recorded["tokens"],
                    "tables": dump(f"sqlite:///{data_dir}/old.db")}
    args.output.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    print(f"wrote {args.output}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
