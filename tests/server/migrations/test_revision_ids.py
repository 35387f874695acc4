"""Alembic keeps the current revision in alembic_version.version_num, VARCHAR(32) on PostgreSQL; a longer
id migrates on SQLite and fails on PostgreSQL."""

from __future__ import annotations

import ast

from tests.support import REPO_ROOT

VERSIONS = REPO_ROOT / "server" / "outpost_server" / "migrations" / "versions"


def _revision(path) -> str:
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "revision" for t in node.targets):
            assert isinstance(node.value, ast.Constant)
            return str(node.value.value)
    raise AssertionError(f"{path.name} names no revision")


def test_every_revision_id_fits_postgresql_version_column():
    revisions = {path.name: _revision(path) for path in VERSIONS.glob("*.py")}
    assert len(revisions) >= 10
    assert {name: revision for name, revision in revisions.items() if len(revision) > 32} == {}
