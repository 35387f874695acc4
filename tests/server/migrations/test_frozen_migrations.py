"""A revision does what it did when it was written: it imports no module of the server that may change later.

It may use Alembic, SQLAlchemy, the standard library and third-party packages, the migration helpers beside
it (outpost_server.migrations.*) and the column type UTCDateTime (outpost_server.db, only for the DDL it
renders). Whatever else it needs (the scrubbing rules of 0008, the partition names of 0019 and 0021, the
secret box of 0024) it carries written out.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import REPO_ROOT

VERSIONS = REPO_ROOT / "server" / "outpost_server" / "migrations" / "versions"
ALLOWED = {"outpost_server.db": {"UTCDateTime"}}


def server_imports(path: Path) -> list[str]:
    """`module` or `module.name` for each import of outpost_server the file makes, wherever it makes it."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names if alias.name.split(".")[0] == "outpost_server"]
        elif isinstance(node, ast.ImportFrom) and (node.level or (node.module or "").split(".")[0] == "outpost_server"):
            module = node.module or ""
            found += [f"{'.' * node.level}{module}.{alias.name}" for alias in node.names]
    return found


def forbidden(imported: str) -> bool:
    module, _, name = imported.rpartition(".")
    if module.startswith("outpost_server.migrations"):
        return False
    return name not in ALLOWED.get(module, set())


def test_the_reader_sees_a_domain_import(tmp_path):
    revision = tmp_path / "revision.py"
    revision.write_text("import json\nfrom outpost_server.error_tracking.digest.scrubbing import scrub_event\n"
                        "def upgrade():\n    from outpost_server.security import SecretBox\n")
    assert server_imports(revision) == ["outpost_server.error_tracking.digest.scrubbing.scrub_event",
                                        "outpost_server.security.SecretBox"]
    assert forbidden("outpost_server.error_tracking.digest.scrubbing.scrub_event")
    assert forbidden("outpost_server.security.SecretBox")
    assert not forbidden("outpost_server.db.UTCDateTime")
    assert not forbidden("outpost_server.migrations.rebuild.sqlite_autoincrement")


@pytest.mark.parametrize("path", sorted(VERSIONS.glob("*.py")), ids=lambda path: path.name)
def test_a_revision_imports_no_server_module_that_may_change(path):
    offending = [name for name in server_imports(path) if forbidden(name)]
    assert not offending, f"{path.name} imports {offending}: write out what it needs in the revision itself"


def test_migrating_says_nothing_but_that_it_is_done(tmp_path):
    """No SAWarning (batch mode cannot reflect the expression indexes of 0022; they are made again)."""
    result = subprocess.run([sys.executable, "-m", "outpost_server", "migrate", "--data-dir", str(tmp_path)],
                            capture_output=True, text=True, cwd=REPO_ROOT, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "Warning" not in result.stderr, result.stderr
