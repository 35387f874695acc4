"""Runs every benchmark in turn: `python -m bench [NAME ...]` (names below; default: all but the long ones,
soak, startup and storage_scale).

Each benchmark starts its own servers, measures its baseline in the same run and prints ratios.
"""

import subprocess
import sys

BENCHMARKS = {
    "variables_import": "1,000 variables through the console's client vs a plain httpx loop; UI stall",
    "exports": "CSV export of 10,000 and 100,000 vulnerabilities vs csv.writer over the same rows; peak RSS",
    "ingest": "gzip'd SDK events at concurrency 8 and 32 vs a bare ASGI endpoint",
    "model_encoding": "error list page and event detail as msgspec structs and as pydantic models vs dicts",
    "error_list": "first page and detail of 10,000 errors / 200,000 events; console time to first rows",
    "sentry_events": "Sentry API: event pages and tag facets of one error with 100,000 events vs /version",
    "export_save_stall": "UI stall while the console saves a 100,000-row export vs the idle window's stall",
    "error_refresh_stall": "UI stall while the error list refreshes under 500 events/s vs the idle tab's stall",
    "startup": "packaged app start-up vs a minimal PySide6 window built the same way (builds both)",
    "source_maps": "digest rate of @sentry/node events mapped through their bundle vs the same events unmapped",
    "alert_rules": "digest rate of a project with 10 alert rules vs one without",
    "prune": "ingestion latency while a pass prunes a 30,000-event backlog vs without pruning",
    "soak": "ingestion plus API traffic for two minutes; fails on loss, 500s or memory growth",
    "storage_scale": "reads, insert rate and a day's retention at 10,000,000 events vs 200,000 (long; see its --help)",
}
DEFAULT = ["model_encoding", "variables_import", "export_save_stall", "error_refresh_stall", "exports", "ingest",
           "error_list", "sentry_events", "source_maps", "alert_rules", "prune"]


def main(names: list[str]) -> int:
    unknown = [name for name in names if name not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from: {', '.join(BENCHMARKS)}")
        return 2
    failed = []
    for name in names or DEFAULT:
        print(f"\n=== {name}: {BENCHMARKS[name]}", flush=True)
        if subprocess.run([sys.executable, "-m", f"bench.{name}"]).returncode != 0:
            failed.append(name)
    if failed:
        print(f"\nfailed: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
