"""Alert rules benchmark: the digest rate of a project with 10 alert rules, against a project with none.

    .venv/bin/python -m bench.alert_rules [--events 6000] [--concurrency 16] [--rounds 2] [--workers auto]

Loopback only and bounded in count and time. One freshly started server (SQLite, `serve --workers auto`:
the HTTP workers and the digester process) gets two projects. One has ten rules of every kind that matches
the benchmark's events (new error, regression, N events and N users within M minutes, environment, level
and release filters), each with an email recipient; the other has none. The same recorded Python SDK event
(50 groups, bench.ingest's requests) is posted to each in turn, alternating over the rounds, and the rate
of each is events counted in their errors per second, from the first send until the last is counted.
Rules are evaluated in the digest's transaction, so their cost shows as a lower rate; the triggered
notifications are queued there and sent by the alert sender afterwards. It fails when the project with
rules digests at less than half the rate of the one without.
"""

from __future__ import annotations

import argparse
import os
import secrets
import statistics
import sys
import tempfile
from pathlib import Path

import httpx

from bench.digest_rate import digest_rate
from bench.ingest import build_requests, outpost_store_path, prepare_project, start_outpost, stop

EMAIL = [{"recipientType": "email", "addresses": ["oncall@example.com"]}]
# Every rule matches the recorded event (environment production, level error, release myapp@1.2.3).
RULES = [
    {"name": "New errors", "onNewError": True},
    {"name": "New in production", "onNewError": True, "environments": ["production"]},
    {"name": "Regressions", "onRegression": True},
    {"name": "New errors of the release", "onNewError": True, "release": "myapp@1.2.3"},
    {"name": "Bursts", "quantity": 100, "timespanMinutes": 10},
    {"name": "Production bursts", "quantity": 500, "timespanMinutes": 60, "environments": ["production"]},
    {"name": "Errors and worse", "quantity": 50, "timespanMinutes": 5, "minLevel": "error"},
    {"name": "Many users", "users": 20, "timespanMinutes": 60},
    {"name": "Users in production", "users": 5, "timespanMinutes": 10, "environments": ["production"]},
    {"name": "Steady stream", "quantity": 1000, "timespanMinutes": 1440, "cooldownMinutes": 5},
]


def add_rules(port: int, token: str, project_id: int) -> None:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}", headers={"PRIVATE-TOKEN": token}, timeout=30) as client:
        path = client.get(f"/api/v4/projects/{project_id}").raise_for_status().json()["path_with_namespace"]
        organization, _, below = path.partition("/")
        for rule in RULES:
            client.post(f"/api/0/projects/{organization}/{below.replace('/', '~')}/alerts/",
                        json={**rule, "alertRecipients": EMAIL},
                        headers={"Authorization": f"Bearer {token}"}).raise_for_status()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=6000, help="events per project and round (default 6000)")
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--workers", default="auto")
    args = parser.parse_args(argv)
    token = "glpat-bench-" + secrets.token_hex(8)
    rates: dict[str, list[float]] = {"without rules": [], "with 10 rules": []}
    with tempfile.TemporaryDirectory(prefix="outpost-bench-") as tmp:
        data_dir = Path(tmp)
        database = data_dir / "outpost.sqlite3"
        server, port = start_outpost(data_dir, token, args.workers)
        try:
            for _ in range(args.rounds):
                # Fresh projects each round, so new-error rules see new errors every time.
                plain = prepare_project(port, token)
                ruled = prepare_project(port, token)
                add_rules(port, token, ruled[0])
                for label, (project_id, key) in (("without rules", plain), ("with 10 rules", ruled)):
                    requests = build_requests(args.events, 0, outpost_store_path(project_id), key)
                    rates[label].append(digest_rate(port, database, project_id, requests, args.concurrency))
        finally:
            stop(server)
    without, with_rules = (statistics.median(rates[label]) for label in rates)
    print(f"Alert rules: {args.events} Python SDK events per project and round over 50 groups, {args.rounds} rounds, "
          f"{args.concurrency} senders, SQLite, --workers {args.workers}, {os.cpu_count()} CPUs, "
          f"load average {os.getloadavg()[0]:.1f}")
    for label, values in rates.items():
        print(f"  {label:14}: median {statistics.median(values):,.0f} events/s "
              f"({', '.join(f'{value:,.0f}' for value in values)})")
    print(f"  ratio with / without rules: {with_rules / without:.2f}")
    return 0 if with_rules >= without / 2 else 1


if __name__ == "__main__":
    sys.exit(main())
