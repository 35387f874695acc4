"""Text that a column cannot hold (a NUL, which PostgreSQL refuses in text, or more characters than the
column has) is refused with GitLab's answer on both databases, never a 500; and a database error's logged
text never carries the statement's values. (Source maps: source_maps/test_manifest_text.py.)"""

from __future__ import annotations

import json

import pytest
import sqlalchemy as sa

from outpost_server.db import make_engine
from tests.server.exports.helpers import REPORTS
from tests.support import database_url_for


def test_a_security_report_with_a_nul_in_a_finding_is_refused(server, api):
    project = api.project()
    report = json.loads((REPORTS / "gl-sast-report.json").read_text())
    report["vulnerabilities"][0]["name"] = "SQL\x00injection"
    with server.client() as client:
        answer = client.post(f"/projects/{project['id']}/security/reports", json=report)
    assert (answer.status_code, answer.json()) == (
        400, {"message": "400 Bad request - vulnerabilities[0].name must not contain a NUL character"})


def test_a_database_errors_text_never_carries_the_statements_values(tmp_path):
    engine = make_engine(database_url_for(tmp_path) or f"sqlite:///{tmp_path}/outpost.db")
    with pytest.raises(sa.exc.DBAPIError) as failure, engine.connect() as connection:
        connection.execute(sa.text("SELECT * FROM no_such_table WHERE secret = :value"),
                           {"value": "glpat-very-secret-value"})
    engine.dispose()
    assert "glpat-very-secret-value" not in str(failure.value)
