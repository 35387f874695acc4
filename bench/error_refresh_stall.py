"""UI stall while the error list refreshes on a project receiving 500 events a second.

    .venv/bin/python -m bench.error_refresh_stall [--rate 500] [--seconds 10]

A fresh server gets one project with integrated error tracking. A separate process (so it does not
share the console's interpreter) sends events to it at the given rate, spread over 50 errors, for the
whole run. With that load running, an event-loop lag probe on the UI thread measures:

- the baseline: the idle error tracking tab, with no refresh, for the given time;
- the console: the same tab refreshing its list every second (its timer refreshes every 30 s; here
  the refresh is called each second so that many refreshes fall in the window).

The longest stall is the longest time the window could not react; the report gives both and their ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import httpx  # noqa: E402

from tests.e2e.flows import enable_error_tracking, sentry_event, store_path, store_request  # noqa: E402
from tests.support import ApiHelper, start_server  # noqa: E402

STALL_AIM = 0.050
SENDER_THREADS = 8
GROUPS = 50


def send(url: str, project_id: int, public_key: str, rate: float, seconds: float) -> None:
    """The load: events at ``rate`` per second for ``seconds``, from a few threads; prints the count sent."""
    sent = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds
    interval = SENDER_THREADS / rate

    def worker(offset: int) -> None:
        with httpx.Client(base_url=url, timeout=30) as client:
            due = time.monotonic() + offset * interval / SENDER_THREADS
            while time.monotonic() < deadline:
                pause = due - time.monotonic()
                if pause > 0:
                    time.sleep(pause)
                due += interval
                with lock:
                    number = sent[0]
                    sent[0] += 1
                headers, body = store_request(public_key, sentry_event(group=number % GROUPS,
                                                                       message=f"load {number % GROUPS}"))
                client.post(store_path(project_id), headers=headers, content=body)

    threads = [threading.Thread(target=worker, args=(offset,)) for offset in range(SENDER_THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    print(sent[0], flush=True)


async def measure(url: str, token: str, path: str, seconds: float) -> dict[str, float]:
    from console.context import AppContext
    from console.errors.tab import ErrorTrackingTab
    from console.responsiveness import LagProbe

    context = AppContext()
    await context.connect_to(url, token)
    tab = ErrorTrackingTab(context)
    tab.resize(1100, 700)
    tab.show()
    while tab.project_picker.findText(path) < 0:
        await asyncio.sleep(0.05)
    tab.select_project(path)
    page = tab.errors_page
    while page.model.rowCount() == 0:
        await asyncio.sleep(0.05)
    tab.refresh_timer.stop()  # the benchmark decides when to refresh

    idle = LagProbe()
    idle.start()
    await asyncio.sleep(seconds)
    idle_stall = idle.stop()

    probe = LagProbe()
    probe.start()
    deadline = time.monotonic() + seconds
    refreshes = 0
    while time.monotonic() < deadline:
        page.auto_refresh()
        refreshes += 1
        await asyncio.sleep(1.0)
    stall = probe.stop()
    rows = page.model.rowCount()
    tab.close()
    await context.disconnect()
    return {"stall": stall, "idle_stall": idle_stall, "refreshes": refreshes, "rows": rows}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.error_refresh_stall")
    parser.add_argument("--rate", type=float, default=500.0)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--send", nargs=3, metavar=("URL", "PROJECT_ID", "PUBLIC_KEY"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.send:
        send(args.send[0], int(args.send[1]), args.send[2], args.rate, args.seconds)
        return 0

    import qasync
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as work, start_server(Path(work) / "server") as server:
        project = ApiHelper(server).project()
        with httpx.Client(base_url=f"{server.url}/api/v4", headers={"PRIVATE-TOKEN": server.root_token}) as api:
            key = enable_error_tracking(api, project["id"])
        load_seconds = 2 * args.seconds + 15  # covers the set-up, the baseline and the measurement
        sender = subprocess.Popen([sys.executable, "-m", "bench.error_refresh_stall", "--rate", str(args.rate),
                                   "--seconds", str(load_seconds), "--send", server.url, str(project["id"]),
                                   key["public_key"]], stdout=subprocess.PIPE, text=True)
        started = time.monotonic()
        try:
            loop = qasync.QEventLoop(app)
            asyncio.set_event_loop(loop)
            with loop:
                figures = loop.run_until_complete(measure(server.url, server.root_token,
                                                          project["path_with_namespace"], args.seconds))
        finally:
            sent_text, _ = sender.communicate(timeout=load_seconds + 120)
        achieved = int(sent_text.strip() or 0) / max(time.monotonic() - started, load_seconds)
    stall_ms, idle_ms = figures["stall"] * 1000, figures["idle_stall"] * 1000
    verdict = "ok" if stall_ms <= STALL_AIM * 1000 else "over the 50 ms aim"
    print(f"load: about {achieved:.0f} events/s sent (asked for {args.rate:.0f}); "
          f"{figures['refreshes']} refreshes, {figures['rows']} rows listed")
    print(f"longest UI stall while refreshing: {stall_ms:.1f} ms ({verdict}); idle tab under the same load "
          f"(the baseline): {idle_ms:.1f} ms; ratio {stall_ms / max(idle_ms, 0.1):.2f}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
