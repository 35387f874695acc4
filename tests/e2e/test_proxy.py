"""The shipped nginx configuration (deploy/nginx/outpost.conf) in front of two replicas on one PostgreSQL.

Clients only ever talk to the proxy, over TLS: python-gitlab follows pagination links, a real
Sentry SDK sends events, one replica is killed under load, and a 100,000-row export is downloaded.
Needs PostgreSQL (marked `postgres`) and Debian's nginx (marked `nginx`); CI has both.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path

import gitlab
import httpx
import pytest
import sentry_sdk

from bench.exports.seed import insert_vulnerabilities, server_engine
from tests.e2e.databases import stored_event_ids
from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, wait_for_export
from tests.e2e.nginx import Proxy, nginx_in_front_of
from tests.e2e.senders import Senders
from tests.e2e.test_replicas import replicas
from tests.support import ApiHelper, RunningServer, launch_server

pytestmark = [pytest.mark.postgres, pytest.mark.nginx]
EXPORT_ROWS = 100_000
DOWNLOAD_PATH = "/api/v4/security/vulnerability_exports/{id}/download"


@contextlib.contextmanager
def deployment(tmp_path: Path) -> Iterator[tuple[RunningServer, RunningServer, Proxy]]:
    with replicas(tmp_path) as (a, b), nginx_in_front_of([a.url, b.url], tmp_path / "nginx") as proxy:
        yield a, b, proxy


def test_python_gitlab_pagination_links_name_the_proxy(tmp_path):
    with deployment(tmp_path) as (a, _b, proxy):
        api = ApiHelper(a)
        created = {api.user()[0]["username"] for _ in range(12)}
        with httpx.Client(base_url=proxy.url, verify=proxy.ssl_context()) as client:
            response = client.get("/api/v4/users", params={"per_page": 5},
                                  headers={"PRIVATE-TOKEN": a.root_token})
        assert response.status_code == 200, response.text
        links = [link.split(">")[0].lstrip(" <") for link in response.headers["Link"].split(",")]
        assert links and all(link.startswith(f"{proxy.url}/api/v4/users?") for link in links), links

        gl = gitlab.Gitlab(proxy.url, private_token=a.root_token, ssl_verify=str(proxy.ca_file), per_page=5)
        with warnings.catch_warnings():
            # python-gitlab warns (a UserWarning) when a link names another base URL than the one it was given;
            # only that kind, so a socket another test left to the collector is not counted here.
            warnings.simplefilter("error", UserWarning)
            gl.auth()
            usernames = {user.username for user in gl.users.list(iterator=True)}
        assert created <= usernames
        assert len(usernames) >= 13  # the created users and root, over at least three pages


def test_sdk_events_through_the_proxy_are_stored_even_while_a_replica_dies(tmp_path):
    with deployment(tmp_path) as (a, b, proxy):
        project = ApiHelper(a).project()
        with proxy_api(proxy, a.root_token) as through_proxy:
            key = enable_error_tracking(through_proxy, project["id"])
        database = a.env["OUTPOST_DATABASE_URL"]
        assert key["sentry_dsn"].startswith(f"https://{key['public_key']}@127.0.0.1:{proxy.url.rsplit(':', 1)[1]}/")

        # A real SDK, configured only with the DSN the server handed out.
        client = sentry_sdk.Client(key["sentry_dsn"], ca_certs=str(proxy.ca_file), default_integrations=False)
        hub = sentry_sdk.Hub(client)
        sent = []
        for number in range(5):
            try:
                raise RuntimeError(f"through the proxy {number}")
            except RuntimeError:
                sent.append(hub.capture_exception())
        client.flush(timeout=30)
        client.close()
        a.wait_for_digest()
        b.wait_for_digest()
        assert set(sent) <= set(stored_event_ids(database, project["id"]))

        # The key in the query string reaches the replica untouched.
        event = sentry_event(message="key in the query")
        with httpx.Client(base_url=proxy.url, verify=proxy.ssl_context()) as raw:
            response = raw.post(store_path(project["id"]),
                                params={"sentry_key": key["public_key"], "sentry_version": 7},
                                content=json.dumps(event), headers={"Content-Type": "application/json"})
        assert response.status_code == 200, response.text
        a.wait_for_digest()
        b.wait_for_digest()
        assert event["event_id"] in stored_event_ids(database, project["id"])

        with Senders([proxy.url], project["id"], key["public_key"], count=6, verify=proxy.ssl_context()) as senders:
            senders.wait_for_accepted(100)
            b.process.kill()
            b.process.wait()
            accepted_before_kill = len(senders.ledger.accepted)
            senders.wait_for_accepted(accepted_before_kill + 200)
        # What the killed replica had accepted but not yet digested waits in its spool, on its own disk,
        # until it starts again on the same data dir.
        back = launch_server(b.data_dir, database_url=database, root_token=b.root_token,
                             extra_env={"OUTPOST_SECRET_KEY": b.env["OUTPOST_SECRET_KEY"]})
        try:
            a.wait_for_digest()
            back.wait_for_digest()
        finally:
            back.stop()
        stored = set(stored_event_ids(database, project["id"]))
        missing = set(senders.ledger.accepted) - stored
        assert not missing, f"{len(missing)} events answered 200 were not stored"
        # Requests in flight on the killed replica get nginx's 502; nothing goes unanswered or fails inside.
        assert set(senders.ledger.statuses) <= {200, 502}, senders.ledger.statuses
        assert senders.ledger.unanswered == 0


def test_a_100000_row_export_streams_through_the_proxy(tmp_path):
    with deployment(tmp_path) as (a, b, proxy):
        api = ApiHelper(a)
        project = api.project()
        engine = server_engine(a.data_dir, a.env["OUTPOST_DATABASE_URL"])
        insert_vulnerabilities(engine, project["id"], EXPORT_ROWS)
        engine.dispose()
        with proxy_api(proxy, a.root_token) as client:
            export = client.post(f"/security/projects/{project['id']}/vulnerability_exports").json()
            assert wait_for_export(client, export["id"], timeout=900)["status"] == "finished"
            path = DOWNLOAD_PATH.format(id=export["id"])
            baseline = {server.process.pid: rss_kib(server) for server in (a, b)}
            with RssSampler([a, b]) as sampler, client.stream("GET", path.removeprefix("/api/v4")) as response:
                assert response.status_code == 200
                chunks = response.iter_raw()
                first = next(chunks)
                # Hold the rest: nginx passes the body through without spooling it, so the replica
                # cannot have finished sending while this client reads nothing.
                time.sleep(2)
                assert not any(download_logged(server, path) for server in (a, b)), \
                    "the replica finished sending before the client had read past the first bytes"
                assert proxy.spooled_files() == []
                size, lines = len(first), first.count(b"\n")
                for chunk in chunks:
                    size += len(chunk)
                    lines += chunk.count(b"\n")
        assert lines == EXPORT_ROWS + 1  # the header, then one line per vulnerability
        # The replica writes its request log line just after the last bytes leave it.
        deadline = time.monotonic() + 30
        while not (served_by := [server for server in (a, b) if download_logged(server, path)]):
            assert time.monotonic() < deadline, "no replica logged the download"
            time.sleep(0.1)
        assert len(served_by) == 1
        pid = served_by[0].process.pid
        growth_kib = sampler.peak[pid] - baseline[pid]
        print(f"export download through the proxy: {size} bytes; replica RSS grew {growth_kib} KiB")
        # Flat: the replica holds a few chunks at a time, not the file (tens of megabytes; 5 MB growth seen).
        assert growth_kib * 1024 < size / 3, f"RSS grew {growth_kib} KiB while sending {size} bytes"


def proxy_api(proxy: Proxy, token: str) -> httpx.Client:
    return httpx.Client(base_url=proxy.url + "/api/v4", verify=proxy.ssl_context(), headers={"PRIVATE-TOKEN": token},
                        timeout=60)


def rss_kib(server: RunningServer) -> int:
    for line in Path(f"/proc/{server.process.pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def download_logged(server: RunningServer, path: str) -> bool:
    """The replica's request log has the line written once a response is completely sent."""
    return any(entry["path"] == path for entry in server.request_log())


class RssSampler:
    """Peak resident memory of each replica, sampled while a download runs."""

    def __init__(self, servers: list[RunningServer]):
        self.servers = servers
        self.peak = {server.process.pid: rss_kib(server) for server in servers}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(0.05):
            for server in self.servers:
                self.peak[server.process.pid] = max(self.peak[server.process.pid], rss_kib(server))
