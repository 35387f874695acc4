"""A real Prometheus (Debian's `prometheus`, on 127.0.0.1, storage in a temporary directory) scrapes a running
server with the scrape configuration and alert rules of docs/server.md, the token read from a file. Through
Prometheus' HTTP API: every family has its series, histogram buckets and a zero series per refusal reason
before any event, and an example rule evaluates and fires once the collector refuses events."""

from __future__ import annotations

import re
import subprocess
import time
import uuid
from pathlib import Path

import httpx
import pytest
import yaml

from tests.server.alerts.receivers import free_port
from tests.server.error_tracking.conftest import make_tracked_project, server_sessionmaker
from tests.server.error_tracking.test_pipeline import post_event
from tests.server.error_tracking.toolchains import require_tool
from tests.support import REPO_ROOT, start_server

WAIT_SECONDS = 60
LAG_BUCKETS = 18  # 17 bounds, up to the spool's default age limit of 6 hours, and +Inf
REFUSAL_REASONS = 9


def documented_yaml(starting: str) -> dict:
    """The YAML block of docs/server.md that starts with `starting`."""
    text = (REPO_ROOT / "docs" / "server.md").read_text()
    blocks = re.findall(r"```yaml\n(.*?)```", text, re.DOTALL)
    [block] = [block for block in blocks if block.startswith(starting)]
    return yaml.safe_load(block)


@pytest.fixture
def prometheus(tmp_path):
    """Starts Prometheus for a given target; yields its API address."""
    processes = []

    def start(target: str, token: str) -> str:
        (tmp_path / "token").write_text(token)
        config = documented_yaml("scrape_configs:")
        [job] = config["scrape_configs"]
        job.update({"scheme": "http", "scrape_interval": "1s", "static_configs": [{"targets": [target]}]})
        job["authorization"]["credentials_file"] = str(tmp_path / "token")
        (tmp_path / "rules.yml").write_text(yaml.safe_dump(documented_yaml("groups:")))
        config.update({"global": {"evaluation_interval": "1s"}, "rule_files": [str(tmp_path / "rules.yml")]})
        (tmp_path / "prometheus.yml").write_text(yaml.safe_dump(config))
        port = free_port()
        process = subprocess.Popen(
            [require_tool("prometheus", "prometheus"), f"--config.file={tmp_path / 'prometheus.yml'}",
             f"--storage.tsdb.path={tmp_path / 'tsdb'}", f"--web.listen-address=127.0.0.1:{port}"],
            stdout=subprocess.DEVNULL, stderr=(tmp_path / "prometheus.log").open("w"))
        processes.append(process)
        return f"http://127.0.0.1:{port}/api/v1"

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=30)


def query(api: str, expression: str) -> list[dict]:
    answer = httpx.get(f"{api}/query", params={"query": expression}, timeout=10).json()
    assert answer["status"] == "success", answer
    return answer["data"]["result"]


def eventually(probe, what: str):
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            found = probe()
        except (httpx.TransportError, ValueError):  # ValueError: not JSON yet ("Service Unavailable" at start)
            found = None
        if found:
            return found
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)


def test_prometheus_scrapes_every_family_and_evaluates_the_documented_rules(tmp_path: Path, prometheus):
    # Nothing allowed by address: Prometheus reads with the token from its file.
    env = {"OUTPOST_METRICS_ALLOWED_IPS": "192.0.2.0/24", "OUTPOST_ERROR_TRACKING_RATE_LIMIT_PER_MINUTE": "1"}
    with start_server(tmp_path / "server", extra_env=env) as server:
        assert httpx.get(f"{server.url}/-/metrics", timeout=10).status_code == 403
        api = prometheus(server.url.removeprefix("http://"), server.root_token)
        targets = eventually(lambda: [t for t in httpx.get(f"{api}/targets", timeout=10).json()["data"][
            "activeTargets"] if t["health"] == "up"], "the target to be up")
        assert targets[0]["labels"]["job"] == "outpost"

        # Before any event: every lag bucket, a zero series per refusal reason, the other families.
        lag = query(api, "outpost_ingest_lag_seconds_bucket")
        assert len(lag) == LAG_BUCKETS and {float(s["value"][1]) for s in lag} == {0.0}
        assert max(float(s["metric"]["le"]) for s in lag if s["metric"]["le"] != "+Inf") == 21600
        refused = query(api, "outpost_ingest_refused_total")
        assert len(refused) == REFUSAL_REASONS and {float(s["value"][1]) for s in refused} == {0.0}
        assert {s["metric"]["reason"] for s in query(api, "outpost_ingest_dropped_total")} == {
            "invalid", "unsealable", "store_failed", "key_revoked"}
        assert {s["metric"]["state"] for s in query(api, 'outpost_alert_deliveries{channel="email"}')} == {
            "pending", "retrying", "sending", "sent", "failed"}
        assert {s["metric"]["state"] for s in query(api, "outpost_export_jobs")} == {
            "queued", "running", "finished", "failed"}
        assert query(api, "process_resident_memory_bytes") and query(api, "python_info")
        # The answered scrapes are counted as 2xx (a refused address's 403 is a 4xx series of its own).
        scraped = eventually(lambda: query(api, 'outpost_http_requests_total{route="/-/metrics",status_class="2xx"}'),
                             "the scrapes themselves to be counted")
        assert float(scraped[0]["value"][1]) >= 1
        assert query(api, 'outpost_http_request_duration_seconds_bucket{route="/-/metrics"}')

        # The documented rules load and evaluate; the refusal rule fires once events are rate limited.
        groups = eventually(lambda: [g for g in httpx.get(f"{api}/rules", timeout=10).json()["data"]["groups"]
                                     if all(r["lastEvaluation"] > "2000" for r in g["rules"])], "evaluated rules")
        assert {r["name"]: r["health"] for r in groups[0]["rules"]} == {
            "OutpostSpoolBacklog": "ok", "OutpostIngestRefusals": "ok", "OutpostAlertDeliveriesFailing": "ok"}
        tracked = make_tracked_project(server, server_sessionmaker(server))
        answers = [post_event(server, tracked.id, tracked.public_key, {"event_id": uuid.uuid4().hex}).status_code
                   for _ in range(3)]
        assert 429 in answers
        firing = eventually(lambda: [a for a in httpx.get(f"{api}/alerts", timeout=10).json()["data"]["alerts"]
                                     if a["state"] == "firing"], "the refusal alert to fire")
        assert [(a["labels"]["alertname"], a["labels"]["reason"]) for a in firing] == [
            ("OutpostIngestRefusals", "rate_limited")]
