"""Helpers shared by the end-to-end tests and the soak run: security reports, exports and events."""

from __future__ import annotations

import gzip
import json
import time
import uuid

import httpx

POLL_TIMEOUT = 60


def sast_report(findings: int, *, tag: str = "") -> dict:
    """A minimal GitLab SAST report (schema 15.x) with `findings` distinct findings."""
    tool = {"id": "semgrep", "name": "Semgrep", "vendor": {"name": "GitLab"}, "version": "1.45.0"}
    vulnerabilities = []
    for index in range(findings):
        vulnerabilities.append({
            "id": str(uuid.uuid4()),
            "category": "sast",
            "name": f"Finding {tag}{index}, with \"quotes\" and commas",
            "description": "=cmd|' /C calc'!A0 starts like a formula",
            "severity": ("Critical", "High", "Medium", "Low")[index % 4],
            "scanner": {"id": "semgrep", "name": "Semgrep"},
            "location": {"file": f"app/{tag}module_{index}.py", "start_line": index + 1},
            "identifiers": [{"type": "cwe", "name": f"CWE-{79 + index}", "value": str(79 + index)}],
        })
    return {"version": "15.0.7", "vulnerabilities": vulnerabilities,
            "scan": {"analyzer": tool, "scanner": tool, "type": "sast", "status": "success",
                     "start_time": "2024-03-04T10:15:02", "end_time": "2024-03-04T10:15:41"}}


def upload_report(client: httpx.Client, project_id: int, report: dict) -> None:
    response = client.post(f"/projects/{project_id}/security/reports", json=report)
    assert response.status_code == 201, response.text


def find_vulnerability(client: httpx.Client, project_id: int, tag: str) -> dict:
    """The vulnerability imported from a report made with sast_report(tag=tag)."""
    page = 1
    while page:
        response = client.get(f"/projects/{project_id}/vulnerabilities", params={"per_page": 100, "page": page})
        assert response.status_code == 200, response.text
        for vulnerability in response.json():
            if vulnerability["title"].startswith(f"Finding {tag}"):
                return vulnerability
        page = int(response.headers.get("X-Next-Page") or 0)
    raise AssertionError(f"no vulnerability tagged {tag}")


def wait_for_export(client: httpx.Client, export_id: int, timeout: float = POLL_TIMEOUT,
                    resource: str = "vulnerability_exports") -> dict:
    """Polls an export (or with resource="vulnerability_archive_exports" an archive export) until it is
    finished or failed (GitLab answers 202 until then)."""
    deadline = time.monotonic() + timeout
    while True:
        response = client.get(f"/security/{resource}/{export_id}")
        assert response.status_code in (200, 202), response.text
        if response.status_code == 200:
            return response.json()
        assert time.monotonic() < deadline, f"export {export_id} still {response.json()['status']}"
        time.sleep(0.1)


def enable_error_tracking(client: httpx.Client, project_id: int) -> dict:
    """Turns on the integrated backend and returns a fresh client key (with its DSN)."""
    response = client.put(f"/projects/{project_id}/error_tracking/settings",
                          json={"active": True, "integrated": True})
    assert response.status_code == 200, response.text
    response = client.post(f"/projects/{project_id}/error_tracking/client_keys")
    assert response.status_code == 201, response.text
    return response.json()


def sentry_event(*, message: str = "boom", group: int = 0) -> dict:
    """A Python-SDK-shaped error event with a fresh event id."""
    return {
        "event_id": uuid.uuid4().hex,
        "timestamp": time.time(),
        "platform": "python",
        "level": "error",
        "environment": "production",
        "release": "shop@1.0.0",
        "sdk": {"name": "sentry.python", "version": "1.21.0"},
        "exception": {"values": [{
            "type": f"ValueError{group}",
            "value": message,
            "stacktrace": {"frames": [{"module": "shop.cart", "function": f"checkout_{group}",
                                       "filename": "shop/cart.py", "lineno": 42, "in_app": True}]},
        }]},
    }


def store_request(public_key: str, event: dict) -> tuple[dict[str, str], bytes]:
    """Headers and gzip'd body of a legacy store request as the Python SDK sends it."""
    headers = {
        "Content-Type": "application/json",
        "Content-Encoding": "gzip",
        "X-Sentry-Auth": f"Sentry sentry_key={public_key}, sentry_version=7, sentry_client=sentry.python/1.21.0",
    }
    return headers, gzip.compress(json.dumps(event).encode())


def store_path(project_id: int) -> str:
    return f"/api/v4/error_tracking/collector/api/{project_id}/store/"
