"""Ingestion benchmark: real gzip'd Python SDK events against a freshly started server.

    .venv/bin/python -m bench.ingest [--events 20000] [--concurrency 8 32] [--time-limit 60] [--workers auto]
                                     [--peer bugsink] [--digest-processes 1 default]

Loopback only and bounded in count and time. For each concurrency level it posts the recorded
4 KB Python SDK exception event (fresh event id and timestamp each time, spread over 50 groups)
to the store endpoint, and measures accepted events/s, fully processed events/s (until every
accepted event is counted in its error), p50/p99 latency and stored == accepted. The same load
then goes to a bare ASGI endpoint that only reads the body and answers 200 (the machine's
ceiling), and the ratio is reported. With `--peer bugsink` the same requests (to its own store path and
key) also go to Bugsink 2.6.1 running beside it (bench/bugsink_peer.py), and its stored rate is compared.
With `--digest-processes 1 default`, one Outpost per value of OUTPOST_DIGEST_PROCESSES takes the same load
in turn, in the same run.

The load generator runs in several processes with raw sockets, pre-built requests and
keep-alive connections, so it costs the server as little CPU as possible. Outpost runs with
`--workers auto` (one process per CPU) unless `--workers` says otherwise; its CPU time and memory are
summed over its processes (memory as peak RSS, which counts the pages forked workers share once per
process, and peak PSS, which divides them among the sharers). With several processes, the digester process's
share of the CPU is shown apart (the rest is the accept stage's), and so is the digest's own rate while it
drains the backlog left when the sending ends. The bare endpoint is one process.

Where the CPU goes (py-spy `record --gil --native` on one server process under this load at 32
senders; shares of the samples in which a server thread held the GIL). Before the changes that came
with the profile, at 0.41-0.46 ms of CPU per event:
  18%  the cyclic garbage collector: each event's decoded JSON allocates hundreds of containers, so
       collections ran constantly and the full ones walked every object made at start-up
       (now frozen after start-up with gc.freeze, and the first threshold raised to 10,000);
  17%  sending answers: uvicorn writes a response's head and body separately, two send() calls and
       two wake-ups of the client per event (now joined into one per response: http_protocol.py);
  14%  the collector writer's Python work per batch: statements built again (the client key check),
       expanding IN lists, per-row datetime conversion, begin/commit;
  ~10% collector glue (header dict, auth header parsing, access cache, body reading, futures);
  ~10% uvicorn's HTTP parsing and the Starlette/FastAPI middleware layers;
   7%  normalizing the event (title, culprit, fingerprint); 5% decoding its JSON with orjson;
   6%  the request log line (LogRecord, json.dumps, formatting, the write);
  <1%  gunzip; SQLite's own work runs with the GIL released.
After them, one process uses about 0.27-0.33 ms per event; the largest remaining items are the one
send() per answer (~13%), the writer's per-batch Python (~13%), normalizing plus decoding (~12%) and the
request log line (~6%). Worker processes (`--workers`) then spread this over the CPUs; with two, each
batch is smaller and the SQLite writers take turns, so CPU per event rises somewhat (about 0.35 ms).
Event tags and payload scrubbing, added to ingestion after that profile, more than doubled the CPU per
event in a side-by-side run (0.29 -> 0.65 ms on one process): scrubbing's walk of the payload, the tag
extraction in normalize, and the tag rows and tag counts the writer stores for every event.

Since the pipeline (accept into the spool, digest in batches; error_tracking/pipeline), measured per
process at 32 senders with `--workers auto` (two HTTP workers and the digester process): the workers
spend about 0.28 ms of CPU per event together and the digester about 0.25 ms. In the digester (py-spy
--gil): decoding and normalizing ~48% (orjson ~11%, the scrubbing walk ~10% after it stopped descending
into scalars and source lines, tags ~7%, the fingerprint ~5%), storing ~36% (SQLite's own work about
two thirds of it). In a worker: the one send() per answer ~18%, handing batches to the spool writer's
thread ~10%, the collector ~23% (accept checks with typed msgspec decoding, sealing, the spool append),
the ASGI layers ~5%. So one digester drains at most ~4,000 events/s on a core of its own, and less while
the workers share the two cores; tried and dropped as slower: a digester split into a decoding and a
storing thread (GIL contention), a spool writer on its own thread instead of an executor (smaller
batches), named SQLite parameters (no gain).

Per stage, against the budgets (accept 0.10, digest 0.22 ms per stored event): on a busy two-core machine
at 32 senders the accept stage used 0.46-0.52 ms and the digest 0.54-0.58 ms (decode 0.34-0.37, store
0.15-0.19). Scrubbing then took ~40% of the digester's busy samples: eight regex searches per value, the
case-insensitive ones dearest; two cheap searches now pass most values (decode 0.19 ms after). Writing
each table's rows in one statement per batch changed the store's CPU little on SQLite (its B-tree work
is the same, and sqlite3's executemany was cheap already) and saved about a fifth of the client's and of
PostgreSQL's CPU there, where a VALUES list of thousands of parameters cost more than per-row
execution: arrays through unnest() keep one statement text, parsed and prepared once.

The accept stage after that, each change against the tree before it in alternating runs on the same loaded
machine (accept CPU per event, median ratio): the spool writer on a thread of its own, handed each pass of
the event loop's requests as one list (so batches stay as large as with the executor) and answering each
batch with one call back, x1.01 in the server (x0.70-0.94 for the writer alone, in one process); a 2 ms
commit delay while commits follow each other (batches of 5-10 became 12-14), x0.89; the collector served
ahead of the framework's stack, with only the request log's middleware, x0.81. granian used x1.2-1.7 the
CPU per request of uvicorn with httptools and uvloop on the bare endpoint; sentry-relay's StoreNormalizer
alone (0.165 ms per event) cost more than Outpost's whole scrub and derive (0.125 ms). The accept stage
stays about 0.37-0.61 ms per event against its 0.10 budget: the bare request alone is 0.035-0.05 ms here,
and the rest is spread over the answer's send (~14% of a worker's GIL samples), the collector's checks
(~16%), the request log (~8%) and the writer (~13%), with no part large enough to close the gap.
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
import json
import multiprocessing
import os
import re
import secrets
import socket
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import httpx

from bench.bugsink_peer import BugsinkPeer

REPO_ROOT = Path(__file__).resolve().parents[1]
FIXTURE = (REPO_ROOT / "tests" / "fixtures" / "sentry" / "python-sentry-sdk-1.21.0" / "2-default-no-tracing"
           / "0001-post-store.decoded.txt")
GROUPS = 50
# Counted among the statuses: refusals (429, 503) that did not say when to retry.
NO_RETRY_AFTER = -1
START_TIMEOUT = 60


# --- the bare ASGI endpoint (the ceiling) ----------------------------------------------------


async def bare_app(scope, receive, send):
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return
    more = True
    while more:
        message = await receive()
        more = message.get("more_body", False)
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"{}"})


def run_bare_server(port: int) -> None:
    import uvicorn

    uvicorn.run(bare_app, host="127.0.0.1", port=port, log_level="warning", access_log=False)


# --- servers ---------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for_port(port: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError("server exited during start-up")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server did not start")


def start_outpost(data_dir: Path, token: str, workers: str = "1",
                  digest_processes: str = "default") -> tuple[subprocess.Popen, int]:
    port = free_port()
    env = {**os.environ, "OUTPOST_ROOT_TOKEN": token, "OUTPOST_LOG_LEVEL": os.environ.get("OUTPOST_LOG_LEVEL", "INFO")}
    env.pop("OUTPOST_DATABASE_URL", None)
    env.pop("OUTPOST_DIGEST_PROCESSES", None)
    if digest_processes != "default":
        env["OUTPOST_DIGEST_PROCESSES"] = digest_processes
    log = open(data_dir / "server.log", "ab")
    process = subprocess.Popen(
        [sys.executable, "-m", "outpost_server", "serve", "--host", "127.0.0.1", "--port", str(port),
         "--data-dir", str(data_dir), "--workers", workers],
        cwd=REPO_ROOT, env=env, stdout=subprocess.DEVNULL, stderr=log,
    )
    wait_for_port(port, process)
    return process, port


def start_bare() -> tuple[subprocess.Popen, int]:
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "bench.ingest", "--bare-server", str(port)], cwd=REPO_ROOT)
    wait_for_port(port, process)
    return process, port


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(timeout=20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def prepare_project(port: int, token: str) -> tuple[int, str]:
    with httpx.Client(base_url=f"http://127.0.0.1:{port}/api/v4", headers={"PRIVATE-TOKEN": token}, timeout=30) as api:
        project = api.post("/projects", json={"name": "bench-" + uuid.uuid4().hex[:8]}).raise_for_status().json()
        api.put(f"/projects/{project['id']}/error_tracking/settings", json={"active": True, "integrated": True}
                ).raise_for_status()
        key = api.get(f"/projects/{project['id']}/error_tracking/client_keys").raise_for_status().json()[0]
    return project["id"], key["public_key"]


# --- load generation -------------------------------------------------------------------------


def outpost_store_path(project_id: int) -> str:
    return f"/api/v4/error_tracking/collector/api/{project_id}/store/"


def build_requests(count: int, offset: int, path: str, public_key: str) -> list[bytes]:
    """Complete HTTP requests to `path`, each a fresh event (id, timestamp) in one of 50 groups, gzip'd."""
    template = json.loads(FIXTURE.read_bytes())
    requests = []
    for index in range(offset, offset + count):
        event = dict(template)
        event["event_id"] = uuid.uuid4().hex
        event["timestamp"] = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime()) + ".000000Z"
        exception = json.loads(json.dumps(template["exception"]))
        exception["values"][-1]["type"] = f"BenchError{index % GROUPS}"
        event["exception"] = exception
        body = gzip.compress(json.dumps(event).encode())
        head = (
            f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"X-Sentry-Auth: Sentry sentry_key={public_key}, sentry_version=7, sentry_client=sentry.python/1.21.0\r\n"
            "User-Agent: sentry.python/1.21.0\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\n"
            f"Accept-Encoding: identity\r\nContent-Length: {len(body)}\r\n\r\n"
        )
        requests.append(head.encode() + body)
    return requests


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, bool, bool]:
    """The status, whether the server closes the connection after this response, and whether it says
    when to retry."""
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    closes = retry_after = False
    for line in head.split(b"\r\n"):
        lowered = line.lower()
        if lowered[:15] == b"content-length:":
            length = int(line[15:])
        elif lowered.startswith(b"connection:") and b"close" in lowered:
            closes = True  # e.g. gunicorn's sync workers, which do not keep connections alive
        elif lowered.startswith(b"retry-after:"):
            retry_after = True
    if length:
        await reader.readexactly(length)
    return status, closes, retry_after


async def _drive(port: int, requests: list[bytes], connections: int, deadline: float,
                 rate: float | None = None) -> tuple[list[float], dict[int, int]]:
    """Sends the requests over `connections` keep-alive connections, as fast as answered or, with
    `rate`, paced to that many requests per second in all."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    position = 0
    interval = connections / rate if rate else 0.0

    async def connection() -> None:
        nonlocal position
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        next_at = time.monotonic()
        try:
            while position < len(requests) and time.monotonic() < deadline:
                if interval:
                    next_at += interval
                    await asyncio.sleep(max(0.0, next_at - time.monotonic()))
                    if position >= len(requests):
                        break
                request = requests[position]
                position += 1
                started = time.perf_counter()
                writer.write(request)
                status, closes, retry_after = await _read_response(reader)
                latencies.append(time.perf_counter() - started)
                statuses[status] = statuses.get(status, 0) + 1
                if status in (429, 503) and not retry_after:
                    statuses[NO_RETRY_AFTER] = statuses.get(NO_RETRY_AFTER, 0) + 1
                if closes:
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
        finally:
            writer.close()

    await asyncio.gather(*(connection() for _ in range(connections)))
    return latencies, statuses


def _load_worker(port, requests, connections, start_at, deadline, results, rate=None) -> None:
    try:
        import uvloop

        uvloop.install()
    except ImportError:
        pass
    while time.time() < start_at:
        time.sleep(0.001)
    monotonic_deadline = time.monotonic() + (deadline - time.time())
    try:
        results.put(asyncio.run(_drive(port, requests, connections, monotonic_deadline, rate)))
    except Exception as error:  # report instead of leaving the parent waiting
        results.put(error)


def run_load(port: int, request_sets: list[list[bytes]], concurrency: int, time_limit: float,
             rate: float | None = None) -> dict:
    """Drive `concurrency` connections spread over one process per request set (paced to `rate` in all)."""
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    start_at = time.time() + 0.5
    workers = []
    per_worker = [concurrency // len(request_sets) + (1 if i < concurrency % len(request_sets) else 0)
                  for i in range(len(request_sets))]
    for requests, connections in zip(request_sets, per_worker, strict=True):
        worker_rate = rate * connections / concurrency if rate else None
        worker = context.Process(target=_load_worker,
                                 args=(port, requests, connections, start_at, start_at + time_limit, results,
                                       worker_rate))
        worker.start()
        workers.append(worker)
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    for _ in workers:
        outcome = results.get()
        if isinstance(outcome, Exception):
            raise RuntimeError(f"load generator failed: {outcome!r}")
        worker_latencies, worker_statuses = outcome
        latencies += worker_latencies
        for status, count in worker_statuses.items():
            statuses[status] = statuses.get(status, 0) + count
    finished = time.time()
    for worker in workers:
        worker.join()
    latencies.sort()
    return {
        "started": start_at,
        "finished": finished,
        "elapsed": finished - start_at,
        "sent": len(latencies),
        "accepted": statuses.get(200, 0),
        "statuses": statuses,
        "p50_ms": 1000 * statistics.median(latencies) if latencies else None,
        "p99_ms": 1000 * latencies[min(len(latencies) - 1, int(len(latencies) * 0.99))] if latencies else None,
    }


def process_tree(pid: int) -> list[int]:
    """The process and its descendants (the server's worker processes), as far as they still run."""
    found = [pid]
    try:
        threads = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return []
    for thread in threads:
        try:
            children = Path(f"/proc/{pid}/task/{thread}/children").read_text().split()
        except OSError:
            continue
        for child in children:
            found += process_tree(int(child))
    return found


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process, its live descendants and its reaped children have used so far."""
    total = 0.0
    for member in process_tree(pid):
        try:
            fields = Path(f"/proc/{member}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(value) for value in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    return total


def own_cpu_seconds(pid: int) -> float:
    """User + system CPU time of the process alone (not its children)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return sum(int(value) for value in fields[11:13]) / os.sysconf("SC_CLK_TCK")


# Server CPU per stored event that each stage may use (ms): accept, digest (decode + store), together.
BUDGETS_MS = {"accept": 0.10, "digest": 0.22, "together": 0.32}


def stage_seconds(data_dir: Path) -> dict[str, float]:
    """The digester thread's CPU seconds per stage so far (decode, store), as the spool's counters hold them."""
    with sqlite3.connect(f"file:{data_dir / 'ingest-spool.sqlite3'}?mode=ro", uri=True, timeout=30) as connection:
        return {label: value for label, value in connection.execute(
            "SELECT label, value FROM counters WHERE name = 'digest_cpu_seconds'")}


def digester_pid(data_dir: Path) -> int | None:
    """The digester process of `serve --workers N` (N > 1), as the server's log names it; None when the
    digester is a thread of the one server process (its CPU cannot be told apart then)."""
    found = re.findall(r"digester process (\d+) started", (data_dir / "server.log").read_text(errors="replace"))
    return int(found[-1]) if found else None


def memory_mb(pid: int) -> tuple[float, float]:
    """(RSS, PSS) of the process tree in MB. RSS counts the pages that forked workers share once per
    process; PSS divides each shared page among its sharers, so its sum is the memory really used."""
    rss = pss = 0
    for member in process_tree(pid):
        try:
            for line in Path(f"/proc/{member}/smaps_rollup").read_text().splitlines():
                if line.startswith("Rss:"):
                    rss += int(line.split()[1])
                elif line.startswith("Pss:"):
                    pss += int(line.split()[1])
        except OSError:
            continue
    return rss / 1024, pss / 1024


class MemoryPeak:
    """Samples the server's memory while a run goes on; `rss` and `pss` are the peaks seen."""

    def __init__(self, pid: int, interval: float = 0.25):
        self.pid, self.interval = pid, interval
        self.rss = self.pss = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def __enter__(self) -> MemoryPeak:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def _sample(self) -> None:
        while True:
            rss, pss = memory_mb(self.pid)
            self.rss, self.pss = max(self.rss, rss), max(self.pss, pss)
            if self._stop.wait(self.interval):
                return


def counted_events(database: Path, project_id: int) -> tuple[int, int]:
    """(sum of error counts, stored event rows) as the server's database holds them."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=30) as connection:
        counted = connection.execute(
            "SELECT COALESCE(SUM(count), 0) FROM error_tracking_errors WHERE project_id = ?",
            (project_id,)).fetchone()[0]
        stored = connection.execute(
            "SELECT COUNT(*) FROM error_tracking_error_events WHERE project_id = ?", (project_id,)).fetchone()[0]
    return counted, stored


class FreshnessProbe:
    """While a load runs, sends one extra event every `interval` seconds and measures the time from its
    200 to its row being readable in the server's database (what every list reads)."""

    def __init__(self, port: int, project_id: int, public_key: str, database: Path, interval: float = 0.1):
        self.port, self.project_id, self.public_key, self.database = port, project_id, public_key, database
        self.interval = interval
        self.samples: list[float] = []
        self.unseen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._probe, daemon=True)

    def __enter__(self) -> FreshnessProbe:
        self._thread.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self._stop.set()
        self._thread.join()

    def p99_ms(self) -> float | None:
        if not self.samples:
            return None
        ordered = sorted(self.samples)
        return 1000 * ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]

    def _probe(self) -> None:
        path = outpost_store_path(self.project_id)
        template = json.loads(FIXTURE.read_bytes())
        with httpx.Client(base_url=f"http://127.0.0.1:{self.port}", timeout=30) as client, \
                sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=30) as db:
            while not self._stop.wait(self.interval):
                event_id = uuid.uuid4().hex
                event = {**template, "event_id": event_id}
                answer = client.post(path, content=json.dumps(event), headers={
                    "X-Sentry-Auth": f"Sentry sentry_key={self.public_key}, sentry_version=7",
                    "Content-Type": "application/json"})
                if answer.status_code != 200:
                    continue
                answered = time.perf_counter()
                deadline = answered + 30
                while time.perf_counter() < deadline:
                    if db.execute("SELECT 1 FROM error_tracking_error_events WHERE project_id = ? AND event_id = ?",
                                  (self.project_id, event_id)).fetchone():
                        self.samples.append(time.perf_counter() - answered)
                        break
                    time.sleep(0.002)
                else:
                    self.unseen += 1


# --- the run ---------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20000, help="events per concurrency level (default 20000)")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[8, 32])
    parser.add_argument("--time-limit", type=float, default=60.0, help="seconds per load run (default 60)")
    parser.add_argument("--processes", type=int, default=2, help="load generator processes (default 2)")
    parser.add_argument("--workers", default="auto",
                        help="Outpost's server processes (serve --workers; default auto: one per CPU)")
    parser.add_argument("--peer", choices=["bugsink"], help="also run the same load against this peer")
    parser.add_argument("--digest-processes", nargs="+", default=["default"], metavar="N",
                        help="one Outpost per value of OUTPOST_DIGEST_PROCESSES ('default': unset), each run in turn "
                             "with the same load before the bare endpoint's run (default: default)")
    parser.add_argument("--paced-rate", type=float, default=1000.0,
                        help="events/s of the paced run that measures freshness at a steady load (default 1000; "
                             "0 skips it)")
    parser.add_argument("--spike", type=int, metavar="EVENTS",
                        help="instead: send this many events as fast as 64 senders can, then check that each was "
                             "accepted or refused with 429 and Retry-After, and that every accepted one is stored")
    parser.add_argument("--bare-server", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.bare_server:
        run_bare_server(args.bare_server)
        return 0

    token = "glpat-bench-" + secrets.token_hex(8)
    if args.spike:
        return run_spike(args, token)
    report = []
    settings = args.digest_processes
    with tempfile.TemporaryDirectory(prefix="outpost-bench-") as tmp:
        outposts = []
        for setting in settings:
            data_dir = Path(tmp) / f"outpost-{setting}"
            data_dir.mkdir()
            outposts.append((setting, data_dir, *start_outpost(data_dir, token, args.workers, setting)))
        bare, bare_port = start_bare()
        peer = None
        if args.peer == "bugsink":
            peer = BugsinkPeer(Path(tmp) / "bugsink", free_port())
            wait_for_port(peer.port, peer.start())
        try:
            probes = {setting: prepare_project(port, token) for setting, _, _, port in outposts}
            for concurrency in args.concurrency:
                runs = []
                for setting, data_dir, outpost, port in outposts:
                    project_id, public_key = prepare_project(port, token)
                    request_sets = [
                        build_requests(args.events // args.processes, i * (args.events // args.processes),
                                       outpost_store_path(project_id), public_key)
                        for i in range(args.processes)
                    ]
                    run, counted, stored, processed_at = measure_outpost(
                        outpost.pid, port, data_dir, project_id, request_sets, probes[setting], concurrency,
                        args.time_limit)
                    runs.append((setting, run, counted, stored, processed_at))
                cpu_before = cpu_seconds(bare.pid)
                ceiling = run_load(bare_port, request_sets, concurrency, args.time_limit)
                ceiling["cpu_ms"] = 1000 * (cpu_seconds(bare.pid) - cpu_before) / max(ceiling["sent"], 1)
                peer_run = None
                if peer is not None:
                    peer_sets = [build_requests(args.events // args.processes, i * (args.events // args.processes),
                                                peer.store_path, peer.public_key) for i in range(args.processes)]
                    before = peer.stored_events()
                    peer_run = run_load(peer.port, peer_sets, concurrency, args.time_limit)
                    peer_run["stored"] = peer.stored_events() - before
                report.append((concurrency, runs, ceiling, peer_run))
            paced = {}
            if args.paced_rate:
                for setting, data_dir, _, port in outposts:
                    project_id, public_key = prepare_project(port, token)
                    paced_count = int(args.paced_rate * 15)
                    paced_sets = [build_requests(paced_count // args.processes, i * (paced_count // args.processes),
                                                 outpost_store_path(project_id), public_key)
                                  for i in range(args.processes)]
                    with FreshnessProbe(port, *probes[setting], data_dir / "outpost.sqlite3") as probe:
                        paced[setting] = run_load(port, paced_sets, 32, 20.0, rate=args.paced_rate)
                    paced[setting]["fresh_p99_ms"], paced[setting]["fresh_samples"] = probe.p99_ms(), len(probe.samples)
        finally:
            for _, _, outpost, _ in outposts:
                stop(outpost)
            stop(bare)
            if peer is not None and peer.process is not None:
                stop(peer.process)

    print(f"Ingestion benchmark: {args.events} gzip'd Python SDK events over {GROUPS} groups per run, "
          f"{args.processes} load processes, {os.cpu_count()} CPUs, SQLite, outpost-server --workers {args.workers}, "
          f"load average {os.getloadavg()[0]:.1f}")
    print("Server CPU per request is also shown: on a shared machine it is steadier than wall-clock rates.")
    ok = True
    for concurrency, runs, ceiling, peer_run in report:
        bare_rate = ceiling["accepted"] / ceiling["elapsed"]
        print(f"\nconcurrency {concurrency}")
        for setting, run, counted, stored, processed_at in runs:
            processed_rate = counted / (processed_at - run["started"])
            ok = report_outpost(setting, run, counted, stored, processed_rate) and ok
            print(f"  ratio   : outpost fully processed / bare = {processed_rate / bare_rate:.3f}; "
                  f"bare CPU / outpost CPU per event = {ceiling['cpu_ms'] / run['cpu_ms']:.3f}")
        print(f"  bare    : {ceiling['accepted']} answered, {bare_rate:,.0f} requests/s, "
              f"p50 {ceiling['p50_ms']:.1f} ms, p99 {ceiling['p99_ms']:.1f} ms, "
              f"server CPU {ceiling['cpu_ms']:.2f} ms/request")
        if peer_run is not None:
            peer_rate = peer_run["stored"] / peer_run["elapsed"]
            print(f"  bugsink : {peer_run['sent']} sent, {peer_run['accepted']} accepted, statuses "
                  f"{peer_run['statuses']}, stored {peer_run['stored']}")
            print(f"            stored {peer_rate:,.0f} events/s, p50 {peer_run['p50_ms']:.1f} ms, "
                  f"p99 {peer_run['p99_ms']:.1f} ms")
            for setting, run, counted, _, processed_at in runs:
                processed_rate = counted / (processed_at - run["started"])
                print(f"  ratio   : outpost ({_setting(setting)}) end to end / bugsink stored = "
                      f"{processed_rate / max(peer_rate, 1e-9):.1f}")
    for setting, paced_run in paced.items():
        print(f"\npaced at {args.paced_rate:,.0f} events/s (32 connections), {_setting(setting)}: "
              f"{paced_run['accepted']} accepted of {paced_run['sent']}, accept p99 {paced_run['p99_ms']:.1f} ms, "
              f"freshness p99 {_ms(paced_run['fresh_p99_ms'])} from 200 to listed "
              f"({paced_run['fresh_samples']} probes)")
    return 0 if ok else 1


def measure_outpost(pid: int, port: int, data_dir: Path, project_id: int, request_sets: list[list[bytes]],
                    probe_project: tuple[int, str], concurrency: int,
                    time_limit: float) -> tuple[dict, int, int, float]:
    """One load run against one Outpost: (run figures, counted, stored, when the last event was counted)."""
    database = data_dir / "outpost.sqlite3"
    cpu_before = cpu_seconds(pid)
    digester = digester_pid(data_dir)
    digest_cpu_before = cpu_seconds(digester) if digester else 0.0
    digester_own_before = own_cpu_seconds(digester) if digester else 0.0
    stages_before = stage_seconds(data_dir)
    with MemoryPeak(pid) as memory, FreshnessProbe(port, *probe_project, database) as probe:
        run = run_load(port, request_sets, concurrency, time_limit)
        deadline = time.time() + time_limit
        counted, stored = counted_events(database, project_id)
        run["counted_at_send_end"], run["send_end"] = counted, time.time()
        while counted < run["accepted"] and time.time() < deadline:
            time.sleep(0.02)
            counted, stored = counted_events(database, project_id)
        drained_at = time.time()
    run["rss_mb"], run["pss_mb"] = memory.rss, memory.pss
    run["fresh_p99_ms"], run["fresh_samples"] = probe.p99_ms(), len(probe.samples)
    run["load_average"] = os.getloadavg()[0]
    run["cpu_ms"] = 1000 * (cpu_seconds(pid) - cpu_before) / max(run["sent"], 1)
    run["digest_cpu_ms"] = (1000 * (cpu_seconds(digester) - digest_cpu_before) / max(run["sent"], 1)
                            if digester else None)
    if digester:
        # Decoding: the digester thread's own decoding plus its decode processes' CPU (the digester's tree
        # less the digester itself); storing: the digester thread's transactions.
        stages = stage_seconds(data_dir)
        per_event = 1000 / max(run["sent"], 1)
        pool_ms = run["digest_cpu_ms"] - (own_cpu_seconds(digester) - digester_own_before) * 1000 / max(run["sent"], 1)
        run["decode_cpu_ms"] = (stages.get("decode", 0.0) - stages_before.get("decode", 0.0)) * per_event + pool_ms
        run["store_cpu_ms"] = (stages.get("store", 0.0) - stages_before.get("store", 0.0)) * per_event
    # The digest's own rate: what it counted while draining the backlog left when the sending ended.
    drain = drained_at - run["send_end"]
    run["digest_rate"] = (counted - run["counted_at_send_end"]) / drain if drain > 0.5 else None
    # End to end: until the last accepted event is counted in its error (send time + drain time).
    return run, counted, stored, max(drained_at, run["finished"])


def report_outpost(setting: str, run: dict, counted: int, stored: int, processed_rate: float) -> bool:
    """Prints one Outpost run; False when an accepted event went missing or a send was refused."""
    accepted_rate = run["accepted"] / run["elapsed"]
    lossless = stored == run["accepted"] == counted
    print(f"  outpost ({_setting(setting)}, load average {run['load_average']:.1f} at its end): {run['sent']} sent, "
          f"{run['accepted']} accepted, statuses {run['statuses']}")
    print(f"            end to end {processed_rate:,.0f} events/s (stored / (send time + drain time)), "
          f"accepted {accepted_rate:,.0f} events/s")
    print(f"            accept latency p50 {run['p50_ms']:.1f} ms, p99 {run['p99_ms']:.1f} ms; freshness p99 "
          f"{_ms(run['fresh_p99_ms'])} from 200 to listed ({run['fresh_samples']} probes); "
          f"server CPU {run['cpu_ms']:.2f} ms/event")
    if run["digest_cpu_ms"] is not None:
        print(f"            of which the digester process (with its decode processes) {run['digest_cpu_ms']:.2f} "
              f"ms/event, the accept stage (HTTP workers) {run['cpu_ms'] - run['digest_cpu_ms']:.2f} ms/event")
        print_stages(run)
    if run["digest_rate"] is not None:
        print(f"            digest rate while draining the backlog {run['digest_rate']:,.0f} events/s")
    print(f"            peak memory of all server processes: RSS {run['rss_mb']:.0f} MB, PSS {run['pss_mb']:.0f} MB")
    print(f"            stored {stored}, counted in errors {counted}: "
          f"{'stored == accepted' if lossless else 'MISMATCH'}")
    return lossless and run["accepted"] == run["sent"]


def print_stages(run: dict) -> None:
    """Server CPU per stored event by stage, each beside its budget (the rest of the digester's CPU is its
    spool reads and removals, and its idle polls)."""
    accept = run["cpu_ms"] - run["digest_cpu_ms"]
    figures = {"accept": accept, "decode": run["decode_cpu_ms"], "store": run["store_cpu_ms"],
               "digest": run["digest_cpu_ms"], "together": run["cpu_ms"]}
    shown = []
    for stage, value in figures.items():
        budget = BUDGETS_MS.get(stage)
        verdict = "" if budget is None else f" (budget {budget:.2f}: {'met' if value <= budget else 'MISSED'})"
        shown.append(f"{stage} {value:.3f}{verdict}")
    print("            CPU ms per stored event by stage: " + "; ".join(shown))


def _setting(setting: str) -> str:
    return f"OUTPOST_DIGEST_PROCESSES={setting}"


def run_spike(args: argparse.Namespace, token: str) -> int:
    with tempfile.TemporaryDirectory(prefix="outpost-bench-") as tmp:
        data_dir = Path(tmp)
        outpost, port = start_outpost(data_dir, token, args.workers)
        try:
            project_id, public_key = prepare_project(port, token)
            share = args.spike // args.processes
            request_sets = [build_requests(share, i * share, outpost_store_path(project_id), public_key)
                            for i in range(args.processes)]
            run = run_load(port, request_sets, 64, args.time_limit * 10)
            deadline = time.time() + 600
            counted, stored = counted_events(data_dir / "outpost.sqlite3", project_id)
            while counted < run["accepted"] and time.time() < deadline:
                time.sleep(0.1)
                counted, stored = counted_events(data_dir / "outpost.sqlite3", project_id)
            drained = time.time() - run["finished"]
        finally:
            stop(outpost)
    statuses = run["statuses"]
    refused = statuses.get(429, 0)
    ok = (run["sent"] == share * args.processes and set(statuses) <= {200, 429}
          and stored == counted == run["accepted"])
    print(f"Spike: {run['sent']} events from 64 senders in {run['elapsed']:.1f} s, statuses {statuses} "
          f"(429 without Retry-After: {statuses.get(NO_RETRY_AFTER, 0)}); {refused} refused, "
          f"{run['accepted']} accepted, {stored} stored, drained {drained:.1f} s after the last answer: "
          f"{'every accepted event stored' if ok else 'MISMATCH'}")
    return 0 if ok else 1


def _ms(value: float | None) -> str:
    return "n/a" if value is None else f"{value:,.0f} ms"


if __name__ == "__main__":
    sys.exit(main())
