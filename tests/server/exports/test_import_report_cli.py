"""`outpost-server import-report PROJECT FILE` writes into the database a running server uses."""

import subprocess
import sys

from tests.server.exports.helpers import REPORTS
from tests.support import REPO_ROOT, ApiHelper, start_server


def run_cli(server, *args: str) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "outpost_server", "import-report", *args, "--data-dir", str(server.data_dir)]
    if database_url := server.env.get("OUTPOST_DATABASE_URL"):
        command += ["--database-url", database_url]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO_ROOT, timeout=120)


def test_import_report_command(tmp_path):
    with start_server(tmp_path) as server:
        project = ApiHelper(server).project()
        done = run_cli(server, project["path_with_namespace"], str(REPORTS / "gl-container-scanning-report.json"))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == (f"Imported container_scanning report from Trivy into "
                                       f"{project['path_with_namespace']}: 2 new, 0 updated, 0 no longer detected")
        with server.client() as client:
            listed = client.get(f"/projects/{project['id']}/vulnerabilities").json()
        assert sorted(v["title"] for v in listed) == ["CVE-2019-14697 in musl-utils-1.1.20-r4",
                                                      "CVE-2019-19242 in sqlite-libs-3.26.0-r3"]
        broken = tmp_path / "broken.json"
        broken.write_text('{"version": "15.0.7", "vulnerabilities": []}')
        refused = run_cli(server, str(project["id"]), str(broken))
        assert refused.returncode == 1
        assert refused.stderr.strip().endswith(f"Cannot import {broken}: report.scan is missing")
        missing = run_cli(server, "no/such-project", str(REPORTS / "gl-sast-report.json"))
        assert (missing.returncode, missing.stderr.strip().splitlines()[-1]) == (1, "Project no/such-project not found")
