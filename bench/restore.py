"""Backup and restore of a large database: time and peak memory at two sizes, so a flat memory shows.

    python -m bench.restore [--events 1000000] [--baseline 100000] [--postgres ADMIN_URL]

Each size gets an SQLite database filled through the digest's store_batch (bench.storage_fill: 50 projects,
events with payloads and tags over 90 days), then `outpost-server backup` of it and `outpost-server restore`
into a new data dir (and, with --postgres, into a new PostgreSQL database), each the real command in a process
of its own whose peak RSS the kernel reports (VmHWM, on Linux). The large run's peak memory over the baseline's should
stay near 1 whatever the ratio of events: both commands stream.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, text

from bench import storage_fill, storage_retention
from outpost_server.db import make_engine

ERRORS = 20_000
PASSPHRASE = "bench passphrase"


@dataclass
class Run:
    seconds: float
    peak_mib: float


def run_command(*arguments: str, env: dict[str, str]) -> Run:
    """The command's time and its own peak RSS: the kernel's high-water mark of the process, read until it
    ends (wait4's ru_maxrss would also count this process's memory, which a fork copies)."""
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-m", "outpost_server", *arguments], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    status = Path(f"/proc/{process.pid}/status")
    peak_kib = 0
    while process.poll() is None:
        try:
            lines = status.read_text().splitlines()
        except OSError:
            break
        peak_kib = max([peak_kib, *(int(line.split()[1]) for line in lines if line.startswith("VmHWM:"))])
        time.sleep(0.05)
    _, errors = process.communicate()
    seconds = time.monotonic() - started
    if process.returncode != 0:
        raise SystemExit(f"outpost-server {arguments[0]} failed: {errors.decode()}")
    return Run(seconds, peak_kib / 1024)


def new_pg_database(admin_url: str) -> str:
    name = "bench_restore_" + uuid.uuid4().hex[:8]
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return admin_url.rsplit("/", 1)[0] + "/" + name


def drop_pg_database(admin_url: str, url: str) -> None:
    engine = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(text(f'DROP DATABASE IF EXISTS "{url.rsplit("/", 1)[1]}" WITH (FORCE)'))
    engine.dispose()


def measure(events: int, scratch: Path, postgres: str | None) -> dict[str, Run | float]:
    source = scratch / f"source-{events}"
    source.mkdir()
    (source / "secret_key").write_text("bench-restore-secret-key")
    url = f"sqlite:///{source / 'outpost.sqlite3'}"
    engine = make_engine(url)
    plan = storage_fill.Plan(events, ERRORS, dt.datetime.now(dt.timezone.utc))
    print(f"filling {events:,} events…", flush=True)
    projects = storage_fill.create_projects(engine)
    storage_retention.prepare(engine, plan)
    storage_fill.fill(url, plan, projects, jobs=1)
    engine.dispose()
    env = {**os.environ, "OUTPOST_BACKUP_PASSPHRASE": PASSPHRASE}
    env.pop("OUTPOST_DATABASE_URL", None)
    backup = scratch / f"outpost-{events}.backup"
    figures: dict[str, Run | float] = {}
    figures["backup"] = run_command("backup", "--data-dir", str(source), "--output", str(backup), env=env)
    figures["size_mib"] = backup.stat().st_size / 1024**2
    figures["restore sqlite"] = run_command("restore", str(backup), "--data-dir", str(scratch / f"into-{events}"),
                                            env=env)
    if postgres:
        target = new_pg_database(postgres)
        try:
            figures["restore postgresql"] = run_command("restore", str(backup), "--data-dir",
                                                        str(scratch / f"into-pg-{events}"), "--database-url", target,
                                                        env=env)
        finally:
            drop_pg_database(postgres, target)
    for name, figure in figures.items():
        if isinstance(figure, Run):
            print(f"  {name}: {figure.seconds:,.1f} s, peak {figure.peak_mib:,.0f} MiB", flush=True)
    print(f"  backup file: {figures['size_mib']:,.1f} MiB", flush=True)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.restore", description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--baseline", type=int, default=100_000)
    parser.add_argument("--postgres", default=None, help="also restore into PostgreSQL (an admin URL)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="outpost-bench-restore-") as folder:
        scratch = Path(folder)
        base = measure(args.baseline, scratch, args.postgres)
        large = measure(args.events, scratch, args.postgres)
    print(f"\n{args.events:,} events against {args.baseline:,} ({args.events / args.baseline:,.0f}× the events):")
    for name, figure in large.items():
        baseline = base[name]
        if isinstance(figure, Run) and isinstance(baseline, Run):
            print(f"  {name}: time ×{figure.seconds / baseline.seconds:,.1f}, "
                  f"peak memory ×{figure.peak_mib / baseline.peak_mib:,.2f} "
                  f"({baseline.peak_mib:,.0f} → {figure.peak_mib:,.0f} MiB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
