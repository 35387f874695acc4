"""schemathesis against the running server's /api/v4/openapi.json: no request may get a 500.

Every endpoint, GitLab's and Sentry's web API alike, declares the query and body parameters it reads
(params.Param), and what it answers (outpost_server/openapi), so the document names them all and every
answer is checked against its declared shape. The run is bounded by its number of cases (MAX_EXAMPLES per
operation in each phase), not by time, and seeded, so CI repeats the same cases whatever the machine's load;
set OUTPOST_FUZZ_SEED to explore others. It must reach MIN_CASES cases on SQLite and on PostgreSQL alike:
fewer would mean the bounds no longer cover the API.
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

# One seeded pass (coverage, fuzzing and stateful phases) at this many examples per operation gives 11,646
# cases (25 gave 7,687 and 40 gave 9,406), about 210 CPU-seconds of client and server. No --max-time: with
# one, schemathesis repeats fuzzing until the time is spent, so the run took its whole bound (1,200 s)
# whatever the machine, held a core from the rest of the suite all that time, and its count followed the load.
MAX_EXAMPLES = int(os.environ.get("OUTPOST_FUZZ_MAX_EXAMPLES", "60"))
# Only a hung run meets this bound (the pass takes about 4 minutes alone, far longer on a loaded machine).
HANG_SECONDS = 1800
MIN_CASES = int(os.environ.get("OUTPOST_FUZZ_MIN_CASES", "10000"))
SEED = os.environ.get("OUTPOST_FUZZ_SEED", "20261122")

# Operations that revoke or replace the caller's own token, delete the caller or take their administrator
# rights (an administrator may delete themselves, hard_delete even as a group's sole owner, and set their
# own `admin` to false): fuzzed last, with a token of their own, so that they cannot turn every later case
# into a 401 or 403.
REVOKING = (r"^(DELETE /api/v4/personal_access_tokens/.*|POST /api/v4/personal_access_tokens/.*rotate"
            r"|DELETE /api/v4/users/\{user_id\}|PUT /api/v4/users/\{user_id\})$")


def _fuzz(server, schema_path: Path, token: str, selection: list[str]) -> subprocess.CompletedProcess:
    command = [str(Path(sys.executable).with_name("st")), "run", str(schema_path), "--url", server.url,
               "-H", f"PRIVATE-TOKEN: {token}",
               # Sentry's web API (/api/0/) reads the same token from a bearer header only.
               "-H", f"Authorization: Bearer {token}",
               *selection,
               "--checks", "not_a_server_error,response_schema_conformance",
               "--max-examples", str(MAX_EXAMPLES), "--seed", SEED, "--workers", "1"]
    run = subprocess.run(command, capture_output=True, text=True, timeout=HANG_SECONDS,
                         env={**os.environ, "NO_COLOR": "1", "SCHEMATHESIS_TELEMETRY": "false"})
    print(run.stdout[run.stdout.find("SUMMARY"):] if "SUMMARY" in run.stdout else run.stdout[-3000:])
    return run


def _cases(run: subprocess.CompletedProcess) -> int:
    """The number of test cases schemathesis reports having generated."""
    found = re.search(r"(\d+) generated", run.stdout)
    assert found, run.stdout[-3000:]
    return int(found.group(1))


# The budget: the seeded pass beside three busy workers on a 2-core machine, on either database.
# What the fuzz's valid requests lead the server to say: exports that ask for mail on a server without SMTP,
# and multipart bodies with malformed headers.
@pytest.mark.expected_log(
    r"export \d+ asked for an email, but no SMTP server is configured",
    r"python_multipart\.multipart Found invalid character",
)
@pytest.mark.budget(900)
@pytest.mark.timeout(2 * HANG_SECONDS + 120)
def test_no_request_gets_a_500(tmp_path):
    server = launch_server(tmp_path / "server", demo=True)
    try:
        served = httpx.get(server.api_url + "/openapi.json", timeout=30).json()
        assert len(served["paths"]) > 20
        schema_path = tmp_path / "openapi.json"
        schema_path.write_text(json.dumps(served))
        run = _fuzz(server, schema_path, server.root_token, ["--exclude-name-regex", REVOKING])
        # The caller's token lived through the whole run: its cases were authenticated throughout.
        still = httpx.get(server.api_url + "/user", headers={"PRIVATE-TOKEN": server.root_token}, timeout=30)
        disposable = ApiHelper(server).user(admin=True)[1]
        revoking = _fuzz(server, schema_path, disposable, ["--include-name-regex", REVOKING])
    finally:
        server.stop()
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-2000:]
    assert _cases(run) >= MIN_CASES
    assert still.status_code == 200
    assert revoking.returncode == 0, revoking.stdout[-6000:] + revoking.stderr[-2000:]
    assert "Traceback" not in server.log_text(), server.log_text()[-4000:]
