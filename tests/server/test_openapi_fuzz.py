"""schemathesis against the running server's /api/v4/openapi.json: no request may get a 500.

Every endpoint, GitLab's and Sentry's web API alike, declares the query and body parameters it reads
(params.Param), and what it answers (outpost_server/openapi), so the document names them all and every
answer is checked against its declared shape. The run is bounded (MAX_EXAMPLES per operation, MAX_SECONDS
overall) and seeded, so CI repeats the same cases; set OUTPOST_FUZZ_SEED to explore others. It must reach
MIN_CASES cases on SQLite and on PostgreSQL alike: fewer would mean the bounds no longer cover the API.
One worker: schemathesis's parallel workers hit a CPython 3.11 race in ast.parse ("AST constructor
recursion depth mismatch").
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tests.support import ApiHelper, launch_server

MAX_EXAMPLES = int(os.environ.get("OUTPOST_FUZZ_MAX_EXAMPLES", "25"))
# The time bound sits well above what 10,000 cases need on a busy machine: a bound near that need made the
# case count depend on the machine's load (2,891 cases in 300 s beside three busy xdist workers and another
# suite; 10,127 alone). PostgreSQL answers each case slower than SQLite (15 to 20 cases a second on a busy
# 2-core machine). The run sits in an xdist worker of its own, started first, beside the rest of the suite.
MAX_SECONDS = int(os.environ.get("OUTPOST_FUZZ_MAX_SECONDS", "1200"))
# The three revoking operations need far less time than the whole API.
REVOKING_SECONDS = 60
MIN_CASES = int(os.environ.get("OUTPOST_FUZZ_MIN_CASES", "10000"))
SEED = os.environ.get("OUTPOST_FUZZ_SEED", "20261122")

# Operations that revoke or replace the caller's own token, delete the caller or take their administrator
# rights (an administrator may delete themselves, hard_delete even as a group's sole owner, and set their
# own `admin` to false): fuzzed last, with a token of their own, so that they cannot turn every later case
# into a 401 or 403.
REVOKING = (r"^(DELETE /api/v4/personal_access_tokens/.*|POST /api/v4/personal_access_tokens/.*rotate"
            r"|DELETE /api/v4/users/\{user_id\}|PUT /api/v4/users/\{user_id\})$")


def _fuzz(server, schema_path: Path, token: str, selection: list[str], report: Path,
          max_seconds: int = MAX_SECONDS) -> subprocess.CompletedProcess:
    command = [str(Path(sys.executable).with_name("st")), "run", str(schema_path), "--url", server.url,
               "-H", f"PRIVATE-TOKEN: {token}",
               # Sentry's web API (/api/0/) reads the same token from a bearer header only.
               "-H", f"Authorization: Bearer {token}",
               *selection,
               "--checks", "not_a_server_error,response_schema_conformance",
               "--max-examples", str(MAX_EXAMPLES), "--max-time", str(max_seconds), "--seed", SEED,
               "--workers", "1", "--report", "ndjson", "--report-ndjson-path", str(report)]
    run = subprocess.run(command, capture_output=True, text=True, timeout=max_seconds + 120,
                         env={**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_TELEMETRY": "false"})
    print(run.stdout[run.stdout.find("SUMMARY"):] if "SUMMARY" in run.stdout else run.stdout[-3000:])
    return run


def _cases(run: subprocess.CompletedProcess) -> int:
    """The number of test cases schemathesis reports having generated."""
    found = re.search(r"(\d+) generated", run.stdout)
    assert found, run.stdout[-3000:]
    return int(found.group(1))


# The two bounded runs are the test's declared budget; the timeout adds their grace and the server's start.
@pytest.mark.budget(MAX_SECONDS + REVOKING_SECONDS)
@pytest.mark.timeout(MAX_SECONDS + REVOKING_SECONDS + 2 * 120 + 120)
def test_no_request_gets_a_500(tmp_path):
    server = launch_server(tmp_path / "server", demo=True)
    try:
        served = httpx.get(server.api_url + "/openapi.json", timeout=30).json()
        assert len(served["paths"]) > 20
        schema_path = tmp_path / "openapi.json"
        schema_path.write_text(json.dumps(served))
        run = _fuzz(server, schema_path, server.root_token, ["--exclude-name-regex", REVOKING],
                    tmp_path / "fuzz.ndjson")
        # The caller's token lived through the whole run: its cases were authenticated throughout.
        still = httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": server.root_token}, timeout=30)
        disposable = ApiHelper(server).user(admin=True)[1]
        revoking = _fuzz(server, schema_path, disposable, ["--include-name-regex", REVOKING],
                         tmp_path / "fuzz-revoking.ndjson", max_seconds=REVOKING_SECONDS)
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert _cases(run) >= MIN_CASES
    assert still.status_code == 200
    assert revoking.returncode == 0, revoking.stdout[-6000:] + revoking.stderr[-2000:]
    assert "Traceback" not in server.log_text(), server.log_text()[-4000:]
