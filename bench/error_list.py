"""Error list benchmark: 10,000 errors and 200,000 events in a fresh server's database.

    .venv/bin/python -m bench.error_list [--errors 10000] [--events 200000] [--repeat 30]

A fresh local server (no demo data) gets one project with integrated error tracking; the errors,
events, hourly counts and one stored payload per error are then written straight into its SQLite
database (ingestion has its own benchmark). Measured over loopback with a kept-alive connection:

- the baseline: `GET /api/v4/version`, the cheapest authenticated round trip;
- the first page of `/<project>/-/error_tracking.json`, a page 50 deep (through the cursor) and a
  filtered search;
- the detail view of one error: `details.json` plus `stack_trace.json`;
- the baseline, the first page and the detail view again through the ASGI app in the benchmark's own
  process (server time without the loopback hop and the other process's scheduling), against its own
  `/version` baseline.

Then the console: from choosing the project in the error tracking tab to the first rows painted,
with an event-loop lag probe on the UI thread (the longest stall is how long the window could not react).
"""

from __future__ import annotations

import argparse
import asyncio
import datetime as dt
import json
import os
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx  # noqa: E402
import qasync  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402
from sqlalchemy import create_engine, insert, select  # noqa: E402

from console.context import AppContext  # noqa: E402
from console.core.connection.local_server import LocalServer
from console.errors.tab import ErrorTrackingTab  # noqa: E402
from console.responsiveness import LagProbe  # noqa: E402
from outpost_server.error_tracking.models import (  # noqa: E402
    ErrorEvent,
    ErrorEventPayload,
    ErrorHourlyCount,
    ErrorTrackingSetting,
    TrackedError,
)

PAGE_AIM_MS = 50
PAINT_AIM_MS = 300
STALL_AIM_MS = 50
MODULES = ["shop.checkout", "shop.cart", "shop.payments", "shop.search", "shop.accounts", "shop.inventory"]
EXCEPTIONS = ["ValueError", "KeyError", "TypeError", "ZeroDivisionError", "RuntimeError", "IndexError"]


def _frame(module: str, function: str, line: int, in_app: bool) -> dict:
    return {"filename": module.replace(".", "/") + ".py", "abs_path": "/srv/" + module.replace(".", "/") + ".py",
            "module": module, "function": function, "lineno": line, "in_app": in_app,
            "pre_context": [f"    step_{line - 2}()", f"    step_{line - 1}()"],
            "context_line": f"    return {function}(order)", "post_context": [f"    step_{line + 1}()"]}


def sample_event(number: int) -> dict:
    """A Python SDK event with a chained exception and a realistic number of frames."""
    module = MODULES[number % len(MODULES)]
    frames = [_frame("django.core.handlers.base", "_get_response", 197, False),
              _frame("django.core.handlers.exception", "inner", 55, False)]
    frames += [_frame(module, f"handler_{depth}", 20 + depth * 7, True) for depth in range(8)]
    cause = {"type": "ZeroDivisionError", "value": "division by zero", "module": None,
             "stacktrace": {"frames": frames[-3:]}, "mechanism": {"type": "chained", "handled": True}}
    raised = {"type": EXCEPTIONS[number % len(EXCEPTIONS)], "value": f"order {number} could not be priced",
              "module": None, "stacktrace": {"frames": frames}, "mechanism": {"type": "django", "handled": False}}
    return {"event_id": f"{number:032x}", "platform": "python", "level": "error", "release": "shop@1.4.0",
            "environment": "production", "exception": {"values": [cause, raised]},
            "sdk": {"name": "sentry.python", "version": "1.21.0"}}


def seed(database_url: str, project_id: int, *, errors: int, events: int) -> None:
    random.seed(7)
    engine = create_engine(database_url)
    now = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    per_error = max(events // errors, 1)
    with engine.begin() as connection:
        error_rows = []
        for number in range(errors):
            first = now - dt.timedelta(days=random.randint(1, 60), minutes=number % 1440)
            last = now - dt.timedelta(minutes=random.randint(0, 2880))
            kind = EXCEPTIONS[number % len(EXCEPTIONS)]
            error_rows.append({
                "project_id": project_id, "fingerprint": f"{number:064x}",
                "title": f"{kind}: order {number} could not be priced", "kind": "error", "exception_type": kind,
                "culprit": f"{MODULES[number % len(MODULES)]} in handler_7",
                "message": f"order {number} could not be priced",
                "level": "error" if number % 10 else "warning", "platform": "python", "count": per_error,
                "users_count": 1 + number % 17, "first_seen_at": first, "last_seen_at": max(first, last),
                "status": "unresolved" if number % 5 else "resolved", "regressed": False,
                "first_release": "shop@1.0.0", "last_release": "shop@1.4.0" if number % 3 else "shop@1.3.2",
                "last_environment": "production", "stored_events": 1, "created_at": first, "updated_at": last})
        connection.execute(insert(TrackedError), error_rows)
        ids = list(connection.scalars(select(TrackedError.id).where(TrackedError.project_id == project_id)
                                      .order_by(TrackedError.id)))
        event_rows = []
        hourly: dict[tuple[int, dt.datetime], int] = {}
        for index in range(events):
            error_id = ids[index % len(ids)]
            moment = now - dt.timedelta(minutes=random.randint(0, 47 * 60))
            event_rows.append({"project_id": project_id, "error_id": error_id, "event_id": f"{index:032x}",
                               "occurred_at": moment, "received_at": moment, "level": "error",
                               "release": "shop@1.4.0" if index % 3 else "shop@1.3.2", "environment": "production",
                               "user_key": f"user-{index % 997}"})
            hour = moment.replace(minute=0, second=0)
            hourly[(error_id, hour)] = hourly.get((error_id, hour), 0) + 1
        for start in range(0, len(event_rows), 20_000):
            connection.execute(insert(ErrorEvent), event_rows[start:start + 20_000])
        connection.execute(insert(ErrorHourlyCount), [{"error_id": e, "hour": h, "count": c}
                                                      for (e, h), c in hourly.items()])
        latest = {error_id: (row_id, event_id, received) for error_id, row_id, event_id, received in connection.execute(
            select(ErrorEvent.error_id, ErrorEvent.id, ErrorEvent.event_id, ErrorEvent.received_at)
            .where(ErrorEvent.project_id == project_id))}
        # Only the columns the payload table has (it keys payloads by event row or by event id).
        columns = set(ErrorEventPayload.__table__.columns.keys())
        payloads = [{name: value for name, value in (
                        ("event_row_id", row_id), ("event_id", event_id), ("error_id", error_id),
                        ("payload", json.dumps(sample_event(error_id)).encode()), ("received_at", received))
                     if name in columns}
                    for error_id, (row_id, event_id, received) in latest.items()]
        for start in range(0, len(payloads), 5_000):
            connection.execute(insert(ErrorEventPayload), payloads[start:start + 5_000])
        setting = connection.scalar(
            select(ErrorTrackingSetting.id).where(ErrorTrackingSetting.project_id == project_id))
        assert setting is not None
    engine.dispose()


def timed(client: httpx.Client, url: str, repeat: int, **params) -> list[float]:
    samples = []
    for _ in range(repeat):
        started = time.perf_counter()
        client.get(url, params=params or None).raise_for_status()
        samples.append((time.perf_counter() - started) * 1000)
    return samples


def server_figures(url: str, token: str, path: str, repeat: int) -> dict[str, list[float]]:
    with httpx.Client(base_url=url, headers={"PRIVATE-TOKEN": token}, timeout=60) as client:
        client.get("/api/v4/version").raise_for_status()  # warm the connection
        figures = {"baseline: GET /api/v4/version": timed(client, "/api/v4/version", repeat)}
        list_url = f"/{path}/-/error_tracking.json"
        figures["error list, first page"] = timed(client, list_url, repeat)
        cursor, pages = None, 1
        for _ in range(49):  # to page 50, or the last page of a smaller list
            following = client.get(list_url, params={"cursor": cursor} if cursor else None).json()["pagination"]
            if "next" not in following:
                break
            cursor, pages = following["next"]["cursor"], pages + 1
        figures[f"error list, page {pages} (cursor)"] = timed(client, list_url, repeat, cursor=cursor)
        figures["error list, frequency sort"] = timed(client, list_url, repeat, sort="frequency")
        figures["error list, search 'order 9'"] = timed(client, list_url, repeat, search_term="order 9")
        figures["error list, release:shop@1.3.2"] = timed(client, list_url, repeat, search_term="release:shop@1.3.2")
        error_id = client.get(list_url).json()["errors"][0]["id"]
        detail, trace = f"/{path}/-/error_tracking/{error_id}/details.json", \
            f"/{path}/-/error_tracking/{error_id}/stack_trace.json"
        figures["detail: details.json"] = timed(client, detail, repeat)
        figures["detail: stack_trace.json"] = timed(client, trace, repeat)
        both = []
        for _ in range(repeat):
            started = time.perf_counter()
            client.get(detail).raise_for_status()
            client.get(trace).raise_for_status()
            both.append((time.perf_counter() - started) * 1000)
        figures["detail view (both requests)"] = both
    return figures


def in_process_figures(data_dir: Path, token: str, path: str, repeat: int) -> dict[str, list[float]]:
    """The same requests through the ASGI app in this process: server time without the loopback hop."""
    from fastapi.testclient import TestClient

    from outpost_server.app import create_app
    from outpost_server.config import ServerConfig

    config = ServerConfig(data_dir=data_dir, database_url=os.environ.get("OUTPOST_DATABASE_URL", ""))
    with TestClient(create_app(config), headers={"PRIVATE-TOKEN": token}) as client:
        list_url = f"/{path}/-/error_tracking.json"
        error_id = client.get(list_url).json()["errors"][0]["id"]
        figures = {"in-process baseline: GET /api/v4/version": timed(client, "/api/v4/version", repeat),
                   "in-process: error list, first page": timed(client, list_url, repeat)}
        both = []
        for _ in range(repeat):
            started = time.perf_counter()
            client.get(f"/{path}/-/error_tracking/{error_id}/details.json").raise_for_status()
            client.get(f"/{path}/-/error_tracking/{error_id}/stack_trace.json").raise_for_status()
            both.append((time.perf_counter() - started) * 1000)
        figures["in-process: detail view (both requests)"] = both
    return figures


class PaintWatcher(QObject):
    """Notes the first paint of the table's viewport after rows are present."""

    def __init__(self, tab: ErrorTrackingTab) -> None:
        super().__init__()
        self.tab = tab
        self.painted_at: float | None = None

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QEvent.Type.Paint and self.painted_at is None \
                and self.tab.errors_page.model.rowCount() > 0:
            self.painted_at = time.perf_counter()
        return False


async def wait_for(predicate, timeout: float = 120.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the console did not finish in time")
        await asyncio.sleep(0.002)


async def console_figures(url: str, token: str, path: str, rounds: int) -> dict[str, list[float]]:
    context = AppContext()
    context.error_reported.connect(lambda title, message: print(f"{title}: {message}", file=sys.stderr))
    await context.connect_to(url, token)
    tab = ErrorTrackingTab(context)
    tab.resize(1300, 800)
    tab.show()
    await wait_for(lambda: tab.project_picker.findText(path) >= 0)
    viewport = tab.errors_page.table.viewport()
    # Baseline for the stall: the same probe while the window does nothing (the machine's own noise).
    idle = []
    for _ in range(rounds):
        probe = LagProbe()
        probe.start()
        await asyncio.sleep(0.5)
        idle.append(probe.stop() * 1000)
    first_rows, stalls = [], []
    for _ in range(rounds):
        tab.project_picker.setCurrentIndex(-1)
        await asyncio.sleep(0.05)
        watcher = PaintWatcher(tab)
        viewport.installEventFilter(watcher)
        probe = LagProbe()
        probe.start()
        started = time.perf_counter()
        tab.select_project(path)
        await wait_for(lambda watcher=watcher: watcher.painted_at is not None)
        painted_at = watcher.painted_at
        assert painted_at is not None  # wait_for returned once the first paint set it
        first_rows.append((painted_at - started) * 1000)
        # Let the settings and keys pages finish loading too: their work is part of choosing a project.
        await wait_for(lambda: not context._in_flight)
        stalls.append(probe.stop() * 1000)
        viewport.removeEventFilter(watcher)
    tab.close()
    await context.disconnect()
    return {"console: choose project -> first rows painted": first_rows, "console: longest UI stall": stalls,
            "console: longest stall while idle (baseline)": idle}


async def run(args, workdir: Path) -> tuple[dict[str, list[float]], dict[str, float]]:
    server = LocalServer(workdir / "server", demo=False)
    url = await server.start()
    try:
        async with httpx.AsyncClient(base_url=url + "/api/v4", headers={"PRIVATE-TOKEN": server.root_token},
                                     timeout=60) as api:
            project = (await api.post("/projects", json={"name": "storefront"})).json()
            (await api.put(f"/projects/{project['id']}/error_tracking/settings",
                           json={"active": True, "integrated": True})).raise_for_status()
        database_url = os.environ.get("OUTPOST_DATABASE_URL") or \
            f"sqlite:///{(workdir / 'server' / 'outpost.sqlite3').resolve()}"
        loop = asyncio.get_running_loop()
        started = time.perf_counter()
        await loop.run_in_executor(None, lambda: seed(database_url, project["id"], errors=args.errors,
                                                      events=args.events))
        seeding = time.perf_counter() - started
        figures = await loop.run_in_executor(None, server_figures, url, server.root_token,
                                             project["path_with_namespace"], args.repeat)
        figures |= await loop.run_in_executor(None, in_process_figures, workdir / "server", server.root_token,
                                              project["path_with_namespace"], args.repeat)
        figures |= await console_figures(url, server.root_token, project["path_with_namespace"], args.rounds)
    finally:
        await server.stop()
    return figures, {"seeding": seeding}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--errors", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=200_000)
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rounds", type=int, default=5, help="times the console chooses the project")
    args = parser.parse_args()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    QApplication.setQuitOnLastWindowClosed(False)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory(prefix="outpost-bench-errors-") as workdir, loop:
        figures, extra = loop.run_until_complete(run(args, Path(workdir)))
    baseline = statistics.median(figures["baseline: GET /api/v4/version"])
    in_process = statistics.median(figures["in-process baseline: GET /api/v4/version"])
    print(f"\n{args.errors} errors, {args.events} events (seeded in {extra['seeding']:.1f} s); "
          f"{args.repeat} requests each over loopback, {args.rounds} console rounds\n")
    print(f"{'what':48} {'median ms':>10} {'p95 ms':>8} {'x baseline':>11}")
    for name, samples in figures.items():
        ordered = sorted(samples)
        p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))]
        median = statistics.median(samples)
        reference = in_process if name.startswith("in-process") else baseline
        ratio = "" if "stall" in name else f"{median / reference:10.1f}x"
        print(f"{name:48} {median:10.1f} {p95:8.1f} {ratio:>11}")
    page = statistics.median(figures["in-process: error list, first page"])
    paint = statistics.median(figures["console: choose project -> first rows painted"])
    stall = max(figures["console: longest UI stall"])
    print(f"\naims: first page {page:.1f} ms in-process (aim < {PAGE_AIM_MS}), first rows painted {paint:.0f} ms "
          f"(aim < {PAINT_AIM_MS}), worst UI stall {stall:.1f} ms (aim < {STALL_AIM_MS})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
