"""Starting and stopping this process's part of the pipeline: the access cache, the spool writer and
the digester."""

from __future__ import annotations

import asyncio
import os
import signal
import threading
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI

from outpost_server.config import ServerConfig
from outpost_server.db import make_engine

from ..access_cache import AccessCache
from .accept import SpoolLimits, SpoolWriter
from .digest import Digester
from .sealing import Sealer
from .spool import spool_path


@asynccontextmanager
async def running_pipeline(app: FastAPI) -> AsyncIterator[None]:
    config = app.state.config
    access = AccessCache(app.state.sessionmaker)
    access.start()
    app.state.error_tracking_access = access
    app.state.error_tracking_sealer = Sealer(app.state.secret_key)
    wake = threading.Event()
    writer = SpoolWriter(spool_path(config.data_dir), SpoolLimits(
        max_bytes=config.error_tracking_spool_max_bytes,
        max_age_seconds=config.error_tracking_spool_max_age_seconds), on_commit=wake)
    await writer.prepare()
    writer.start()
    app.state.error_tracking_spool_writer = writer
    digester = None
    if app.state.digest_in_process:
        digester = Digester(app.state.engine, data_dir=config.data_dir, sealer=app.state.error_tracking_sealer,
                            wake=wake)
        digester.start()
    try:
        yield
    finally:
        # Requests in flight have been answered by now; what they queued is drained within the grace,
        # and whatever is left waits in the spool for the next start.
        await writer.stop()
        if digester is not None:
            await asyncio.get_running_loop().run_in_executor(
                None, lambda: digester.stop(drain_seconds=config.shutdown_grace_seconds))
        await access.stop()


def run_digester(config: ServerConfig, *, parent: int) -> None:
    """The digester process of `serve --workers N`: digests until SIGTERM or SIGINT (then drains within
    the shutdown grace), or until its parent is gone."""
    stop = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stop.set())
    engine = make_engine(config.sqlalchemy_url())
    digester = Digester(engine, data_dir=config.data_dir, sealer=Sealer(config.resolved_secret_key()),
                        wake=threading.Event())
    digester.start()
    try:
        while not stop.wait(0.5):
            if os.getppid() != parent:
                break
    finally:
        digester.stop(drain_seconds=config.shutdown_grace_seconds)
        engine.dispose()
