"""Bulk insertion of synthetic vulnerabilities straight into a server's database (for speed)."""

from __future__ import annotations

import datetime as dt
import hashlib
import uuid

from sqlalchemy import Table, insert
from sqlalchemy.engine import Engine

from outpost_server.db import make_engine
from outpost_server.vulnerabilities.models import Vulnerability

SEVERITIES = ("critical", "high", "medium", "low", "info", "unknown")
TOOLS = (("sast", "semgrep", "Semgrep"), ("dependency_scanning", "gemnasium", "Gemnasium"),
         ("container_scanning", "trivy", "Trivy"), ("secret_detection", "gitleaks", "Gitleaks"))
STATES = ("detected", "confirmed", "resolved", "dismissed")


def server_engine(data_dir, database_url: str | None = None) -> Engine:
    """An engine on the database a server with this data dir (or URL) uses."""
    if database_url:
        return make_engine(database_url)
    return make_engine(f"sqlite:///{(data_dir / 'outpost.sqlite3').resolve()}")


def synthetic_row(project_id: int, index: int, detected_at: dt.datetime) -> dict:
    report_type, scanner_id, scanner_name = TOOLS[index % len(TOOLS)]
    state = STATES[index % len(STATES)]
    return {
        "project_id": project_id,
        "fingerprint": hashlib.sha256(f"{project_id}-{index}-{uuid.uuid4().hex}".encode()).hexdigest(),
        "report_type": report_type,
        "scanner_external_id": scanner_id,
        "scanner_name": scanner_name,
        "title": f"Finding {index}: unsafe call, \"quoted\"",
        "description": f"Description of finding {index}\nwith a second line",
        "solution": None,
        "severity": SEVERITIES[index % len(SEVERITIES)],
        "state": state,
        "identifiers": [{"type": "cwe", "name": f"CWE-{index % 900}", "value": str(index % 900), "url": None},
                        {"type": "semgrep_id", "name": f"rule {index}", "value": f"r{index}", "url": None}],
        "location": {"file": f"src/module_{index % 97}.py", "start_line": index % 500 + 1, "class": "Handler"},
        "cvss_vectors": [{"vendor": "GitLab", "vector": "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H"}],
        "resolved_on_default_branch": index % 3 == 0,
        "dismissal_reason": "false_positive" if state == "dismissed" else None,
        "created_at": detected_at,
        "updated_at": detected_at,
    }


def insert_vulnerabilities(engine: Engine, project_id: int, count: int, *, batch: int = 5000) -> None:
    table = Vulnerability.__table__
    assert isinstance(table, Table)  # declarative typing says FromClause; a mapped class's table is a Table
    detected_at = dt.datetime(2024, 3, 4, 10, 15, 41, tzinfo=dt.timezone.utc)
    with engine.begin() as connection:
        for start in range(0, count, batch):
            rows = [synthetic_row(project_id, index, detected_at) for index in range(start, min(start + batch, count))]
            connection.execute(insert(table), rows)

