"""A test server forked from the preloaded template behaves as the real `python -m outpost_server serve`:
a process of its own, the environment it was given, the same exit codes."""

from __future__ import annotations

import os
import signal

import pytest

from tests.preloaded_server import preloaded_servers
from tests.support import REPO_ROOT, ApiHelper, launch_server, start_server


def test_a_preloaded_server_runs_in_its_own_process_with_the_environment_it_was_given(tmp_path):
    with start_server(tmp_path / "a", extra_env={"OUTPOST_EXTERNAL_URL": "https://a.example.com"}) as a, \
            start_server(tmp_path / "b", extra_env={"OUTPOST_EXTERNAL_URL": "https://b.example.com"}) as b:
        template = preloaded_servers(REPO_ROOT).process.pid
        assert len({a.process.pid, b.process.pid, template, os.getpid()}) == 4
        assert ApiHelper(a).project()["web_url"].startswith("https://a.example.com/")
        assert ApiHelper(b).project()["web_url"].startswith("https://b.example.com/")
        assert "Listening on" not in a.log_text()  # stdout and stderr are the server's own


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGTERM, 0), (signal.SIGINT, 0), (signal.SIGKILL, -signal.SIGKILL)])
def test_a_preloaded_server_ends_with_the_exit_code_of_the_real_command(tmp_path, sig, code):
    server = launch_server(tmp_path / "server")
    assert server.process.poll() is None
    assert server.stop(sig) == code
    assert server.process.returncode == code


def test_a_start_that_fails_fails_as_the_real_command_does(tmp_path):
    outcomes = []
    for preloaded in (True, False):
        with pytest.raises(RuntimeError, match=r"server did not start \(exit code \d+\)") as failure:
            launch_server(tmp_path / str(preloaded), extra_env={"OUTPOST_DATABASE_URL": "nosuchdialect://"},
                          preloaded=preloaded)
        log = (tmp_path / str(preloaded) / "server.log").read_text()
        outcomes.append((str(failure.value).splitlines()[0], "sqlalchemy.dialects:nosuchdialect" in log,
                         "Application startup failed" in log))
    assert outcomes[0] == outcomes[1]
    assert outcomes[0][1:] == (True, True)


def test_a_start_that_sets_what_the_interpreter_reads_at_its_start_is_refused(tmp_path):
    with pytest.raises(ValueError, match="preloaded=False"):
        launch_server(tmp_path / "server", extra_env={"PYTHONPATH": str(tmp_path)})
