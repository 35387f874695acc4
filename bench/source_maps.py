"""Source maps benchmark: the digest rate of JavaScript events mapped through their bundle, against the
same events unmapped.

    .venv/bin/python -m bench.source_maps [--events 2000] [--concurrency 8]

Loopback only and bounded in count and time. It builds the test app (tests/fixtures/sourcemap_app, npm and
esbuild), injects and uploads its maps with sentry-cli to a freshly started server, runs the Node build once
to get a real @sentry/node event, then posts copies of that event (fresh ids) to a project holding the
bundle (every frame is mapped) and, stripped of their debug ids and release, to another project (nothing
to map). The rate of each is events counted in their error per second, from the first send until the
last is counted. Mapped events must digest at no less than half the rate of unmapped ones.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import secrets
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from bench.digest_rate import digest_rate
from bench.ingest import counted_events, outpost_store_path, prepare_project, start_outpost, stop

REPO_ROOT = Path(__file__).resolve().parents[1]
APP = REPO_ROOT / "tests" / "fixtures" / "sourcemap_app"


def build_app(out: str) -> Path:
    subprocess.run(["npm", "ci", "--no-audit", "--no-fund", "--silent"], cwd=APP, check=True, timeout=900)
    subprocess.run(["node", "build.mjs"], cwd=APP, check=True, timeout=120, env={**os.environ, "OUTPOST_OUT": out})
    cli = Path(sys.executable).parent / "sentry-cli"
    subprocess.run([str(cli), "sourcemaps", "inject", str(APP / out)], check=True, capture_output=True, timeout=120)
    return APP / out


def sample_event(port: int, project_id: int, public_key: str, built: Path, database: Path) -> dict:
    """One real @sentry/node event, as the SDK sent it (the stored payload with its raw frames put back)."""
    dsn = f"http://{public_key}@127.0.0.1:{port}/api/v4/error_tracking/collector/{project_id}"
    subprocess.run(["node", str(built / "node" / "app.min.js")], check=True, capture_output=True, timeout=120,
                   env={**os.environ, "OUTPOST_APP": json.dumps({"dsn": dsn, "release": "bench@1"}),
                        "NODE_PATH": str(APP / "node_modules")})
    deadline = time.time() + 30
    while counted_events(database, project_id)[0] < 1:
        assert time.time() < deadline, "the sample event was not stored"
        time.sleep(0.05)
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        payload = connection.execute(
            "SELECT p.payload FROM error_tracking_event_payloads p JOIN error_tracking_errors e ON e.id = p.error_id "
            "WHERE e.project_id = ?", (project_id,)).fetchone()[0]
    event = json.loads(payload)
    for value in event["exception"]["values"]:
        value["stacktrace"] = value.pop("raw_stacktrace")
    return event


def requests_for(event: dict, count: int, project_id: int, public_key: str) -> list[bytes]:
    path = outpost_store_path(project_id)
    requests = []
    for _ in range(count):
        body = gzip.compress(json.dumps({**event, "event_id": uuid.uuid4().hex}).encode())
        head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                f"X-Sentry-Auth: Sentry sentry_key={public_key}, sentry_version=7\r\n"
                "Content-Type: application/json\r\nContent-Encoding: gzip\r\n"
                f"Content-Length: {len(body)}\r\n\r\n")
        requests.append(head.encode() + body)
    return requests


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000)
    parser.add_argument("--concurrency", type=int, default=8)
    args = parser.parse_args(argv)
    token = "glpat-bench-" + secrets.token_hex(8)
    with tempfile.TemporaryDirectory(prefix="outpost-bench-") as tmp:
        data_dir = Path(tmp)
        database = data_dir / "outpost.sqlite3"
        server, port = start_outpost(data_dir, token, "1")
        try:
            mapped_project, mapped_key = prepare_project(port, token)
            plain_project, plain_key = prepare_project(port, token)
            built = build_app("dist/bench")
            env = {**os.environ, "SENTRY_URL": f"http://127.0.0.1:{port}", "SENTRY_AUTH_TOKEN": token,
                   "SENTRY_ORG": "root", "SENTRY_DISABLE_UPDATE_CHECK": "1"}
            slug = _project_path(database, mapped_project).split("/", 1)[1]
            subprocess.run([str(Path(sys.executable).parent / "sentry-cli"), "sourcemaps", "upload", "--project", slug,
                            str(built)], check=True, capture_output=True, timeout=120, env=env)
            event = sample_event(port, mapped_project, mapped_key, built, database)
            plain = {key: value for key, value in event.items() if key not in ("debug_meta", "release")}
            unmapped = digest_rate(port, database, plain_project,
                                   requests_for(plain, args.events, plain_project, plain_key), args.concurrency)
            mapped = digest_rate(port, database, mapped_project,
                                 requests_for(event, args.events, mapped_project, mapped_key), args.concurrency)
        finally:
            stop(server)
    print(f"Source maps: {args.events} @sentry/node events each way, {args.concurrency} senders, SQLite, one process, "
          f"load average {os.getloadavg()[0]:.1f}")
    print(f"  unmapped {unmapped:,.0f} events/s, mapped {mapped:,.0f} events/s ({mapped / unmapped:.0%})")
    return 0 if mapped >= unmapped / 2 else 1


def _project_path(database: Path, project_id: int) -> str:
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        return connection.execute("SELECT full_path FROM projects WHERE id = ?", (project_id,)).fetchone()[0]


if __name__ == "__main__":
    sys.exit(main())
