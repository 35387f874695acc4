"""Vulnerability export benchmark against a freshly started server.

    .venv/bin/python -m bench.exports [--sizes 10000 100000]

For each size a new project gets that many vulnerabilities, written straight into the server's
database. Measured: the time from POST .../vulnerability_exports to a fully downloaded file
(polling every 100 ms), against a baseline in the same run that reads the same rows from the same
database with SQLAlchemy and writes them with csv.writer (run before and after the export; the faster
run counts). Reported: both times, their ratio, and the
server's peak RSS (VmHWM) after each size; the peak should not grow with the size.
"""

from __future__ import annotations

import argparse
import csv
import tempfile
import time
from pathlib import Path

from sqlalchemy import select

from bench.exports.seed import insert_vulnerabilities, server_engine
from outpost_server.accounts.models import Group, Project
from outpost_server.vulnerabilities.models import Vulnerability
from tests.support import ApiHelper, start_server


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("VmHWM not available")


def timed_export(client, project_id: int, target: Path) -> tuple[float, float, int]:
    """Seconds from POST to finished, seconds of the download, and the file size."""
    started = time.perf_counter()
    export_id = client.post(f"/security/projects/{project_id}/vulnerability_exports").json()["id"]
    while client.get(f"/security/vulnerability_exports/{export_id}").json()["status"] not in ("finished", "failed"):
        time.sleep(0.1)
    generated = time.perf_counter()
    size = 0
    with client.stream("GET", f"/security/vulnerability_exports/{export_id}/download") as response, \
            target.open("wb") as handle:
        response.raise_for_status()
        for chunk in response.iter_bytes():
            handle.write(chunk)
            size += len(chunk)
    return generated - started, time.perf_counter() - generated, size


def timed_baseline(engine, project_id: int, target: Path) -> float:
    """Same rows, same database, written by csv.writer: the floor any exporter is compared to."""
    started = time.perf_counter()
    stmt = (
        select(Group.name, Project.name, Vulnerability.report_type, Vulnerability.scanner_name, Vulnerability.state,
               Vulnerability.title, Vulnerability.description, Vulnerability.severity, Vulnerability.identifiers,
               Vulnerability.created_at, Vulnerability.location, Vulnerability.resolved_on_default_branch,
               Project.full_path, Vulnerability.id, Vulnerability.cvss_vectors, Vulnerability.dismissal_reason)
        .join(Project, Project.id == Vulnerability.project_id)
        .outerjoin(Group, Group.id == Project.namespace_id)
        .where(Vulnerability.project_id == project_id)
        .order_by(Vulnerability.id)
    )
    with engine.connect() as connection, target.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        for row in connection.execution_options(yield_per=1000).execute(stmt):
            writer.writerow(row)
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.exports")
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work, start_server(Path(work) / "server") as server:
        helper = ApiHelper(server)
        engine = server_engine(server.data_dir, server.env.get("OUTPOST_DATABASE_URL"))
        print(f"server pid {server.process.pid}, peak RSS after start {peak_rss_mb(server.process.pid):.1f} MB")
        print(f"{'rows':>8} {'POST->finished s':>17} {'download s':>11} {'total s':>8} {'baseline s':>11} "
              f"{'ratio':>6} {'file MB':>8} {'server peak RSS MB':>19}")
        peaks = []
        for size in args.sizes:
            group = helper.group()
            project = helper.project(group_id=group["id"])
            insert_vulnerabilities(engine, project["id"], size)
            # Baseline before and after the export, so neither side profits from a warmer database; the faster counts.
            baseline = timed_baseline(engine, project["id"], Path(work) / f"baseline-{size}.csv")
            with server.client() as client:
                generated, downloaded, file_size = timed_export(client, project["id"],
                                                                Path(work) / f"export-{size}.csv")
            baseline = min(baseline, timed_baseline(engine, project["id"], Path(work) / f"baseline-{size}.csv"))
            peaks.append(peak_rss_mb(server.process.pid))
            total = generated + downloaded
            print(f"{size:>8} {generated:>17.2f} {downloaded:>11.2f} {total:>8.2f} {baseline:>11.2f} "
                  f"{total / baseline:>6.2f} {file_size / 1e6:>8.1f} {peaks[-1]:>19.1f}")
        engine.dispose()
        print(f"peak RSS growth from {args.sizes[0]} to {args.sizes[-1]} rows: {peaks[-1] - peaks[0]:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
