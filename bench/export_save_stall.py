"""UI stall while the console saves a large vulnerability export.

    .venv/bin/python -m bench.export_save_stall [--rows 100000]

A fresh server gets one project with that many vulnerabilities (written straight into its database)
and exports them. Then the console's exports tab saves the finished export (as "Save As…" does) while
an event-loop lag probe runs on the UI thread; its longest stall is the longest time the window could
not react. The baseline, measured in the same run, is the same probe on the idle window for as long as
the save took: the stall a loaded machine causes on its own.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import qasync  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from bench.exports.seed import insert_vulnerabilities, server_engine  # noqa: E402
from console.context import AppContext  # noqa: E402
from console.core.api.exports import ExportScope
from console.core.exports.store import ExportRecord
from console.core.repositories.exports import EXPORTS, INSTANCE
from console.exports.views import ExportsTab  # noqa: E402
from console.responsiveness import LagProbe  # noqa: E402
from tests.support import ApiHelper, start_server  # noqa: E402

STALL_AIM = 0.050


async def wait_for(predicate, timeout: float = 600.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise TimeoutError("the console did not get there in time")
        await asyncio.sleep(0.05)


async def measure(url: str, token: str, project: dict, workdir: Path) -> dict[str, float]:
    context = AppContext()
    context.error_reported.connect(lambda title, message: print(f"{title}: {message}", file=sys.stderr))
    await context.connect_to(url, token)
    tab = ExportsTab(context, history_dir=workdir / "history")
    tab.resize(1100, 600)
    tab.show()
    scope = ExportScope("project", project["id"], project["path_with_namespace"])
    body = await tab.api.create(scope)
    while (state := await tab.api.state(body.id)).poll_seconds is not None:
        await asyncio.sleep(0.2)
    finished = ExportRecord.from_api(state.body, scope)
    context.store.put(EXPORTS, INSTANCE, str(finished.id), finished)  # as the tab's watch would
    target = workdir / "export.csv"

    probe = LagProbe()
    probe.start()
    started = time.perf_counter()
    task = tab.save_to(body.id, target)
    assert task is not None  # None only without a connection
    await task
    seconds = time.perf_counter() - started
    stall = probe.stop()

    idle = LagProbe()
    idle.start()
    await asyncio.sleep(seconds)
    idle_stall = idle.stop()
    size = target.stat().st_size
    tab.close()
    await context.cancel_operations()  # the tab's watchers of the export; the process ends right after
    return {"seconds": seconds, "stall": stall, "idle_stall": idle_stall, "bytes": size}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.export_save_stall")
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication(sys.argv[:1])
    with tempfile.TemporaryDirectory() as work, start_server(Path(work) / "server") as server:
        helper = ApiHelper(server)
        project = helper.project()
        engine = server_engine(server.data_dir, server.env.get("OUTPOST_DATABASE_URL"))
        insert_vulnerabilities(engine, project["id"], args.rows)
        loop = qasync.QEventLoop(app)
        asyncio.set_event_loop(loop)
        with loop:
            figures = loop.run_until_complete(measure(server.url, server.root_token, project, Path(work)))
    stall_ms, idle_ms = figures["stall"] * 1000, figures["idle_stall"] * 1000
    verdict = "ok" if stall_ms <= STALL_AIM * 1000 else "over the 50 ms aim"
    print(f"saved {figures['bytes']:,} bytes ({args.rows:,} rows) in {figures['seconds']:.2f} s")
    print(f"longest UI stall while saving: {stall_ms:.1f} ms ({verdict}); idle window over the same time "
          f"(machine noise, the baseline): {idle_ms:.1f} ms; ratio {stall_ms / max(idle_ms, 0.1):.2f}; "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
