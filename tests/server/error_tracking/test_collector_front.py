"""Which requests the collector serves ahead of the framework's stack (collector.py, `OutpostApp.fronts`):
its URLs with the methods it answers, and nothing whose path the request log's middleware would rewrite
first. Their answers are the collector's tests' (test_collector_http.py, test_collector_cors.py)."""
from __future__ import annotations

import pytest

from outpost_server.app import create_app
from outpost_server.error_tracking.ingest.collector import taken_ahead

COLLECTOR = "/api/v4/error_tracking/collector/api"


def scope(method: str, path: str, raw_path: bytes | None = None) -> dict:
    return {"type": "http", "method": method, "path": path,
            "raw_path": raw_path if raw_path is not None else path.encode()}


@pytest.mark.parametrize(("method", "path"), [
    ("POST", f"{COLLECTOR}/12/store/"),
    ("POST", f"{COLLECTOR}/12/store"),
    ("POST", f"{COLLECTOR}/12/envelope/"),
    ("OPTIONS", f"{COLLECTOR}/12/envelope/"),
    ("GET", f"{COLLECTOR}/12/cron/nightly-job/0123456789abcdef0123456789abcdef/"),
    ("POST", f"{COLLECTOR}/12/cron/nightly-job/"),
])
def test_collector_urls_are_served_ahead(method: str, path: str) -> None:
    assert taken_ahead(scope(method, path))


@pytest.mark.parametrize(("method", "path", "raw_path"), [
    # Methods the collector does not answer fall through to GitLab's unknown-route 404.
    ("GET", f"{COLLECTOR}/12/store/", None),
    ("DELETE", f"{COLLECTOR}/12/envelope/", None),
    ("OPTIONS", f"{COLLECTOR}/12/cron/nightly-job/", None),
    # Decoded, this is a collector URL; the request log's middleware keeps the encoded slash, so it is not.
    ("POST", f"{COLLECTOR}/12/store/", f"{COLLECTOR}/12/store%2F".encode()),
    ("POST", f"{COLLECTOR}/12/store/", f"{COLLECTOR}/12/store%2f".encode()),
    ("POST", "/api/v4/projects/12/error_tracking/settings", None),
    ("POST", f"{COLLECTOR}/12/store/extra", None),
])
def test_other_requests_take_the_usual_way(method: str, path: str, raw_path: bytes | None) -> None:
    assert not taken_ahead(scope(method, path, raw_path))


def test_the_application_serves_the_collector_ahead(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("OUTPOST_DATA_DIR", str(tmp_path))
    app = create_app(database_ready=True)
    assert [takes for takes, _front in app.fronts] == [taken_ahead]
