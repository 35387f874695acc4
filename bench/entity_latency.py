"""Error-list and event-detail latency before and after the entities, against the same data in the same run.

    .venv/bin/python -m bench.entity_latency [--before 3f2defa] [--errors 2000] [--events 40000] [--repeat 200]

The server of an earlier commit (`--before`, checked out into a temporary git worktree, removed at the
end) and the server of this checkout each run on their own copy of one seeded SQLite database (the
error list benchmark's errors, events and payloads, written while the earlier server held the database,
so both start from what that commit migrated). Their requests are interleaved over kept-alive loopback
connections so both meet the same load from the machine: per server, the medians of

- the baseline, `GET /api/v4/version`;
- the error list, the first page of `/<project>/-/error_tracking.json`;
- the error's details, `…/-/error_tracking/<id>/details.json`;
- the event detail, Sentry's `GET /api/0/issues/<id>/events/latest/` (one event in full, with its frames);

and each figure of this checkout divided by the earlier commit's ("no worse" is a ratio of about 1 or
below), also for the time beyond each server's own `/version` median (the request's own work). The earlier
tree runs on this checkout's virtual environment, with its own `server/` first on the import path.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

from bench.error_list import seed

REPO = Path(__file__).resolve().parent.parent
TOKEN = "glpat-bench-" + "0" * 20
REQUESTS = ("baseline: GET /api/v4/version", "error list, first page", "error details", "event detail (latest)")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_server(tree: Path, data_dir: Path) -> Iterator[str]:
    """`outpost-server serve` of the server in `tree` (its server/ first on the import path)."""
    port = _free_port()
    env = {**os.environ, "OUTPOST_ROOT_TOKEN": TOKEN, "PYTHONPATH": str(tree / "server")}
    env.pop("OUTPOST_DATABASE_URL", None)
    log = open(data_dir.parent / f"{data_dir.name}.log", "ab")
    process = subprocess.Popen([sys.executable, "-m", "outpost_server", "serve", "--host", "127.0.0.1",
                                "--port", str(port), "--data-dir", str(data_dir)],
                               cwd=tree, env=env, stdout=log, stderr=log)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                httpx.get(url + "/api/v4/version", headers={"PRIVATE-TOKEN": TOKEN}, timeout=5).raise_for_status()
                break
            except httpx.HTTPError:
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server of {tree} did not start; see {log.name}") from None
                time.sleep(0.2)
        yield url
    finally:
        process.terminate()
        process.wait(timeout=60)
        log.close()


def seeded_data(tree: Path, data_dir: Path, *, errors: int, events: int) -> str:
    """A database in `data_dir` with one project's errors; returns the project's path."""
    data_dir.mkdir(parents=True)
    with running_server(tree, data_dir) as url, \
            httpx.Client(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": TOKEN}, timeout=60) as api:
        project = api.post("/projects", json={"name": "storefront"}).raise_for_status().json()
        api.put(f"/projects/{project['id']}/error_tracking/settings",
                json={"active": True, "integrated": True}).raise_for_status()
        seed(f"sqlite:///{data_dir / 'outpost.sqlite3'}", project["id"], errors=errors, events=events)
    return project["path_with_namespace"]


def _timed(client: httpx.Client, url: str) -> float:
    started = time.perf_counter()
    client.get(url).raise_for_status()
    return (time.perf_counter() - started) * 1000


def measure(urls: dict[str, str], path: str, repeat: int) -> dict[str, dict[str, list[float]]]:
    headers = {"PRIVATE-TOKEN": TOKEN, "Authorization": f"Bearer {TOKEN}"}
    clients = {name: httpx.Client(base_url=url, headers=headers, timeout=60) for name, url in urls.items()}
    figures: dict[str, dict[str, list[float]]] = {name: {request: [] for request in REQUESTS} for name in urls}
    try:
        first = next(iter(clients.values()))
        error_id = first.get(f"/{path}/-/error_tracking.json").raise_for_status().json()["errors"][0]["id"]
        paths = dict(zip(REQUESTS, ("/api/v4/version", f"/{path}/-/error_tracking.json",
                                    f"/{path}/-/error_tracking/{error_id}/details.json",
                                    f"/api/0/issues/{error_id}/events/latest/"), strict=True))
        for client in clients.values():  # both answer the same, and are warm
            for url in paths.values():
                for _ in range(5):
                    client.get(url).raise_for_status()
        order = list(clients)
        for round_number in range(repeat):
            # Alternate which server goes first, so neither always meets the other's leftovers.
            for name in order if round_number % 2 == 0 else reversed(order):
                for request, url in paths.items():
                    figures[name][request].append(_timed(clients[name], url))
    finally:
        for client in clients.values():
            client.close()
    return figures


def report(figures: dict[str, dict[str, list[float]]], before: str) -> None:
    then, now = figures[f"before ({before})"], figures["after (this checkout)"]
    base = [statistics.median(side[REQUESTS[0]]) for side in (then, now)]
    print(f"\n{'request':30} {'before ms':>10} {'after ms':>9} {'after/before':>13} {'beyond /version':>16}"
          "   p95 before / after")
    for request in REQUESTS:
        old, new = statistics.median(then[request]), statistics.median(now[request])
        p95 = [sorted(samples)[int(len(samples) * 0.95)] for samples in (then[request], now[request])]
        # The request's own work: its median less the same server's /version median.
        beyond = "" if request == REQUESTS[0] else f"{(new - base[1]) / max(old - base[0], 1e-9):15.2f}x"
        print(f"{request:30} {old:10.2f} {new:9.2f} {new / old:12.2f}x {beyond:>16}   {p95[0]:.2f} / {p95[1]:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", default="3f2defa", help="the commit to compare with (default: 3f2defa)")
    parser.add_argument("--errors", type=int, default=2_000)
    parser.add_argument("--events", type=int, default=40_000)
    parser.add_argument("--repeat", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="outpost-bench-entities-") as workdir:
        work = Path(workdir)
        before_tree = work / "before"
        subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", "--quiet", str(before_tree),
                        args.before], check=True)
        try:
            path = seeded_data(before_tree, work / "data-before", errors=args.errors, events=args.events)
            shutil.copytree(work / "data-before", work / "data-after")
            with running_server(before_tree, work / "data-before") as old, \
                    running_server(REPO, work / "data-after") as new:
                figures = measure({f"before ({args.before})": old, "after (this checkout)": new}, path,
                                  args.repeat)
        finally:
            subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(before_tree)], check=True)
    print(f"\n{args.errors} errors, {args.events} events; {args.repeat} interleaved rounds per server")
    report(figures, args.before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
