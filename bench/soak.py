"""Soak run: ingestion from many concurrent senders plus API traffic against one real server.

    .venv/bin/python -m bench.soak [--minutes 2] [--senders 16] [--workers 1] [--database-url URL] [--json FILE]

Loopback only, bounded in time (--minutes) and in count (--max-events). While the time runs, it
posts gzip'd Python-SDK-shaped store events, and in parallel cycles through instance variables
(create, update, read, list, delete, with masked values), vulnerability exports (request, poll,
download, check the row count) and the error and vulnerability lists. The server's RSS (summed over its
worker processes with --workers) is sampled every few seconds.

It reports throughput, latency percentiles per kind of traffic, statuses, accepted versus stored
events and the RSS series, and exits non-zero when an accepted event is missing from the database,
any response is a 500 (or the connection breaks), or memory keeps growing through the run.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import io
import json
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

import httpx

from bench.ingest import memory_mb
from tests.e2e.databases import database_url, stored_event_ids
from tests.e2e.flows import enable_error_tracking, sast_report, sentry_event, store_path, store_request, upload_report
from tests.support import ApiHelper, launch_server, unique

RSS_EVERY_SECONDS = 5.0
REPORT_FINDINGS = 200
# Memory "keeps growing" when the last third of the run sits this far above the middle third.
GROWTH_LIMIT_BYTES = 32 * 1024 * 1024
GROWTH_LIMIT_RATIO = 0.20


class Tally:
    """Statuses and latencies per kind of traffic, plus what the ingestion senders were promised."""

    def __init__(self) -> None:
        self.statuses: dict[str, Counter] = defaultdict(Counter)
        self.latencies: dict[str, list[float]] = defaultdict(list)
        self.accepted: list[str] = []
        self.broken: Counter = Counter()
        self.failures: list[str] = []

    def record(self, kind: str, response: httpx.Response, started: float) -> httpx.Response:
        self.statuses[kind][response.status_code] += 1
        self.latencies[kind].append(time.perf_counter() - started)
        if response.status_code >= 500:
            self.failures.append(f"{kind}: {response.request.method} {response.request.url.path} "
                                 f"-> {response.status_code} {response.text[:200]}")
        return response


def percentiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    ordered = sorted(values)

    def at(fraction: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(fraction * len(ordered)))] * 1000, 2)

    return {"p50_ms": at(0.50), "p90_ms": at(0.90), "p99_ms": at(0.99), "max_ms": round(ordered[-1] * 1000, 2)}


def rss_bytes(pid: int) -> int:
    """RSS of the server and its worker processes."""
    return round(memory_mb(pid)[0] * 2**20)


async def call(tally: Tally, kind: str, client: httpx.AsyncClient, method: str, url: str, **kwargs):
    started = time.perf_counter()
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        tally.broken[kind] += 1
        tally.failures.append(f"{kind}: {method} {url} broke: {type(exc).__name__}")
        return None
    return tally.record(kind, response, started)


async def ingest_sender(tally: Tally, client: httpx.AsyncClient, project_id: int, public_key: str,
                        deadline: float, budget: list[int]) -> None:
    number = 0
    while time.monotonic() < deadline and budget[0] > 0:
        budget[0] -= 1
        number += 1
        event = sentry_event(message=f"soak {number}", group=number % 50)
        headers, body = store_request(public_key, event)
        response = await call(tally, "ingest", client, "POST", store_path(project_id), headers=headers, content=body)
        if response is not None and response.status_code == 200:
            tally.accepted.append(event["event_id"])


async def variables_traffic(tally: Tally, client: httpx.AsyncClient, deadline: float) -> None:
    while time.monotonic() < deadline:
        key = unique("SOAK_").upper()
        await call(tally, "variables", client, "POST", "/api/v4/admin/ci/variables",
                   json={"key": key, "value": "Soak-Masked-Value-1", "masked": True})
        await call(tally, "variables", client, "PUT", f"/api/v4/admin/ci/variables/{key}",
                   data={"value": "Soak-Masked-Value-2", "protected": "true"})
        await call(tally, "variables", client, "GET", f"/api/v4/admin/ci/variables/{key}")
        await call(tally, "variables", client, "GET", "/api/v4/admin/ci/variables", params={"per_page": 100})
        await call(tally, "variables", client, "DELETE", f"/api/v4/admin/ci/variables/{key}")


async def exports_traffic(tally: Tally, client: httpx.AsyncClient, project_id: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        created = await call(tally, "exports", client, "POST",
                             f"/api/v4/security/projects/{project_id}/vulnerability_exports")
        if created is None or created.status_code != 201:
            await asyncio.sleep(0.5)
            continue
        export_id = created.json()["id"]
        status = "created"
        while status in ("created", "running") and time.monotonic() < deadline + 60:
            polled = await call(tally, "exports", client, "GET", f"/api/v4/security/vulnerability_exports/{export_id}")
            if polled is None:
                break
            status = polled.json().get("status")
            await asyncio.sleep(0.2)
        if status != "finished":
            tally.failures.append(f"exports: export {export_id} ended {status}")
            continue
        download = await call(tally, "exports", client, "GET",
                              f"/api/v4/security/vulnerability_exports/{export_id}/download")
        if download is not None and download.status_code == 200:
            rows = list(csv.reader(io.StringIO(download.content.decode("utf-8"))))
            if len(rows) != REPORT_FINDINGS + 1:
                tally.failures.append(f"exports: export {export_id} has {len(rows)} rows")


async def lists_traffic(tally: Tally, client: httpx.AsyncClient, project: dict, deadline: float) -> None:
    while time.monotonic() < deadline:
        await call(tally, "error list", client, "GET", f"/{project['path_with_namespace']}/-/error_tracking.json")
        await call(tally, "error list", client, "GET", f"/api/v4/projects/{project['id']}/vulnerabilities",
                   params={"per_page": 100, "severity": "critical"})
        await asyncio.sleep(0.05)


async def sample_rss(pid: int, deadline: float, samples: list[tuple[float, int]]) -> None:
    started = time.monotonic()
    while time.monotonic() < deadline:
        samples.append((round(time.monotonic() - started, 1), rss_bytes(pid)))
        await asyncio.sleep(RSS_EVERY_SECONDS)
    samples.append((round(time.monotonic() - started, 1), rss_bytes(pid)))


async def run_load(server, args, project: dict, public_key: str, tally: Tally) -> list[tuple[float, int]]:
    deadline = time.monotonic() + args.minutes * 60
    budget = [args.max_events]
    samples: list[tuple[float, int]] = []
    limits = httpx.Limits(max_connections=args.senders + 8)
    async with httpx.AsyncClient(base_url=server.url, timeout=60, limits=limits) as sdk, \
            httpx.AsyncClient(base_url=server.url, timeout=60,
                              headers={"PRIVATE-TOKEN": server.root_token}) as api:
        await asyncio.gather(
            sample_rss(server.process.pid, deadline, samples),
            *(ingest_sender(tally, sdk, project["id"], public_key, deadline, budget) for _ in range(args.senders)),
            variables_traffic(tally, api, deadline),
            exports_traffic(tally, api, project["id"], deadline),
            lists_traffic(tally, api, project, deadline),
        )
    return samples


def memory_verdict(samples: list[tuple[float, int]]) -> tuple[bool, dict]:
    """Growth of the last third of the run over the middle third (the first third is warm-up)."""
    values = [rss for _, rss in samples]
    if len(values) < 6:
        return True, {"note": "too few samples to judge growth"}
    third = len(values) // 3
    middle, last = statistics.median(values[third:2 * third]), statistics.median(values[2 * third:])
    growth = last - middle
    ok = growth <= max(GROWTH_LIMIT_BYTES, GROWTH_LIMIT_RATIO * middle)
    return ok, {"middle_third_median_mb": round(middle / 2**20, 1), "last_third_median_mb": round(last / 2**20, 1),
                "growth_mb": round(growth / 2**20, 1)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=2.0)
    parser.add_argument("--senders", type=int, default=16, help="concurrent ingestion senders")
    parser.add_argument("--max-events", type=int, default=2_000_000, help="upper bound on events sent")
    parser.add_argument("--workers", default="1", help="server processes (outpost-server serve --workers)")
    parser.add_argument("--database-url", default=None, help="PostgreSQL URL (default: SQLite in a temp dir)")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="soak-") as workdir:
        server = launch_server(Path(workdir) / "server", database_url=args.database_url,
                               extra_env={"OUTPOST_WORKERS": args.workers})
        try:
            api = ApiHelper(server)
            group = api.group()
            project = api.project(group_id=group["id"])
            upload_report(api.root, project["id"], sast_report(REPORT_FINDINGS, tag="soak"))
            key = enable_error_tracking(api.root, project["id"])
            tally = Tally()
            started = time.monotonic()
            samples = asyncio.run(run_load(server, args, project, key["public_key"], tally))
            elapsed = time.monotonic() - started
            server.wait_for_digest(timeout=120)  # accepted means queued: count once the spool has drained
            stored = stored_event_ids(database_url(server), project["id"])
        finally:
            server.stop()
        tracebacks = server.log_text().count("Traceback")

    lost = set(tally.accepted) - set(stored)
    memory_ok, memory = memory_verdict(samples)
    figures = {
        "minutes": args.minutes,
        "senders": args.senders,
        "elapsed_s": round(elapsed, 1),
        "accepted_events": len(tally.accepted),
        "stored_events": len(stored),
        "lost_events": len(lost),
        "duplicate_events": len(stored) - len(set(stored)),
        "accepted_per_s": round(len(tally.accepted) / elapsed, 1),
        "requests": {kind: {"count": sum(counts.values()), "per_s": round(sum(counts.values()) / elapsed, 1),
                            "statuses": dict(counts), **percentiles(tally.latencies[kind])}
                     for kind, counts in tally.statuses.items()},
        "broken_connections": dict(tally.broken),
        "server_tracebacks": tracebacks,
        "rss_mb": [(at, round(rss / 2**20, 1)) for at, rss in samples],
        "memory": memory,
        "failures": tally.failures[:20],
    }
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n")
    problems = []
    if lost:
        problems.append(f"{len(lost)} accepted events are not stored")
    if figures["duplicate_events"]:
        problems.append("an event was stored twice")
    if tally.failures or tracebacks:
        problems.append(f"{len(tally.failures)} failed requests, {tracebacks} server tracebacks")
    if not memory_ok:
        problems.append(f"server memory kept growing: {memory}")
    if not tally.accepted:
        problems.append("no event was accepted")
    for problem in problems:
        print(f"SOAK FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
